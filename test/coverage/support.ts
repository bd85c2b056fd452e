// Shared helpers for the admission coverage suites: configurations scoped to one test by an object selector,
// and lookups in a coverage report.
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import type { WebhookServer } from '../../harness/webhook-server.js';
import type { AdmissionCoverageReport, ConfigurationCoverage } from '../../server/admission/coverage/report-schema.js';
import { api, type ApiResult } from '../admission/support.js';

export const arPath = '/apis/admissionregistration.k8s.io/v1';

/** Only objects labelled `coverage-case: <name>` reach the configuration, so test cases never see each other's requests. */
export const caseSelector = (name: string) => ({ matchLabels: { 'coverage-case': name } });

export const configMap = (name: string, testCase: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'coverage-case': testCase } }, data });

export async function created(r: Promise<ApiResult>): Promise<ApiResult> {
  const res = await r;
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status}: ${JSON.stringify(res.json)}`);
  return res;
}

export interface WebhookSpec {
  path: string;
  rules?: Array<Record<string, unknown>>;
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: Array<{ name: string; expression: string }>;
  clientConfig?: Record<string, unknown>;
}

/** A one-webhook configuration named `<name>` whose webhook is `<name>.example.com`, selecting the case's objects. */
export function registerWebhook(server: ApiServerHandle, webhook: WebhookServer, kind: 'validating' | 'mutating', name: string, spec: WebhookSpec): Promise<ApiResult> {
  const resource = kind === 'validating' ? 'validatingwebhookconfigurations' : 'mutatingwebhookconfigurations';
  return created(
    api(server, 'POST', `${arPath}/${resource}`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: `${name}.example.com`,
          clientConfig: spec.clientConfig ?? { url: webhook.url(spec.path), caBundle: webhook.caBundle },
          rules: spec.rules ?? [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
          objectSelector: caseSelector(name),
          failurePolicy: spec.failurePolicy ?? 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 5,
          ...(spec.matchConditions ? { matchConditions: spec.matchConditions } : {}),
        },
      ],
    }),
  );
}

export function configuration(report: AdmissionCoverageReport, id: string): ConfigurationCoverage {
  const c = report.configurations.find((x) => x.id === id);
  if (!c) throw new Error(`no configuration ${id} in the report; it has ${report.configurations.map((x) => x.id).join(', ')}`);
  return c;
}

/** The untested cells of a configuration as "OP group/resource" strings. */
export const untestedCells = (c: ConfigurationCoverage): string[] => c.rules.filter((r) => r.hits === 0).map((r) => `${r.operation} ${r.apiGroup || 'core'}/${r.resource}`);
