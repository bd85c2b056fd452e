// How the apiserver reaches webhooks: kubeconfig credentials from the AdmissionConfiguration's
// WebhookAdmissionConfiguration.kubeConfigFile, and clientConfig.service through --webhook-service-resolver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { expectStartupFailure } from '../../harness/startup-failure.js';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { api, deleteValidating, registerValidating } from './support.js';

let dir: string;
let webhook: WebhookServer;
let server: ApiServerHandle;

const webhookAdmission = (kubeConfigFile: string) => ({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'AdmissionConfiguration',
  plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile } }],
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-cred-'));
  webhook = await startWebhookServer({ handler: () => allow(), hosts: ['guard.hooks.svc'] });
  const kubeconfig = path.join(dir, 'webhook-kubeconfig.yaml');
  // kube matches users by the webhook's host:port; "*" is the fallback
  writeFileSync(kubeconfig, stringify({ apiVersion: 'v1', kind: 'Config', users: [{ name: `127.0.0.1:${webhook.port}`, user: { token: 'url-token' } }, { name: '*', user: { token: 'fallback-token' } }] }));
  server = await startApiServer({ storage: 'memory', admissionConfig: webhookAdmission(kubeconfig), flags: [`--webhook-service-resolver=hooks/guard:8443=127.0.0.1:${webhook.port}`] });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sends the token of the kubeconfig user named after the webhook\'s host:port', async () => {
  await registerValidating(server, webhook, 'cred.example.com', [{ name: 'cred.example.com', path: '/cred', objectSelector: { matchLabels: { cred: 'url' } } }]);
  try {
    expect((await api(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c1', labels: { cred: 'url' } } })).status).toBe(201);
    expect(webhook.reviews.filter((r) => r.path === '/cred').at(-1)!.headers['authorization']).toBe('Bearer url-token');
  } finally {
    await deleteValidating(server, 'cred.example.com');
  }
});

it('calls a clientConfig.service webhook at the mapped address, verifying the service name, with the fallback credentials', async () => {
  await registerValidating(server, webhook, 'svc.example.com', [
    { name: 'svc.example.com', path: '/svc', clientConfig: { service: { namespace: 'hooks', name: 'guard', port: 8443, path: '/svc' }, caBundle: webhook.caBundle }, objectSelector: { matchLabels: { cred: 'svc' } } },
  ]);
  try {
    expect((await api(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c2', labels: { cred: 'svc' } } })).status).toBe(201);
    const call = webhook.reviews.filter((r) => r.path === '/svc').at(-1)!;
    expect(call.query).toEqual({ timeout: '5s' });
    expect(call.headers['authorization']).toBe('Bearer fallback-token');
  } finally {
    await deleteValidating(server, 'svc.example.com');
  }
});

it('fails a service the resolver does not map, as kube-apiserver does for an unknown service', async () => {
  await registerValidating(server, webhook, 'unmapped.example.com', [
    { name: 'unmapped.example.com', path: '/x', clientConfig: { service: { namespace: 'hooks', name: 'missing', path: '/x' }, caBundle: webhook.caBundle }, objectSelector: { matchLabels: { cred: 'missing' } } },
  ]);
  try {
    const r = await api(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c3', labels: { cred: 'missing' } } });
    expect(r.status).toBe(500);
    expect(String(r.json['message'])).toContain('failed calling webhook "unmapped.example.com": failed to call webhook: Post "https://missing.hooks.svc:443/x?timeout=5s": service "missing" not found');
  } finally {
    await deleteValidating(server, 'unmapped.example.com');
  }
});

it('refuses to start when the admission configuration is invalid, naming the problem', async () => {
  const failed = await expectStartupFailure({ storage: 'memory', admissionConfig: webhookAdmission('relative/kubeconfig') });
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toContain('kubeConfigFile: Invalid value: "relative/kubeconfig": must be an absolute file path');
});
