// The report from what is configured now (every webhook and policy, called or not, so that one never exercised
// shows) and what the recorder counted (also for configurations removed since). Merging adds reports of several
// apiserver runs (restarts, several servers in one suite) into one.
import type { MatchResources, WebhookAccessor } from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';
import type { BindingItem, PolicyItem } from '../policy/generic/types.js';
import { policyCoverageId, webhookCoverageId, type CoverageCounts, type CoverageRecorder, type RecordedConfiguration } from './recorder.js';
import {
  coverageSchemaVersion,
  decisionKinds,
  emptyDecisionCounts,
  type AdmissionCoverageReport,
  type BindingCoverage,
  type ConfigurationCoverage,
  type CoverageConfigurationKind,
  type DecisionCounts,
  type ErrorCount,
  type MatchedRequest,
  type MessageCount,
  type RuleCell,
} from './report-schema.js';
import { countRuleHits, ruleCellsOf } from './rule-cells.js';

/** What is configured when the report is made. */
export interface ConfiguredAdmission {
  webhooks: readonly WebhookAccessor[];
  validatingPolicies: readonly PolicyItem[];
  validatingBindings: readonly BindingItem[];
  mutatingPolicies: readonly PolicyItem[];
  mutatingBindings: readonly BindingItem[];
}

interface PolicySpec {
  failurePolicy?: 'Fail' | 'Ignore';
  matchConstraints?: MatchResources;
}

const specOf = (o: KubeObject): PolicySpec => (o['spec'] ?? {}) as PolicySpec;

function countsOut(counts: CoverageCounts | undefined): Pick<ConfigurationCoverage, 'calls' | 'decisions' | 'denials' | 'errors' | 'requests'> {
  if (!counts) return { calls: 0, decisions: emptyDecisionCounts(), denials: [], errors: [], requests: [] };
  return { calls: counts.calls, decisions: { ...counts.decisions }, denials: counts.denialList(), errors: [...counts.errors.values()].map((e) => ({ ...e })), requests: [...counts.requests.values()].map((r) => ({ ...r })) };
}

function bindingOut(name: string, counts: CoverageCounts | undefined): BindingCoverage {
  const c = countsOut(counts);
  return { name, calls: c.calls, decisions: c.decisions, requests: c.requests };
}

function webhookEntry(a: WebhookAccessor, recorded: RecordedConfiguration | undefined): ConfigurationCoverage {
  const c = countsOut(recorded?.counts);
  return {
    id: webhookCoverageId(a),
    kind: a.kind === 'mutating' ? 'MutatingWebhook' : 'ValidatingWebhook',
    source: a.source,
    configuration: a.configurationName,
    name: a.webhook.name,
    failurePolicy: a.webhook.failurePolicy ?? 'Fail',
    present: true,
    ...c,
    rules: countRuleHits(ruleCellsOf('rules', a.webhook.rules), c.requests),
  };
}

function policyEntry(kind: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', p: PolicyItem, bindings: readonly BindingItem[], recorded: RecordedConfiguration | undefined): ConfigurationCoverage {
  const spec = specOf(p.object);
  const c = countsOut(recorded?.counts);
  const own = bindings.filter((b) => b.policyName === p.name);
  const names = new Set([...own.map((b) => b.name), ...(recorded?.bindings?.keys() ?? [])]);
  const bindingList = [...names].map((n) => bindingOut(n, recorded?.bindings?.get(n)));
  let rules = countRuleHits(ruleCellsOf('matchConstraints', spec.matchConstraints?.resourceRules), c.requests);
  for (const b of own) {
    const resources = (specOf(b.object) as { matchResources?: MatchResources }).matchResources;
    const cells = ruleCellsOf(`binding ${b.name}`, resources?.resourceRules);
    rules = rules.concat(countRuleHits(cells, bindingList.find((x) => x.name === b.name)?.requests ?? []));
  }
  return { id: policyCoverageId(kind, p.source, p.name), kind, source: p.source, configuration: p.name, name: p.name, failurePolicy: spec.failurePolicy ?? 'Fail', present: true, ...c, rules, bindings: bindingList };
}

function removedEntry(id: string, r: RecordedConfiguration): ConfigurationCoverage {
  const entry: ConfigurationCoverage = { id, kind: r.kind, source: r.source, configuration: r.configuration, name: r.name, failurePolicy: 'Fail', present: false, ...countsOut(r.counts), rules: [] };
  if (r.bindings) entry.bindings = [...r.bindings].map(([n, c]) => bindingOut(n, c));
  return entry;
}

export function totalsOf(configurations: readonly ConfigurationCoverage[]): AdmissionCoverageReport['totals'] {
  let calls = 0;
  let ruleCells = 0;
  let untested = 0;
  let unexercised = 0;
  for (const c of configurations) {
    calls += c.calls;
    ruleCells += c.rules.length;
    untested += c.rules.filter((r) => r.hits === 0).length;
    if (c.requests.length === 0) unexercised++;
  }
  return { configurations: configurations.length, calls, ruleCells, untestedRuleCells: untested, unexercisedConfigurations: unexercised };
}

const kindOrder: Record<CoverageConfigurationKind, number> = { MutatingAdmissionPolicy: 0, MutatingWebhook: 1, ValidatingAdmissionPolicy: 2, ValidatingWebhook: 3 };
const byKindThenId = (a: ConfigurationCoverage, b: ConfigurationCoverage): number => kindOrder[a.kind] - kindOrder[b.kind] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function buildCoverageReport(recorder: CoverageRecorder, configured: ConfiguredAdmission, now = new Date()): AdmissionCoverageReport {
  const recorded = recorder.configurations();
  const out: ConfigurationCoverage[] = [];
  const seen = new Set<string>();
  const add = (e: ConfigurationCoverage): void => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    out.push(e);
  };
  for (const a of configured.webhooks) add(webhookEntry(a, recorded.get(webhookCoverageId(a))));
  for (const p of configured.validatingPolicies) add(policyEntry('ValidatingAdmissionPolicy', p, configured.validatingBindings, recorded.get(policyCoverageId('ValidatingAdmissionPolicy', p.source, p.name))));
  for (const p of configured.mutatingPolicies) add(policyEntry('MutatingAdmissionPolicy', p, configured.mutatingBindings, recorded.get(policyCoverageId('MutatingAdmissionPolicy', p.source, p.name))));
  for (const [id, r] of recorded) if (!seen.has(id)) add(removedEntry(id, r));
  out.sort(byKindThenId);
  return { schemaVersion: coverageSchemaVersion, generatedAt: now.toISOString(), runs: 1, totals: totalsOf(out), configurations: out };
}

// ---------------------------------------------------------------------------------------------------------------
// merging

function addDecisions(a: DecisionCounts, b: DecisionCounts): DecisionCounts {
  const out = emptyDecisionCounts();
  for (const k of decisionKinds) out[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return out;
}

function mergeBy<T>(a: readonly T[], b: readonly T[], key: (t: T) => string, sum: (x: T, y: T) => T): T[] {
  const m = new Map<string, T>();
  for (const t of [...a, ...b]) {
    const k = key(t);
    const prev = m.get(k);
    m.set(k, prev ? sum(prev, t) : { ...t });
  }
  return [...m.values()];
}

const requestKey = (r: MatchedRequest): string => `${r.operation} ${r.group}/${r.version}/${r.resource}/${r.subresource} ${r.namespaced}`;
const sumCount = <T extends { count: number }>(x: T, y: T): T => ({ ...x, count: x.count + y.count });
const cellKey = (c: RuleCell): string => `${c.ruleSet}\u0000${c.rule}\u0000${c.operation}\u0000${c.apiGroup}\u0000${c.resource}\u0000${c.apiVersions.join(',')}\u0000${c.scope}`;

function mergeBindings(a: readonly BindingCoverage[] | undefined, b: readonly BindingCoverage[] | undefined): BindingCoverage[] | undefined {
  if (!a && !b) return undefined;
  return mergeBy(a ?? [], b ?? [], (x) => x.name, (x, y) => ({ name: x.name, calls: x.calls + y.calls, decisions: addDecisions(x.decisions, y.decisions), requests: mergeBy(x.requests, y.requests, requestKey, sumCount) }));
}

function mergeConfiguration(a: ConfigurationCoverage, b: ConfigurationCoverage): ConfigurationCoverage {
  // the later report describes the configuration as it is now; rule cells of both are kept (a rule edited between
  // runs shows its old cells with their hits)
  const latest = b.present || !a.present ? b : a;
  const merged: ConfigurationCoverage = {
    ...latest,
    present: a.present || b.present,
    calls: a.calls + b.calls,
    decisions: addDecisions(a.decisions, b.decisions),
    denials: mergeBy<MessageCount>(a.denials, b.denials, (m) => m.message, sumCount),
    errors: mergeBy<ErrorCount>(a.errors, b.errors, (e) => `${e.outcome}\u0000${e.message}`, sumCount),
    requests: mergeBy(a.requests, b.requests, requestKey, sumCount),
    rules: mergeBy(a.rules, b.rules, cellKey, (x, y) => ({ ...x, hits: x.hits + y.hits })),
  };
  const bindings = mergeBindings(a.bindings, b.bindings);
  if (bindings) merged.bindings = bindings;
  return merged;
}

/** Several reports (runs) as one: counts added per configuration id, rule hits added per cell. */
export function mergeCoverageReports(reports: readonly AdmissionCoverageReport[], now = new Date()): AdmissionCoverageReport {
  const byId = new Map<string, ConfigurationCoverage>();
  let runs = 0;
  for (const r of reports) {
    runs += r.runs;
    for (const c of r.configurations) {
      const prev = byId.get(c.id);
      byId.set(c.id, prev ? mergeConfiguration(prev, c) : c);
    }
  }
  const configurations = [...byId.values()].sort(byKindThenId);
  return { schemaVersion: coverageSchemaVersion, generatedAt: now.toISOString(), runs, totals: totalsOf(configurations), configurations };
}
