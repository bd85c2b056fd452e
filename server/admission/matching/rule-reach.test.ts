import type { RuleWithOperations } from '../../api/admissionregistration.js';
import type { GroupVersionResource } from '../../api/types.js';
import type { AdmissionOperation } from '../attributes.js';
import { newEquivalentResourceMapper } from './equivalence.js';
import { ruleCandidates, rulesMayMatch } from './rule-reach.js';
import type { EquivalentResourceMapper } from './equivalence.js';
import { matchesRule } from './rules.js';

const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });
const kind = (group: string, version: string, k: string) => ({ group, version, kind: k });

// widgets (example.com/v1) and gadgets (legacy.example.com/v1beta1) serve the same objects under different names
const mapper = newEquivalentResourceMapper([
  [
    { resource: gvr('example.com', 'v1', 'widgets'), subresource: '', kind: kind('example.com', 'v1', 'Widget') },
    { resource: gvr('legacy.example.com', 'v1beta1', 'gadgets'), subresource: '', kind: kind('legacy.example.com', 'v1beta1', 'Widget') },
    { resource: gvr('example.com', 'v1', 'widgets'), subresource: 'status', kind: kind('example.com', 'v1', 'Widget') },
  ],
]);

interface Request {
  operation: AdmissionOperation;
  resource: GroupVersionResource;
  subresource: string;
  namespace: string;
}
const request = (operation: AdmissionOperation, resource: GroupVersionResource, subresource = '', namespace = 'ns'): Request => ({ operation, resource, subresource, namespace });

const rules: Record<string, RuleWithOperations[]> = {
  'configmaps CREATE': [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  'any operation on pods/*': [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods/*'] }],
  '*/status UPDATE': [{ operations: ['UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'] }],
  'gadgets CREATE (an equivalent of widgets)': [{ operations: ['CREATE'], apiGroups: ['legacy.example.com'], apiVersions: ['v1beta1'], resources: ['gadgets'] }],
  'two rules: DELETE secrets, CREATE services': [
    { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] },
    { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['services'] },
  ],
  'no operations': [{ operations: [], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
  'no resources': [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: [] }],
  'no rules': [],
};

const requests: Request[] = [
  request('CREATE', gvr('', 'v1', 'configmaps')),
  request('UPDATE', gvr('', 'v1', 'configmaps')),
  request('CREATE', gvr('', 'v1', 'pods')),
  request('CONNECT', gvr('', 'v1', 'pods'), 'exec'),
  request('UPDATE', gvr('apps', 'v1', 'deployments'), 'status'),
  request('CREATE', gvr('example.com', 'v1', 'widgets')),
  request('CREATE', gvr('example.com', 'v1', 'widgets'), 'status'),
  request('DELETE', gvr('', 'v1', 'secrets')),
  request('DELETE', gvr('', 'v1', 'services')),
  request('CREATE', gvr('', 'v1', 'namespaces'), '', ''),
];

/** What the full rule check says: a rule selects the request or, under matchPolicy Equivalent, an equivalent resource. */
function fullMatch(list: readonly RuleWithOperations[], r: Request): boolean {
  const resources = [r.resource, ...mapper.equivalentResourcesFor(r.resource, r.subresource)];
  return list.some((rule) => resources.some((resource) => matchesRule(rule, { ...r, resource })));
}

describe('rulesMayMatch: the cheap check before a configuration is matched', () => {
  const rows = Object.entries(rules).flatMap(([name, list]) => requests.map((r) => [name, `${r.operation} ${r.resource.resource}${r.subresource ? `/${r.subresource}` : ''}`, list, r] as const));

  it.each(rows)('never rules out what the full match selects: %s vs %s', (_name, _label, list, r) => {
    const owner = Object.freeze({ list });
    if (fullMatch(list, r)) expect(rulesMayMatch(owner, list, r, mapper)).toBe(true);
  });

  it('rules out configurations naming another resource or another operation', () => {
    const list = rules['configmaps CREATE']!;
    expect(rulesMayMatch(Object.freeze({}), list, request('CREATE', gvr('', 'v1', 'secrets')), mapper)).toBe(false);
    expect(rulesMayMatch(Object.freeze({}), list, request('DELETE', gvr('', 'v1', 'configmaps')), mapper)).toBe(false);
    expect(rulesMayMatch(Object.freeze({}), rules['no rules']!, request('CREATE', gvr('', 'v1', 'configmaps')), mapper)).toBe(false);
  });

  it('keeps a configuration whose rule names only an equivalent resource of the request', () => {
    expect(rulesMayMatch(Object.freeze({}), rules['gadgets CREATE (an equivalent of widgets)']!, request('CREATE', gvr('example.com', 'v1', 'widgets')), mapper)).toBe(true);
  });

  it('reads the rules again for an owner that is not frozen (its rules may change)', () => {
    const owner = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] as RuleWithOperations[] };
    const secrets = request('CREATE', gvr('', 'v1', 'secrets'));
    expect(rulesMayMatch(owner, owner.rules, secrets, mapper)).toBe(false);
    owner.rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }];
    expect(rulesMayMatch(owner, owner.rules, secrets, mapper)).toBe(true);
  });
});

describe('ruleCandidates: the configurations a request must be matched against', () => {
  const configs = Object.freeze(Object.entries(rules).map(([name, list]) => Object.freeze({ name, rules: list })));
  const rulesOf = (c: { rules: readonly RuleWithOperations[] }) => ({ owner: c, rules: c.rules });

  it.each(requests.map((r) => [`${r.operation} ${r.resource.resource}${r.subresource ? `/${r.subresource}` : ''}`, r] as const))(
    'keeps, in order, every configuration rulesMayMatch keeps, for %s, the first time and from memory',
    (_label, r) => {
      const want = configs.filter((c) => rulesMayMatch(c, c.rules, r, mapper)).map((c) => c.name);
      expect(ruleCandidates(configs, rulesOf, r, mapper).map((c) => c.name)).toEqual(want);
      expect(ruleCandidates(configs, rulesOf, r, mapper).map((c) => c.name)).toEqual(want);
    },
  );

  it('keeps a configuration without rules to look at (rulesOf undefined)', () => {
    const list = Object.freeze([{ name: 'always' }, { name: 'never' }]);
    const got = ruleCandidates(list, (c) => (c.name === 'always' ? undefined : { owner: Object.freeze({}), rules: [] }), request('CREATE', gvr('', 'v1', 'pods')), mapper);
    expect(got.map((c) => c.name)).toEqual(['always']);
  });

  it('follows equivalences that change between requests (CRD versions come and go)', () => {
    let equivalents: GroupVersionResource[] = [];
    const changing: EquivalentResourceMapper = { equivalentResourcesFor: () => equivalents, kindFor: () => undefined };
    const list = Object.freeze([Object.freeze({ name: 'gadgets', rules: rules['gadgets CREATE (an equivalent of widgets)']! })]);
    const widgets = request('CREATE', gvr('example.com', 'v1', 'widgets'));
    expect(ruleCandidates(list, rulesOf, widgets, changing)).toEqual([]);
    equivalents = [gvr('example.com', 'v1', 'widgets'), gvr('legacy.example.com', 'v1beta1', 'gadgets')];
    expect(ruleCandidates(list, rulesOf, widgets, changing).map((c) => c.name)).toEqual(['gadgets']);
  });
});
