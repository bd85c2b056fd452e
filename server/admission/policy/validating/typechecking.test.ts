// typechecking.go's rules as pure functions: which kinds a policy is checked against, paramKind parsing, and the
// warnings' shape (kinds without a schema are skipped; a paramKind without one leaves `params` undeclared).
import type { ValidatingAdmissionPolicy } from '../../../api/admissionregistration.js';
import type { GroupVersionKind } from '../../../api/openapi/resolver.js';
import { kubernetesCelEnvironment } from '../../cel/kubernetes.js';
import { checkPolicy, paramsKind, typesToCheck } from './typechecking.js';

const kindsFor = ({ group, resource }: { group: string; version: string; resource: string }): GroupVersionKind[] =>
  resource === 'unknowns' ? [] : [{ group, version: 'v1', kind: resource.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase()) }];

const vap = (spec: ValidatingAdmissionPolicy['spec']): ValidatingAdmissionPolicy => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec });
const rule = (apiGroups: string[], apiVersions: string[], resources: string[]) => ({ operations: ['CREATE' as const], apiGroups, apiVersions, resources });

describe('typesToCheck', () => {
  it.each<[string, ReturnType<typeof rule>[], string[]]>([
    ['one kind', [rule(['apps'], ['v1'], ['deployments'])], ['apps/v1/Deployment']],
    ['sorted by group, version, kind', [rule(['b', 'a'], ['v1'], ['zs', 'ys'])], ['a/v1/Y', 'a/v1/Z', 'b/v1/Y', 'b/v1/Z']],
    ['wildcard group skips the rule', [rule(['*'], ['v1'], ['pods']), rule([''], ['v1'], ['pods'])], ['/v1/Pod']],
    ['wildcard version skips the rule', [rule([''], ['v*'], ['pods'])], []],
    ['wildcard and subresources are ignored', [rule([''], ['v1'], ['*', 'pods/status', 'secrets'])], ['/v1/Secret']],
    ['unserved resources resolve to nothing', [rule([''], ['v1'], ['unknowns'])], []],
    ['duplicates once', [rule([''], ['v1'], ['pods']), rule([''], ['v1'], ['pods'])], ['/v1/Pod']],
    ['at most 10 per rule, then stop', [rule([''], ['v1'], 'abcdefghijkl'.split('').map((c) => `${c}s`)), rule(['x'], ['v1'], ['ys'])], 'abcdefghij'.split('').map((c) => `/v1/${c.toUpperCase()}`)],
  ])('%s', (_name, resourceRules, want) => {
    expect(typesToCheck(vap({ matchConstraints: { resourceRules } }), kindsFor).map((g) => `${g.group}/${g.version}/${g.kind}`)).toEqual(want);
  });

  it('is empty without matchConstraints', () => {
    expect(typesToCheck(vap({}), kindsFor)).toEqual([]);
  });
});

describe('paramsKind', () => {
  it.each([
    [{ apiVersion: 'v1', kind: 'ConfigMap' }, { group: '', version: 'v1', kind: 'ConfigMap' }],
    [{ apiVersion: 'example.com/v1', kind: 'Limit' }, { group: 'example.com', version: 'v1', kind: 'Limit' }],
    [{ apiVersion: 'a/b/c', kind: 'X' }, undefined],
  ])('parses %j', (paramKind, want) => {
    expect(paramsKind(vap({ paramKind }))).toEqual(want);
  });
});

describe('checkPolicy', () => {
  const schemas = {
    schemaFor: (g: GroupVersionKind) =>
      g.kind === 'Widget' ? { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } : undefined,
  };
  const widget = { group: 'example.com', version: 'v1', kind: 'Widget' };
  const gadget = { group: 'example.com', version: 'v1', kind: 'Gadget' };

  it('skips kinds without a schema and declares no params when the paramKind has none', () => {
    const warnings = checkPolicy(vap({ validations: [{ expression: 'object.spec.size > params.max' }, { expression: 'object.spec.sise > 1' }] }), kubernetesCelEnvironment(), schemas, [gadget, widget], gadget);
    expect(warnings).toEqual([
      { fieldRef: 'spec.validations[0].expression', warning: "example.com/v1, Kind=Widget: ERROR: <input>:1:20: undeclared reference to 'params' (in container '')\n | object.spec.size > params.max\n | ...................^\n" },
      { fieldRef: 'spec.validations[1].expression', warning: "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise > 1\n | ...........^\n" },
    ]);
  });

  it('checks nothing when no kind has a schema', () => {
    expect(checkPolicy(vap({ validations: [{ expression: 'object.nope' }] }), kubernetesCelEnvironment(), schemas, [gadget], undefined)).toEqual([]);
  });
});
