// Webhook matchConditions on the Kubernetes CEL environment: after kube-apiserver's TestMatchConditions cases.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { api, vwcPath } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: () => allow() });
  server = await startApiServer({ storage: 'memory' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
});

async function register(name: string, matchConditions: Array<{ name: string; expression: string }>, failurePolicy: 'Fail' | 'Ignore' = 'Fail') {
  return api(server, 'POST', vwcPath, {
    metadata: { name },
    webhooks: [
      {
        name,
        clientConfig: { url: webhook.url(`/${name}`), caBundle: webhook.caBundle },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy,
        matchConditions,
      },
    ],
  });
}
const calls = (name: string) => webhook.reviews.filter((r) => r.path === `/${name}`).length;
const createCm = (name: string, data: Record<string, string> = {}) => api(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data });

it('calls the webhook only when every condition is true (oldObject is null on create)', async () => {
  const hook = 'conditions.example.com';
  expect((await register(hook, [{ name: 'not-skipped', expression: '!object.metadata.name.startsWith("skip-")' }, { name: 'is-create', expression: 'oldObject == null' }])).status).toBe(201);
  expect((await createCm('skip-me')).status).toBe(201);
  expect(calls(hook)).toBe(0);
  expect((await createCm('call-me')).status).toBe(201);
  expect(calls(hook)).toBe(1);
  // an update fails the second condition
  expect((await api(server, 'PUT', '/api/v1/namespaces/default/configmaps/call-me', { metadata: { name: 'call-me' }, data: { a: 'b' } })).status).toBe(200);
  expect(calls(hook)).toBe(1);
  await api(server, 'DELETE', `${vwcPath}/${hook}`);
});

it('turns an evaluation error into a rejection under failurePolicy Fail and a skip under Ignore', async () => {
  const fail = 'erroring-fail.example.com';
  const cond = [{ name: 'needs-key', expression: 'object.data.missing == "x"' }];
  expect((await register(fail, cond, 'Fail')).status).toBe(201);
  const r = await createCm('err-fail');
  expect(r.status).toBe(403);
  expect(String(r.json['message'])).toContain('no such key');
  expect(calls(fail)).toBe(0);
  await api(server, 'DELETE', `${vwcPath}/${fail}`);
  const ignore = 'erroring-ignore.example.com';
  expect((await register(ignore, cond, 'Ignore')).status).toBe(201);
  expect((await createCm('err-ignore')).status).toBe(201);
  expect(calls(ignore)).toBe(0);
  await api(server, 'DELETE', `${vwcPath}/${ignore}`);
});

it('rejects a configuration whose condition does not compile, naming the field', async () => {
  const r = await register('bad-cel.example.com', [{ name: 'broken', expression: 'object.metadata.name +' }]);
  expect(r.status).toBe(422);
  const causes = (r.json['details'] as { causes: Array<{ field: string; message: string }> }).causes;
  expect(causes[0]!.field).toBe('webhooks[0].matchConditions[0].expression');
  expect(causes[0]!.message).toContain('compilation failed: ERROR: <input>:1:');
});
