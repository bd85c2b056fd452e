// Shared helpers for the admission integration suites: raw API calls as the admin, and webhook configurations.
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import type { WebhookServer } from '../../harness/webhook-server.js';

export interface ApiResult {
  status: number;
  json: Record<string, unknown>;
  warnings: string[];
}

export async function api(server: ApiServerHandle, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiResult> {
  const res = await server.request(path, { method, body, headers: { 'Content-Type': contentType } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body);
  } catch {
    json = { raw: res.body };
  }
  const w = res.headers['warning'];
  const list = w === undefined ? [] : Array.isArray(w) ? w : String(w).split(/,(?=\s*299 )/);
  const warnings = list.map((h) => {
    const m = /^\s*299 - "((?:[^"\\]|\\.)*)"/.exec(h);
    return m ? (JSON.parse(`"${m[1]}"`) as string) : h;
  });
  return { status: res.status, json, warnings };
}

export interface HookSpec {
  name: string;
  path: string;
  resources?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: string[];
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  sideEffects?: string;
  clientConfig?: Record<string, unknown>;
}

export function webhookEntry(webhook: WebhookServer, h: HookSpec, mutating: boolean): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: h.name,
    clientConfig: h.clientConfig ?? { url: webhook.url(h.path), caBundle: webhook.caBundle },
    rules: [{ apiGroups: h.apiGroups ?? [''], apiVersions: h.apiVersions ?? ['v1'], resources: h.resources ?? ['configmaps'], operations: h.operations ?? ['CREATE', 'UPDATE'] }],
    admissionReviewVersions: h.admissionReviewVersions ?? ['v1'],
    sideEffects: h.sideEffects ?? 'None',
    failurePolicy: h.failurePolicy ?? 'Fail',
    timeoutSeconds: h.timeoutSeconds ?? 5,
  };
  if (h.namespaceSelector) entry['namespaceSelector'] = h.namespaceSelector;
  if (h.objectSelector) entry['objectSelector'] = h.objectSelector;
  if (mutating && h.reinvocationPolicy) entry['reinvocationPolicy'] = h.reinvocationPolicy;
  return entry;
}

const vwcPath = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const mwcPath = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

export async function registerValidating(server: ApiServerHandle, webhook: WebhookServer, name: string, hooks: HookSpec[], labels: Record<string, string> = {}): Promise<ApiResult> {
  const r = await api(server, 'POST', vwcPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name, labels }, webhooks: hooks.map((h) => webhookEntry(webhook, h, false)) });
  if (r.status !== 201) throw new Error(`registering ${name}: ${r.status} ${JSON.stringify(r.json)}`);
  return r;
}

export async function registerMutating(server: ApiServerHandle, webhook: WebhookServer, name: string, hooks: HookSpec[]): Promise<ApiResult> {
  const r = await api(server, 'POST', mwcPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks: hooks.map((h) => webhookEntry(webhook, h, true)) });
  if (r.status !== 201) throw new Error(`registering ${name}: ${r.status} ${JSON.stringify(r.json)}`);
  return r;
}

export const deleteValidating = (server: ApiServerHandle, name: string) => api(server, 'DELETE', `${vwcPath}/${name}`);
export const deleteMutating = (server: ApiServerHandle, name: string) => api(server, 'DELETE', `${mwcPath}/${name}`);
export { mwcPath, vwcPath };

let counter = 0;
/** A fresh namespace per test keeps tests independent. */
export async function freshNamespace(server: ApiServerHandle, labels: Record<string, string> = {}): Promise<string> {
  const name = `wh-${++counter}-${Date.now().toString(36)}`;
  const r = await api(server, 'POST', '/api/v1/namespaces', { metadata: { name, labels } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${JSON.stringify(r.json)}`);
  return name;
}
