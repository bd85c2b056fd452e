// What a mutating webhook or a MutatingAdmissionPolicy patches into a built-in kind is decoded into the kind's Go type,
// as kube-apiserver decodes the patched JSON (webhook/mutating/dispatcher.go, policy/mutating/patch/json_patch.go):
// fields the type does not have vanish (webhooks) and a value of the wrong type is an internal error, a 500.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { api, deleteMutating, freshNamespace, registerMutating } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

function route(r: ReceivedReview): WebhookReply {
  switch (r.path) {
    case '/add-unknown':
      return patch([
        { op: 'add', path: '/extra', value: { a: 1 } },
        { op: 'add', path: '/metadata/bogus', value: 'x' },
        { op: 'add', path: '/data/added', value: 'yes' },
      ]);
    case '/bad-type':
      return patch([{ op: 'add', path: '/metadata/finalizers', value: 'str' }]);
    default:
      return allow();
  }
}

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
});

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { original: 'x' } });

describe('mutating webhook patches', () => {
  it('drops the fields a webhook adds that the Go type does not have, and keeps the rest of its patch', async () => {
    const ns = await freshNamespace(server);
    await registerMutating(server, webhook, 'add-unknown.example.com', [{ name: 'add-unknown.example.com', path: '/add-unknown', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('patched'));
      expect(r.status).toBe(201);
      expect(r.json['extra']).toBeUndefined();
      expect((r.json['metadata'] as Record<string, unknown>)['bogus']).toBeUndefined();
      expect(r.json['data']).toEqual({ original: 'x', added: 'yes' });
      const stored = await api(server, 'GET', `/api/v1/namespaces/${ns}/configmaps/patched`);
      expect(stored.json['extra']).toBeUndefined();
      expect((stored.json['metadata'] as Record<string, unknown>)['bogus']).toBeUndefined();
    } finally {
      await deleteMutating(server, 'add-unknown.example.com');
    }
  });

  it('fails a request whose webhook patch gives a field the wrong type with kube\'s internal decode error', async () => {
    const ns = await freshNamespace(server);
    await registerMutating(server, webhook, 'bad-type.example.com', [{ name: 'bad-type.example.com', path: '/bad-type', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }]);
    try {
      const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm('bad'));
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ reason: 'InternalError', code: 500, message: 'Internal error occurred: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string' });
      expect((await api(server, 'GET', `/api/v1/namespaces/${ns}/configmaps/bad`)).status).toBe(404);
    } finally {
      await deleteMutating(server, 'bad-type.example.com');
    }
  });
});

describe('MutatingAdmissionPolicy patches', () => {
  const mapPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
  const mapbPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings';

  async function withPolicy(name: string, mutation: Record<string, unknown>): Promise<string> {
    const ns = await freshNamespace(server, { [name]: 'true' });
    const rules = [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }];
    const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints: { resourceRules: rules }, reinvocationPolicy: 'Never', mutations: [mutation] } };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, matchResources: { namespaceSelector: { matchLabels: { [name]: 'true' } } } } };
    expect((await api(server, 'POST', mapPath, policy)).status).toBe(201);
    expect((await api(server, 'POST', mapbPath, binding)).status).toBe(201);
    return ns;
  }

  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };

  it('fails a JSONPatch that gives a field the wrong type with kube\'s internal decode error', async () => {
    const ns = await withPolicy('typed-jsonpatch', { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "replace", path: "/spec/replicas", value: "x"}]' } });
    const r = await api(server, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
    expect(r.json).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32' });
  });

  it('fails an ApplyConfiguration that gives a field the wrong type with structured-merge-diff\'s text', async () => {
    const ns = await withPolicy('typed-apply', { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: "x"}}' } });
    const r = await api(server, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
    expect(r.status).not.toBe(201);
    expect(String(r.json['message'])).toContain('error applying patch: failed to convert patch object to typed object: .spec.replicas: expected numeric (int or float), got string');
  });
});
