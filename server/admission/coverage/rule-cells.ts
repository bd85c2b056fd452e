// Rules as coverage cells. Granularity: operation × apiGroup × resource, each as listed in the rule (a wildcard
// group or resource is one cell, not every served resource: the report shows what the author wrote). apiVersions
// and scope stay whole on the cell: with matchPolicy Equivalent kube routes a request to a rule through any
// version of the resource, so a per-version cell would show gaps no test can close. An operation `*` becomes
// CREATE, UPDATE and DELETE, plus CONNECT for entries that name a subresource, since kube only serves CONNECT on
// subresources (pods/exec, pods/attach, pods/portforward, pods/proxy, services/proxy, nodes/proxy).
import type { NamedRuleWithOperations, OperationType, RuleWithOperations } from '../../api/admissionregistration.js';
import { matchesRule } from '../matching/rules.js';
import type { AdmissionOperation } from '../attributes.js';
import type { MatchedRequest, RuleCell } from './report-schema.js';

const writeOperations: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE'];

function expandOperations(ops: readonly OperationType[] | undefined, resource: string): AdmissionOperation[] {
  const out = new Set<AdmissionOperation>();
  for (const op of ops ?? []) {
    if (op !== '*') out.add(op);
    else {
      for (const w of writeOperations) out.add(w);
      if (resource.includes('/')) out.add('CONNECT');
    }
  }
  return [...out];
}

/** The cells of one list of rules, hits not yet counted. */
export function ruleCellsOf(ruleSet: string, rules: readonly (RuleWithOperations | NamedRuleWithOperations)[] | undefined): RuleCell[] {
  const cells: RuleCell[] = [];
  (rules ?? []).forEach((rule, index) => {
    for (const resource of rule.resources ?? []) {
      for (const apiGroup of rule.apiGroups ?? []) {
        for (const operation of expandOperations(rule.operations, resource)) {
          cells.push({ ruleSet, rule: index, operation, apiGroup, resource, apiVersions: [...(rule.apiVersions ?? [])], scope: rule.scope ?? '*', hits: 0 });
        }
      }
    }
  });
  return cells;
}

/** Whether a matched request falls in a cell: kube's rule matching, on the one-operation, one-group, one-resource rule. */
export function cellMatches(cell: RuleCell, req: MatchedRequest): boolean {
  const rule: RuleWithOperations = {
    operations: [cell.operation as OperationType],
    apiGroups: [cell.apiGroup],
    apiVersions: cell.apiVersions,
    resources: [cell.resource],
    ...(cell.scope === '*' ? {} : { scope: cell.scope as 'Cluster' | 'Namespaced' }),
  };
  return matchesRule(rule, {
    operation: req.operation as AdmissionOperation,
    resource: { group: req.group, version: req.version, resource: req.resource },
    subresource: req.subresource,
    namespace: req.namespaced ? 'namespaced' : '',
  });
}

/** The cells with their hits: each matched request counts in every cell it falls in. */
export function countRuleHits(cells: readonly RuleCell[], requests: readonly MatchedRequest[]): RuleCell[] {
  return cells.map((cell) => ({ ...cell, hits: requests.reduce((n, r) => (cellMatches(cell, r) ? n + r.count : n), 0) }));
}
