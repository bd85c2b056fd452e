import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, ValidatingAdmissionPolicy } from '../../api/admissionregistration.js';
import { formatFieldError, type FieldError } from '../../api/field.js';
import { kubernetesCelEnvironment } from '../cel/kubernetes.js';
import { vap, vapb } from './test-fixtures.js';
import {
  isCELIdentifier,
  setDefaultsMutatingAdmissionPolicy,
  setDefaultsValidatingAdmissionPolicy,
  setDefaultsValidatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatus,
  validateValidatingAdmissionPolicyUpdate,
} from './validation.js';

const messages = (errs: FieldError[]) => errs.map(formatFieldError);
const cel = kubernetesCelEnvironment();

function withSpec(spec: Record<string, unknown>): ValidatingAdmissionPolicy {
  const p = vap('policy.example.com');
  return { ...p, spec: { ...p.spec, ...spec } as ValidatingAdmissionPolicy['spec'] };
}

function map(spec: Record<string, unknown> = {}): MutatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'mutate.example.com' },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'], scope: '*' }],
      },
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: 2}}' } }],
      ...spec,
    } as MutatingAdmissionPolicy['spec'],
  };
}

describe('ValidatingAdmissionPolicy validation', () => {
  it('accepts a defaulted policy', () => {
    expect(validateValidatingAdmissionPolicy(vap('p.example.com'), { cel })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['failurePolicy must be set (it is defaulted on write)', { failurePolicy: undefined }, ['spec.failurePolicy: Required value']],
    ['failurePolicy Fail or Ignore', { failurePolicy: 'Maybe' }, ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']],
    ['matchConstraints is required', { matchConstraints: undefined }, ['spec.matchConstraints: Required value']],
    [
      'resourceRules are required to type the expressions',
      { matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} } },
      ['spec.matchConstraints.resourceRules: Required value'],
    ],
    [
      'matchPolicy and selectors are required in matchConstraints',
      { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] } },
      ['spec.matchConstraints.matchPolicy: Required value', 'spec.matchConstraints.namespaceSelector: Required value', 'spec.matchConstraints.objectSelector: Required value'],
    ],
    [
      'rules are validated as webhook rules, resourceNames as path segments',
      {
        matchConstraints: {
          matchPolicy: 'Fuzzy',
          namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
          objectSelector: {},
          resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'PATCH'], resourceNames: ['a/b', 'x', 'x'] }],
          excludeResourceRules: [{ apiGroups: [], apiVersions: ['v1'], resources: ['pods'], operations: ['*'] }],
        },
      },
      [
        'spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
        "spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: \"a/b\": may not contain '/'",
        'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
        'spec.matchConstraints.resourceRules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
        'spec.matchConstraints.excludeResourceRules[0].apiGroups: Required value',
      ],
    ],
    [
      'validations or auditAnnotations',
      { validations: [] },
      ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item'],
    ],
    [
      'a validation needs an expression; message and reason are checked',
      { validations: [{ expression: '  ', message: 'a\nb', reason: 'Conflict' }, { expression: 'true', message: ' ', messageExpression: ' ' }] },
      [
        'spec.validations[0].expression: Required value: expression is not specified',
        'spec.validations[0].message: Invalid value: "a\\nb": must not contain line breaks',
        'spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
        'spec.validations[1].messageExpression: Invalid value: " ": must be non-empty if specified',
        'spec.validations[1].message: Invalid value: " ": must be non-empty if specified',
      ],
    ],
    [
      'variables need a CEL identifier and an expression',
      { variables: [{ name: 'in', expression: 'true' }, { name: '', expression: '' }] },
      [
        'spec.variables[0].name: Invalid value: "in": must be a valid CEL identifier',
        'spec.variables[1].name: Required value: name is not specified',
        'spec.variables[1].expression: Required value: expression is not specified',
      ],
    ],
    [
      'audit annotation keys are qualified names under the policy name, unique, with an expression',
      { auditAnnotations: [{ key: 'bad key', valueExpression: "'x'" }, { key: 'k', valueExpression: '' }, { key: 'k', valueExpression: "'y'" }] },
      [
        'spec.auditAnnotations[0].key: Invalid value: "policy.example.com/bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
        'spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified',
        'spec.auditAnnotations[2].key: Duplicate value: "k"',
      ],
    ],
    [
      'paramKind needs apiVersion and kind',
      { paramKind: { apiVersion: 'a/b/c', kind: 'Foo_Bar' } },
      ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c', "spec.paramKind.kind: Invalid value: \"Foo_Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
    ],
    [
      'matchConditions: names qualified and unique, expressions required, at most 64',
      { matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: ' ' }] },
      ['spec.matchConditions[1].expression: Required value', 'spec.matchConditions[1].name: Duplicate value: "a"'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(messages(validateValidatingAdmissionPolicy(withSpec(spec)))).toEqual(expected);
  });

  it('reports CEL compile errors at the expression path, with the compiler\'s message', () => {
    const errs = validateValidatingAdmissionPolicy(
      withSpec({
        validations: [{ expression: 'object.spec.replicas >', messageExpression: "'n=' + string(params.x)" }],
        variables: [{ name: 'a', expression: 'variables.b' }, { name: 'b', expression: '1' }],
        matchConditions: [{ name: 'uses-variables', expression: 'variables.b == 1' }],
        auditAnnotations: [{ key: 'k', valueExpression: '1 +' }],
      }),
      { cel },
    );
    expect(errs.map((e) => [e.field, e.type, e.badValue])).toEqual([
      // matchConditions are compiled without variables, as kube's stateless compiler does
      ['spec.matchConditions[0].expression', 'Invalid', 'variables.b == 1'],
      // a variable sees only the variables before it
      ['spec.variables[0].expression', 'Invalid', 'variables.b'],
      ['spec.validations[0].expression', 'Invalid', 'object.spec.replicas >'],
      ['spec.validations[0].messageExpression', 'Invalid', "'n=' + string(params.x)"],
      ['spec.auditAnnotations[0].valueExpression', 'Invalid', '1 +'],
    ]);
    expect(errs[2]!.detail).toMatch(/^compilation failed: ERROR: <input>:1:23: Syntax error/);
    expect(errs[3]!.detail).toContain("undeclared reference to 'params'");
  });

  it('does not compile without a CEL environment', () => {
    expect(validateValidatingAdmissionPolicy(withSpec({ validations: [{ expression: 'object.spec.replicas >' }] }))).toEqual([]);
  });

  it('declares params when the policy has a paramKind', () => {
    const p = withSpec({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "params.data.max == '3'", messageExpression: "'max is ' + params.data.max" }] });
    expect(validateValidatingAdmissionPolicy(p, { cel })).toEqual([]);
  });

  it('does not validate unchanged matchConditions of an update again', () => {
    const old = withSpec({ matchConditions: [{ name: 'bad name!', expression: 'true' }] });
    const updated = withSpec({ matchConditions: [{ name: 'bad name!', expression: 'true' }], validations: [{ expression: 'true' }] });
    expect(validateValidatingAdmissionPolicyUpdate(updated, old)).toEqual([]);
    expect(messages(validateValidatingAdmissionPolicy(updated)).length).toBe(1);
  });

  it('validates metadata only when asked (the manifest loader)', () => {
    const p = { ...vap('Bad_Name'), metadata: { name: 'Bad_Name' } };
    expect(validateValidatingAdmissionPolicy(p)).toEqual([]);
    expect(validateValidatingAdmissionPolicy(p, { validateObjectMeta: true }).map((e) => e.field)).toEqual(['metadata.name']);
  });

  it('accepts CEL identifiers and refuses reserved words', () => {
    expect(['a', '_x1', 'replicas'].every(isCELIdentifier)).toBe(true);
    expect(['1a', 'a-b', 'in', 'namespace', 'null'].some(isCELIdentifier)).toBe(false);
  });
});

describe('ValidatingAdmissionPolicy status validation', () => {
  it('accepts conditions as the e2e status patch sets them', () => {
    const p = { ...vap('p'), status: { conditions: [{ type: 'PatchStatusFailed', status: 'False' as const, reason: 'e2e', message: 'Set from an e2e test', lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    expect(validateValidatingAdmissionPolicyStatus(p)).toEqual([]);
  });

  it('validates conditions and type checking warnings', () => {
    const p = {
      ...vap('p'),
      status: {
        typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0', warning: '' }] },
        conditions: [
          { type: 'Ready', status: 'Maybe', reason: '', message: '', lastTransitionTime: '' },
          { type: 'Ready', status: 'True', reason: 'bad reason', message: '', lastTransitionTime: '2024-01-01T00:00:00Z', observedGeneration: -1 },
        ],
      },
    } as ValidatingAdmissionPolicy;
    expect(messages(validateValidatingAdmissionPolicyStatus(p))).toEqual([
      'status.typeChecking.expressionWarnings[0].warning: Required value',
      'status.typeChecking.expressionWarnings[0].fieldRef: Invalid value: "spec.validations[0": invalid JSONPath: unterminated array',
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].lastTransitionTime: Required value: must be set',
      'status.conditions[0].reason: Required value: must be set',
      'status.conditions[1].type: Duplicate value: "Ready"',
      'status.conditions[1].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
      "status.conditions[1].reason: Invalid value: \"bad reason\": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
    ]);
  });
});

describe('ValidatingAdmissionPolicyBinding validation', () => {
  it('accepts a binding with a policy name and actions', () => {
    expect(validateValidatingAdmissionPolicyBinding(vapb('b', 'p.example.com'))).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['policyName is required', { policyName: '' }, ['spec.policyName: Required value']],
    [
      'policyName is a DNS subdomain',
      { policyName: 'Not_A_Name' },
      ["spec.policyName: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ],
    ['validationActions are required', { validationActions: [] }, ['spec.validationActions: Required value: at least one validation action is required']],
    [
      'validationActions are unique, known, and not Deny with Warn',
      { validationActions: ['Deny', 'Warn', 'Deny', 'Log'] },
      [
        'spec.validationActions[2]: Duplicate value: "Deny"',
        'spec.validationActions[3]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
        'spec.validationActions: Invalid value: []string{"Deny", "Warn", "Deny", "Log"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    [
      'paramRef: name and selector are exclusive',
      { paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } },
      ['spec.paramRef.name: Forbidden: name and selector are mutually exclusive', 'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive'],
    ],
    [
      'paramRef: one of name or selector, and a parameterNotFoundAction (v1 has no default)',
      { paramRef: {} },
      ['spec.paramRef: Required value: one of name or selector must be specified', 'spec.paramRef.parameterNotFoundAction: Required value'],
    ],
    ['paramRef: parameterNotFoundAction Allow or Deny', { paramRef: { name: 'a', parameterNotFoundAction: 'Maybe' } }, ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"']],
    ['matchResources are validated like matchConstraints', { matchResources: { namespaceSelector: {}, objectSelector: {} } }, ['spec.matchResources.matchPolicy: Required value']],
  ])('%s', (_name, spec, expected) => {
    const b = vapb('b', 'p.example.com');
    expect(messages(validateValidatingAdmissionPolicyBinding({ ...b, spec: { ...b.spec, ...spec } }))).toEqual(expected);
  });
});

describe('MutatingAdmissionPolicy validation', () => {
  it('accepts a policy with an ApplyConfiguration mutation', () => {
    expect(validateMutatingAdmissionPolicy(map(), { cel })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['mutations are required', { mutations: [] }, ['spec.mutations: Required value: mutations must contain at least one item']],
    ['reinvocationPolicy is required (no v1 default)', { reinvocationPolicy: undefined }, ['spec.reinvocationPolicy: Required value']],
    ['reinvocationPolicy Never or IfNeeded', { reinvocationPolicy: 'Always' }, ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
    ['patchType is required', { mutations: [{ patchType: '' }] }, ['spec.mutations[0].patchType: Required value']],
    ['patchType is one of two', { mutations: [{ patchType: 'Merge' }] }, ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']],
    [
      'the patch of the patchType and not the other one',
      { mutations: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] },
      ['spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch', 'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch'],
    ],
    ['a mutation expression is required', { mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: ' ' } }] }, ['spec.mutations[0].applyConfiguration.expression: Required value']],
    [
      'DELETE cannot be mutated',
      { matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['DELETE'] }] } },
      ['spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"'],
    ],
  ])('%s', (_name, spec, expected) => {
    expect(messages(validateMutatingAdmissionPolicy(map(spec)))).toEqual(expected);
  });

  it('compiles JSONPatch expressions with the JSONPatch type', () => {
    const ok = map({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/spec/replicas', value: 3}]" } }] });
    expect(validateMutatingAdmissionPolicy(ok, { cel })).toEqual([]);
    const bad = map({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: ' } }] });
    expect(validateMutatingAdmissionPolicy(bad, { cel }).map((e) => e.field)).toEqual(['spec.mutations[0].jsonPatch.expression']);
  });

  it('validates bindings without validationActions, refusing DELETE in matchResources', () => {
    const b: MutatingAdmissionPolicyBinding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p' } };
    expect(validateMutatingAdmissionPolicyBinding(b)).toEqual([]);
    const del = { ...b, spec: { policyName: 'p', matchResources: { matchPolicy: 'Exact' as const, namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['DELETE' as const] }] } } };
    expect(messages(validateMutatingAdmissionPolicyBinding(del))).toEqual(['spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"']);
  });
});

describe('v1 defaults', () => {
  it('defaults failurePolicy, matchPolicy, selectors and rule scopes of a policy', () => {
    const p = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'] }], excludeResourceRules: [{ operations: ['CREATE'] }] }, validations: [{ expression: 'true' }] } } as ValidatingAdmissionPolicy;
    setDefaultsValidatingAdmissionPolicy(p);
    expect(p.spec).toEqual({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ operations: ['CREATE'], scope: '*' }], excludeResourceRules: [{ operations: ['CREATE'], scope: '*' }] },
      validations: [{ expression: 'true' }],
    });
  });

  it('keeps what is set', () => {
    const p = withSpec({ failurePolicy: 'Ignore', matchConstraints: { matchPolicy: 'Exact', namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, resourceRules: [{ operations: ['CREATE'], scope: 'Namespaced' }] } });
    const before = structuredClone(p);
    setDefaultsValidatingAdmissionPolicy(p);
    expect(p).toEqual(before);
  });

  it('defaults a binding\'s matchResources, and nothing of its paramRef', () => {
    const b = vapb('b', 'p', { matchResources: {}, paramRef: { name: 'x' } });
    setDefaultsValidatingAdmissionPolicyBinding(b);
    expect(b.spec).toMatchObject({ matchResources: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} }, paramRef: { name: 'x' } });
    expect(b.spec!.paramRef!.parameterNotFoundAction).toBeUndefined();
  });

  it('defaults a MutatingAdmissionPolicy\'s failurePolicy, not its reinvocationPolicy', () => {
    const p = map({ failurePolicy: undefined, reinvocationPolicy: undefined });
    setDefaultsMutatingAdmissionPolicy(p);
    expect(p.spec!.failurePolicy).toBe('Fail');
    expect(p.spec!.reinvocationPolicy).toBeUndefined();
  });
});
