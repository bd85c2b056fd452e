// The pure parts of the coverage report: rule cells and their hits, how dispatcher outcomes become decisions,
// the recorder's bounded message lists, merging runs, the summary table and the HTML escaping.
import type { WebhookAccessor } from '../../server/api/admissionregistration.js';
import { StatusError } from '../../server/api/errors.js';
import type { AdmissionAttributes } from '../../server/admission/attributes.js';
import { newReinvocationContext } from '../../server/admission/attributes.js';
import { buildCoverageReport, mergeCoverageReports, type ConfiguredAdmission } from '../../server/admission/coverage/build-report.js';
import { renderCoverageHtml } from '../../server/admission/coverage/html-report.js';
import {
  CoverageRecorder,
  maxDistinctMessages,
  mutatingInvocationEvent,
  mutatingMatchConditionsEvent,
  otherMessages,
  validatingEvaluationEvent,
  webhookCallEvent,
  webhookMatchConditionsEvent,
} from '../../server/admission/coverage/recorder.js';
import { parseCoverageReport, type MatchedRequest } from '../../server/admission/coverage/report-schema.js';
import { cellMatches, countRuleHits, ruleCellsOf } from '../../server/admission/coverage/rule-cells.js';
import { formatCoverageSummary } from '../../server/admission/coverage/summary-table.js';

const accessor = (name: string, failurePolicy?: 'Fail' | 'Ignore', rules = [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE' as const] }]): WebhookAccessor => ({
  uid: `api/${name}/0`,
  kind: 'validating',
  source: 'api',
  configurationName: name,
  webhook: { name: `${name}.example.com`, clientConfig: { url: 'https://127.0.0.1:1/' }, rules, ...(failurePolicy ? { failurePolicy } : {}) },
});

function attrs(operation: AdmissionAttributes['operation'], resource: string, namespace = 'default', subresource = ''): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource },
    subresource,
    name: 'x',
    namespace,
    object: undefined,
    oldObject: undefined,
    options: {},
    dryRun: false,
    userInfo: { username: 'u', groups: [] },
    annotations: {},
    warnings: [],
    reinvocation: newReinvocationContext(),
  };
}

const req = (operation: string, group: string, resource: string, subresource = '', namespaced = true, count = 1): MatchedRequest => ({ operation, group, version: 'v1', resource, subresource, namespaced, count });

describe('rule cells', () => {
  it('expands operation × apiGroup × resource as listed; * becomes CREATE, UPDATE, DELETE, and CONNECT only for a subresource entry', () => {
    const cells = ruleCellsOf('rules', [{ operations: ['*'], apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'pods/exec'], scope: 'Namespaced' }]);
    expect(cells.map((c) => `${c.operation} ${c.apiGroup || 'core'}/${c.resource}`)).toEqual([
      'CREATE core/pods',
      'UPDATE core/pods',
      'DELETE core/pods',
      'CREATE apps/pods',
      'UPDATE apps/pods',
      'DELETE apps/pods',
      'CREATE core/pods/exec',
      'UPDATE core/pods/exec',
      'DELETE core/pods/exec',
      'CONNECT core/pods/exec',
      'CREATE apps/pods/exec',
      'UPDATE apps/pods/exec',
      'DELETE apps/pods/exec',
      'CONNECT apps/pods/exec',
    ]);
    expect(cells[0]).toEqual({ ruleSet: 'rules', rule: 0, operation: 'CREATE', apiGroup: '', resource: 'pods', apiVersions: ['v1'], scope: 'Namespaced', hits: 0 });
    expect(ruleCellsOf('rules', undefined)).toEqual([]);
  });

  // kube's resource matching (rules.Matcher): the cell decides as its one-operation, one-group, one-resource rule would
  it.each([
    ['CREATE', '', 'pods', 'CREATE', '', 'pods', '', true],
    ['CREATE', '', 'pods', 'UPDATE', '', 'pods', '', false],
    ['CREATE', '', 'pods', 'CREATE', '', 'pods', 'status', false],
    ['CREATE', '', 'pods/*', 'CREATE', '', 'pods', 'status', true],
    ['CREATE', '', 'pods/*', 'CREATE', '', 'pods', '', true],
    ['UPDATE', '*', '*/status', 'UPDATE', 'apps', 'deployments', 'status', true],
    ['UPDATE', '*', '*', 'UPDATE', 'apps', 'deployments', 'status', false],
    ['UPDATE', '*', '*/*', 'UPDATE', 'apps', 'deployments', 'scale', true],
    ['CREATE', 'apps', 'deployments', 'CREATE', '', 'deployments', '', false],
  ])('cell %s %s/%s matches %s %s/%s/%s: %s', (op, group, resource, rop, rgroup, rres, rsub, expected) => {
    const [cell] = ruleCellsOf('rules', [{ operations: [op as 'CREATE'], apiGroups: [group], apiVersions: ['*'], resources: [resource] }]);
    expect(cellMatches(cell!, req(rop, rgroup, rres, rsub))).toBe(expected);
  });

  it('applies the rule’s scope and versions', () => {
    const [namespacedOnly] = ruleCellsOf('rules', [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }]);
    expect(cellMatches(namespacedOnly!, req('CREATE', '', 'configmaps', '', true))).toBe(true);
    expect(cellMatches(namespacedOnly!, req('CREATE', '', 'configmaps', '', false))).toBe(false);
    const [v2] = ruleCellsOf('rules', [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v2'], resources: ['configmaps'] }]);
    expect(cellMatches(v2!, req('CREATE', '', 'configmaps'))).toBe(false);
  });

  it('counts every matched request in every cell it falls in', () => {
    const cells = ruleCellsOf('rules', [
      { operations: ['CREATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
      { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] },
    ]);
    const hit = countRuleHits(cells, [req('CREATE', '', 'configmaps', '', true, 3), req('UPDATE', 'apps', 'deployments')]);
    expect(hit.map((c) => `${c.rule} ${c.operation} ${c.apiGroup}/${c.resource} ${c.hits}`)).toEqual(['0 CREATE /configmaps 3', '0 DELETE /configmaps 0', '1 CREATE */* 3', '1 UPDATE */* 1', '1 DELETE */* 0']);
  });
});

describe('decisions from dispatcher outcomes', () => {
  it('maps webhook outcomes, the denial without kube’s prefix, call errors by failurePolicy', () => {
    const a = accessor('w');
    const denied = new StatusError(403, '', 'admission webhook "w.example.com" denied the request: nope');
    expect(webhookCallEvent(a, { kind: 'rejected', error: denied }, false)).toEqual({ decision: 'denied', message: 'nope' });
    const bare = new StatusError(400, '', 'admission webhook "w.example.com" denied the request without explanation');
    expect(webhookCallEvent(a, { kind: 'rejected', error: bare }, false)).toEqual({ decision: 'denied', message: '(without explanation)' });
    expect(webhookCallEvent(a, { kind: 'callError', message: 'failed calling webhook "w.example.com": x', code: 500 }, false)).toEqual({
      decision: 'errored',
      message: 'failed calling webhook "w.example.com": x',
      failurePolicy: 'Fail',
      outcome: 'failedClosed',
    });
    expect(webhookCallEvent(accessor('w', 'Ignore'), { kind: 'callError', message: 'm', code: 500 }, false)).toMatchObject({ failurePolicy: 'Ignore', outcome: 'failedOpen' });
    // kube returns these errors whatever the failurePolicy
    expect(webhookCallEvent(accessor('w', 'Ignore'), { kind: 'error', error: new StatusError(500, 'InternalError', 'bad patch') }, false)).toMatchObject({ outcome: 'failedClosed' });
    expect(webhookMatchConditionsEvent(a, { matches: false })).toEqual({ decision: 'skippedByMatchConditions' });
    expect(webhookMatchConditionsEvent(accessor('w', 'Ignore'), { error: 'no such key' })).toEqual({ decision: 'errored', message: 'no such key', failurePolicy: 'Ignore', outcome: 'failedOpen' });
  });

  it('maps a ValidatingAdmissionPolicy evaluation by the binding’s actions', () => {
    const e = { failurePolicy: 'Fail' as const, matchConditions: [1], validations: [1], auditAnnotations: [] };
    const deny = { decisions: [{ action: 'deny' as const, evaluation: 'deny' as const, message: 'too many', elapsedSeconds: 0 }], auditAnnotations: [] };
    expect(validatingEvaluationEvent(e, deny, ['Deny', 'Warn'])).toEqual({ decision: 'denied', message: 'too many' });
    expect(validatingEvaluationEvent(e, deny, ['Warn', 'Audit'])).toEqual({ decision: 'warned', message: 'too many' });
    expect(validatingEvaluationEvent(e, deny, ['Audit'])).toEqual({ decision: 'audited', message: 'too many' });
    expect(validatingEvaluationEvent(e, { decisions: [], auditAnnotations: [] }, ['Deny'])).toEqual({ decision: 'skippedByMatchConditions' });
    const ignored = { decisions: [{ action: 'admit' as const, evaluation: 'error' as const, message: 'boom', elapsedSeconds: 0 }], auditAnnotations: [] };
    expect(validatingEvaluationEvent({ ...e, failurePolicy: 'Ignore' }, ignored, ['Deny'])).toEqual({ decision: 'errored', message: 'boom', failurePolicy: 'Ignore', outcome: 'failedOpen' });
    expect(validatingEvaluationEvent(e, { decisions: [{ action: 'admit', evaluation: 'admit', message: '', elapsedSeconds: 0 }], auditAnnotations: [] }, ['Deny'])).toEqual({ decision: 'allowed' });
  });

  it('maps MutatingAdmissionPolicy invocations', () => {
    expect(mutatingMatchConditionsEvent({ matches: false, failedCondition: 'c' }, 'Fail')).toEqual({ decision: 'skippedByMatchConditions' });
    expect(mutatingMatchConditionsEvent({ matches: false, error: 'e' }, 'Fail')).toMatchObject({ decision: 'errored', outcome: 'failedClosed' });
    expect(mutatingMatchConditionsEvent({ matches: false }, 'Ignore')).toMatchObject({ decision: 'errored', outcome: 'failedOpen' });
    expect(mutatingInvocationEvent([], 'Fail', true)).toEqual({ decision: 'patched' });
    expect(mutatingInvocationEvent([], 'Fail', false)).toEqual({ decision: 'allowed' });
    expect(mutatingInvocationEvent([{ message: 'bad mutation' }], 'Ignore', false)).toEqual({ decision: 'errored', message: 'bad mutation', failurePolicy: 'Ignore', outcome: 'failedOpen' });
  });
});

const configured = (webhooks: WebhookAccessor[]): ConfiguredAdmission => ({ webhooks, validatingPolicies: [], validatingBindings: [], mutatingPolicies: [], mutatingBindings: [] });
const invocation = (resource: string) => ({ resource: { group: '', version: 'v1', resource }, subresource: '', kind: { group: '', version: 'v1', kind: 'ConfigMap' } });

describe('the recorder and the report', () => {
  it('keeps at most 50 distinct messages per configuration, counting later ones under "(other messages)"', () => {
    const r = new CoverageRecorder();
    const a = accessor('many');
    for (let i = 0; i < maxDistinctMessages + 5; i++) r.webhookCalled(a, attrs('CREATE', 'configmaps'), invocation('configmaps'), { kind: 'rejected', error: new StatusError(403, '', `no ${i}`) }, false);
    const c = buildCoverageReport(r, configured([a])).configurations[0]!;
    expect(c.denials).toHaveLength(maxDistinctMessages + 1);
    expect(c.denials.at(-1)).toEqual({ message: otherMessages, count: 5 });
    expect(c.decisions.denied).toBe(maxDistinctMessages + 5);
  });

  it('lists configured webhooks never called, and keeps the counts of removed ones', () => {
    const r = new CoverageRecorder();
    const gone = accessor('gone');
    r.webhookCalled(gone, attrs('CREATE', 'configmaps'), invocation('configmaps'), { kind: 'allowed', response: {} as never }, false);
    const report = buildCoverageReport(r, configured([accessor('idle')]), new Date('2026-01-01T00:00:00Z'));
    expect(report.configurations.map((c) => [c.id, c.present, c.calls])).toEqual([
      ['ValidatingWebhook/api/gone/gone.example.com', false, 1],
      ['ValidatingWebhook/api/idle/idle.example.com', true, 0],
    ]);
    expect(report.totals).toEqual({ configurations: 2, calls: 1, ruleCells: 1, untestedRuleCells: 1, unexercisedConfigurations: 1 });
    expect(parseCoverageReport(JSON.stringify(report))).toEqual(report);
    expect(() => parseCoverageReport('{"schemaVersion":"other/v9"}', 'f.json')).toThrow('f.json: schemaVersion "other/v9" is not "kah.admission-coverage/v1"');
  });

  it('merges runs: counts, messages, requests and rule hits add up per configuration', () => {
    const a = accessor('m');
    const run = (denials: string[]) => {
      const r = new CoverageRecorder();
      for (const d of denials) r.webhookCalled(a, attrs('CREATE', 'configmaps'), invocation('configmaps'), { kind: 'rejected', error: new StatusError(403, '', d) }, false);
      return buildCoverageReport(r, configured([a]));
    };
    const merged = mergeCoverageReports([run(['x', 'y']), run(['x'])]);
    const c = merged.configurations[0]!;
    expect(merged.runs).toBe(2);
    expect(c.calls).toBe(3);
    expect(c.denials).toEqual([
      { message: 'x', count: 2 },
      { message: 'y', count: 1 },
    ]);
    expect(c.requests).toEqual([req('CREATE', '', 'configmaps', '', true, 3)]);
    expect(c.rules.map((x) => x.hits)).toEqual([3]);
    expect(merged.totals.calls).toBe(3);
  });

  it('prints a summary table and renders escaped HTML', () => {
    const r = new CoverageRecorder();
    const a = accessor('t');
    r.webhookCalled(a, attrs('CREATE', 'configmaps'), invocation('configmaps'), { kind: 'rejected', error: new StatusError(403, '', '<b>&"no"</b>') }, false);
    const report = buildCoverageReport(r, configured([a, accessor('u', 'Fail', [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }])]));
    expect(formatCoverageSummary(report)).toBe(
      [
        'Admission coverage (kah.admission-coverage/v1, 1 run): 2 configurations, 1 calls, 1/2 rule cells hit',
        '  KIND  CONFIGURATION    SOURCE  CALLS  ALLOWED  DENIED  PATCHED  WARNED  ERRORED  SKIPPED  RULES HIT',
        '  VWH   t/t.example.com  api         1        0       1        0       0        0        0        1/1',
        '  VWH   u/u.example.com  api         0        0       0        0       0        0        0        0/1',
        'Untested rules (no request matched):',
        '  VWH u/u.example.com: CREATE apps/deployments',
        '',
      ].join('\n'),
    );
    const html = renderCoverageHtml(report);
    expect(html).toContain('&lt;b&gt;&amp;&quot;no&quot;&lt;/b&gt;');
    expect(html).not.toContain('<b>&"no"</b>');
    expect(html.match(/data-untested="true"/g)).toHaveLength(1);
  });
});
