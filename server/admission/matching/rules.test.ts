import type { RuleWithOperations } from '../../api/admissionregistration.js';
import type { AdmissionOperation } from '../attributes.js';
import { matchesOperation, matchesResource, matchesRule, matchesScope, type RuleRequest } from './rules.js';

// A request in namespace "ns" (namespaced) or without one (cluster-scoped), as kube's rules tests build them.
function req(group: string, version: string, resource: string, subresource = '', operation: AdmissionOperation = 'CREATE', namespace = 'ns'): RuleRequest {
  return { operation, resource: { group, version, resource }, subresource, namespace };
}
const cluster = (group: string, version: string, resource: string, subresource = ''): RuleRequest => req(group, version, resource, subresource, 'CREATE', '');

interface Case {
  name: string;
  rule: RuleWithOperations;
  match: RuleRequest[];
  noMatch: RuleRequest[];
}

const describeRequest = (r: RuleRequest): string =>
  `${r.operation} ${r.resource.group || 'core'}/${r.resource.version} ${r.resource.resource}${r.subresource ? `/${r.subresource}` : ''}${r.namespace ? ` in ${r.namespace}` : ' (no namespace)'}`;

function table(predicate: (rule: RuleWithOperations, r: RuleRequest) => boolean, cases: Case[]): void {
  const rows = cases.flatMap((c) => [
    ...c.match.map((r) => [c.name, 'selects', describeRequest(r), r, c.rule, true] as const),
    ...c.noMatch.map((r) => [c.name, 'does not select', describeRequest(r), r, c.rule, false] as const),
  ]);
  it.each(rows)('%s %s %s', (_name, _verb, _label, r, rule, want) => {
    expect(predicate(rule, r)).toBe(want);
  });
}

describe('rule operations: a listed operation or * selects it', () => {
  table(matchesOperation, [
    { name: '*', rule: { operations: ['*'] }, match: (['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => req('g', 'v', 'r', '', op)), noMatch: [] },
    { name: 'CREATE', rule: { operations: ['CREATE'] }, match: [req('g', 'v', 'r', '', 'CREATE')], noMatch: (['UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => req('g', 'v', 'r', '', op)) },
    { name: 'CONNECT', rule: { operations: ['CONNECT'] }, match: [req('g', 'v', 'r', 'exec', 'CONNECT')], noMatch: [req('g', 'v', 'r', '', 'CREATE')] },
    { name: 'UPDATE,DELETE', rule: { operations: ['UPDATE', 'DELETE'] }, match: [req('g', 'v', 'r', '', 'UPDATE'), req('g', 'v', 'r', '', 'DELETE')], noMatch: [req('g', 'v', 'r', '', 'CREATE'), req('g', 'v', 'r', '', 'CONNECT')] },
    { name: 'no operations', rule: { operations: [] }, match: [], noMatch: [req('g', 'v', 'r')] },
  ]);
});

describe('rule resources: subresource patterns', () => {
  table(matchesResource, [
    { name: '*', rule: { resources: ['*'] }, match: [req('g', 'v', 'r'), req('2', 'v', 'r2')], noMatch: [req('g', 'v', 'r', 'exec'), req('2', 'v', 'r2', 'proxy')] },
    { name: 'pods', rule: { resources: ['pods'] }, match: [req('', 'v1', 'pods')], noMatch: [req('', 'v1', 'pods', 'status'), req('', 'v1', 'configmaps')] },
    // a `*` subresource also stands for "no subresource"
    { name: 'r/*', rule: { resources: ['r/*'] }, match: [req('g', 'v', 'r'), req('g', 'v', 'r', 'exec')], noMatch: [req('2', 'v', 'r2'), req('2', 'v', 'r2', 'proxy')] },
    { name: 'r/*,r2', rule: { resources: ['r/*', 'r2'] }, match: [req('g', 'v', 'r'), req('g', 'v', 'r', 'exec'), req('2', 'v', 'r2')], noMatch: [req('2', 'v', 'r2', 'proxy')] },
    { name: '*/proxy,*/exec', rule: { resources: ['*/proxy', '*/exec'] }, match: [req('g', 'v', 'r', 'exec'), req('2', 'v', 'r2', 'proxy'), req('2', 'v', 'r3', 'proxy')], noMatch: [req('g', 'v', 'r'), req('2', 'v', 'r2'), req('2', 'v', 'r4', 'scale')] },
    { name: '*/status', rule: { resources: ['*/status'] }, match: [req('', 'v1', 'pods', 'status'), req('apps', 'v1', 'deployments', 'status')], noMatch: [req('', 'v1', 'pods'), req('apps', 'v1', 'deployments', 'scale')] },
    { name: '*/*', rule: { resources: ['*/*'] }, match: [req('', 'v1', 'pods'), req('', 'v1', 'pods', 'status'), req('apps', 'v1', 'deployments', 'scale')], noMatch: [] },
    { name: 'pods/status', rule: { resources: ['pods/status'] }, match: [req('', 'v1', 'pods', 'status')], noMatch: [req('', 'v1', 'pods'), req('', 'v1', 'pods', 'exec')] },
  ]);
});

describe('rule scope: namespaces are cluster-scoped, other resources by whether the request has a namespace', () => {
  table(matchesScope, [
    {
      name: 'Cluster',
      rule: { resources: ['*'], scope: 'Cluster' },
      match: [cluster('g', 'v', 'r'), cluster('g', 'v', 'r', 'exec'), cluster('', 'v1', 'namespaces'), cluster('', 'v1', 'namespaces', 'finalize'), req('', 'v1', 'namespaces'), req('', 'v1', 'namespaces', 'finalize')],
      noMatch: [req('g', 'v', 'r'), req('g', 'v', 'r', 'exec')],
    },
    {
      name: 'Namespaced',
      rule: { resources: ['*'], scope: 'Namespaced' },
      match: [req('g', 'v', 'r'), req('g', 'v', 'r', 'exec')],
      noMatch: [cluster('', 'v1', 'namespaces'), cluster('', 'v1', 'namespaces', 'finalize'), req('', 'v1', 'namespaces'), req('', 'v1', 'namespaces', 'finalize'), cluster('g', 'v', 'r'), cluster('g', 'v', 'r', 'exec')],
    },
    {
      name: '*',
      rule: { resources: ['*'], scope: '*' },
      match: [req('g', 'v', 'r'), req('g', 'v', 'r', 'exec'), cluster('g', 'v', 'r'), cluster('', 'v1', 'namespaces'), req('', 'v1', 'namespaces', 'finalize')],
      noMatch: [],
    },
    { name: 'absent', rule: { resources: ['*'] }, match: [req('g', 'v', 'r'), cluster('g', 'v', 'r')], noMatch: [] },
    // only the core namespaces resource is special: a namespaces resource of another group is scoped like any other
    { name: 'Cluster (other group)', rule: { resources: ['*'], scope: 'Cluster' }, match: [cluster('example.com', 'v1', 'namespaces')], noMatch: [req('example.com', 'v1', 'namespaces')] },
  ]);
});

describe('whole rules: every part must select the request', () => {
  const podsCreate: RuleWithOperations = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' };
  table(matchesRule, [
    {
      name: 'core pods CREATE',
      rule: podsCreate,
      match: [req('', 'v1', 'pods')],
      noMatch: [req('', 'v1', 'pods', '', 'UPDATE'), req('', 'v2', 'pods'), req('apps', 'v1', 'pods'), req('', 'v1', 'pods', 'status'), req('', 'v1', 'configmaps')],
    },
    {
      name: 'wildcard groups and versions',
      rule: { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] },
      match: [req('', 'v1', 'pods'), req('apps', 'v1', 'deployments', 'scale', 'UPDATE'), cluster('', 'v1', 'namespaces')],
      noMatch: [],
    },
    {
      name: 'group list',
      rule: { operations: ['*'], apiGroups: ['g1', 'g2'], apiVersions: ['v1', 'v2'], resources: ['*'] },
      match: [req('g1', 'v1', 'r'), req('g2', 'v2', 'r3')],
      noMatch: [req('g3', 'v1', 'r'), req('g1', 'v3', 'r')],
    },
    { name: 'empty apiGroups', rule: { operations: ['*'], apiGroups: [], apiVersions: ['*'], resources: ['*'] }, match: [], noMatch: [req('', 'v1', 'pods')] },
    { name: 'unknown scope', rule: { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Everywhere' as 'Cluster' }, match: [], noMatch: [req('', 'v1', 'pods'), cluster('', 'v1', 'namespaces')] },
  ]);
});
