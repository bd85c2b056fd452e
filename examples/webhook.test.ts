// A webhook author's integration test, ready to copy: a real apiserver (and etcd), a webhook server that denies
// ConfigMaps labelled deny=true, registered with a ValidatingWebhookConfiguration through client-node.
//
// In your project: import { … } from 'kube-admission-harness'. `k8s` is the client-node the harness is built with,
// so the test needs no @kubernetes/client-node of its own (2.x does not run on Node 20).
import { allow, deny, k8s, useApiServer, useWebhookServer } from '../harness/index.js';

const env = useApiServer(); // etcd + apiserver, started before the tests and removed after them
const webhook = useWebhookServer({
  handler: ({ request }) => (request.object?.metadata?.labels?.deny === 'true' ? deny('ConfigMaps labelled deny=true are not allowed') : allow()),
});

const configMap = (name: string, labels: Record<string, string>): k8s.V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels },
  data: { key: 'value' },
});

/** The Status the apiserver answered with, from client-node's ApiException (whose body is the raw JSON text). */
function statusOf(err: unknown): { code?: number; message?: string } {
  if (!(err instanceof k8s.ApiException)) throw err;
  return typeof err.body === 'string' ? (JSON.parse(err.body) as { code?: number; message?: string }) : (err.body as { code?: number; message?: string });
}

beforeAll(async () => {
  await env.client(k8s.AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
    body: {
      metadata: { name: 'deny-labelled.example.com' },
      webhooks: [
        {
          name: 'deny-labelled.example.com',
          clientConfig: { url: webhook.url('/validate'), caBundle: webhook.caBundle },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
        },
      ],
    },
  });
  // The configuration is in force for the very next request: no waiting needed.
});

it('denies a ConfigMap labelled deny=true with the webhook’s message', async () => {
  const err = await env
    .client(k8s.CoreV1Api)
    .createNamespacedConfigMap({ namespace: 'default', body: configMap('denied', { deny: 'true' }) })
    .catch((e: unknown) => e);
  expect(statusOf(err)).toMatchObject({
    code: 403,
    message: 'admission webhook "deny-labelled.example.com" denied the request: ConfigMaps labelled deny=true are not allowed',
  });
  // The webhook saw the request as an admission.k8s.io/v1 AdmissionReview.
  const seen = webhook.server.reviews.find((r) => r.request.name === 'denied');
  expect(seen?.review.apiVersion).toBe('admission.k8s.io/v1');
  expect(seen?.request).toMatchObject({ operation: 'CREATE', namespace: 'default', resource: { group: '', version: 'v1', resource: 'configmaps' } });
});

it('allows a ConfigMap without the label', async () => {
  const created = await env.client(k8s.CoreV1Api).createNamespacedConfigMap({ namespace: 'default', body: configMap('allowed', { deny: 'false' }) });
  expect(created.metadata?.uid).toBeTruthy();
});
