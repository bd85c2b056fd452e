// What the AdmissionReview says about a request, for the cases kube-apiserver's handlers build specially, ported
// from test/integration/apiserver/admissionwebhook/admission_test.go (holder.expect, testNamespaceDelete,
// testSubresourceUpdate, testSubresourcePatch, testResourceDeletecollection):
// - a Namespace carries its own name as request.namespace ("Special-case namespaces, since the object name shows up
//   in request attributes"), for create, update, patch, delete and its status and finalize subresources;
// - deletecollection admits each item as a DELETE with no name, the item as oldObject and the request's
//   DeleteOptions, and the collection itself is not admitted.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, startWebhookServer, type ReceivedReview, type WebhookServer } from '../../harness/webhook-server.js';
import { eventually } from '../support/eventually.js';
import { api, freshNamespace, registerMutating, registerValidating } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: () => allow() });
  server = await startApiServer({ storage: 'memory' });
  const hooks = (phase: string) => [
    {
      name: `${phase}.attributes.example.com`,
      path: `/${phase}`,
      resources: ['namespaces', 'namespaces/status', 'namespaces/finalize', 'configmaps'],
      operations: ['*'],
    },
  ];
  await registerMutating(server, webhook, 'attributes-mutating', hooks('mutation'));
  await registerValidating(server, webhook, 'attributes-validating', hooks('validation'));
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
});

let counter = 0;
const unique = (base: string) => `${base}-${++counter}-${Date.now().toString(36)}`;

/** The reviews of one phase for this resource/subresource and operation, as kube's holder.record filters them. */
function recorded(phase: 'mutation' | 'validation', resource: string, subResource: string | undefined, operation: string, match: (r: ReceivedReview) => boolean): ReceivedReview[] {
  return webhook.reviews.filter((r) => r.path === `/${phase}` && r.request.resource.resource === resource && r.request.subResource === subResource && r.request.operation === operation && match(r));
}

/** holder.verify: both phases saw exactly one matching review, with these attributes. */
async function expectReviews(resource: string, subResource: string | undefined, operation: string, match: (r: ReceivedReview) => boolean, check: (r: ReceivedReview) => void): Promise<void> {
  for (const phase of ['mutation', 'validation'] as const) {
    const got = await eventually(() => {
      const found = recorded(phase, resource, subResource, operation, match);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    check(got);
  }
}

const kindOf = (o: unknown) => {
  const obj = o as { apiVersion?: string; kind?: string } | undefined;
  return obj ? `${obj.apiVersion}/${obj.kind}` : undefined;
};

describe('a Namespace carries its own name as request.namespace', () => {
  it('on create, update and patch', async () => {
    const name = unique('ns-attrs');
    expect((await api(server, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
    await expectReviews('namespaces', undefined, 'CREATE', (r) => r.request.name === name, (r) => {
      expect(r.request.namespace).toBe(name);
      expect(kindOf(r.request.object)).toBe('v1/Namespace');
      expect(r.request.oldObject ?? null).toBeNull();
      expect(kindOf(r.request.options)).toBe('meta.k8s.io/v1/CreateOptions');
    });

    const current = (await api(server, 'GET', `/api/v1/namespaces/${name}`)).json;
    const put = await api(server, 'PUT', `/api/v1/namespaces/${name}`, { ...current, metadata: { ...(current['metadata'] as object), annotations: { update: 'true' } } });
    expect(put.status).toBe(200);
    const patched = await api(server, 'PATCH', `/api/v1/namespaces/${name}`, { metadata: { annotations: { patch: 'true' } } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    const updates = () => recorded('validation', 'namespaces', undefined, 'UPDATE', (r) => r.request.name === name);
    await eventually(() => expect(updates()).toHaveLength(2));
    for (const r of [...updates(), ...recorded('mutation', 'namespaces', undefined, 'UPDATE', (x) => x.request.name === name)]) {
      expect(r.request.namespace).toBe(name);
      expect(kindOf(r.request.object)).toBe('v1/Namespace');
      expect(kindOf(r.request.oldObject)).toBe('v1/Namespace');
      expect(kindOf(r.request.options)).toBe('meta.k8s.io/v1/UpdateOptions');
    }
  });

  // testSubresourceUpdate / testSubresourcePatch for namespaces/status and namespaces/finalize
  it.each([
    ['status', 'PUT'],
    ['status', 'PATCH'],
    ['finalize', 'PUT'],
  ])('on namespaces/%s (%s): UPDATE of that subresource with Namespace objects and UpdateOptions', async (sub, method) => {
    const name = unique(`ns-${sub}`);
    expect((await api(server, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
    const path = `/api/v1/namespaces/${name}/${sub}`;
    const res =
      method === 'PUT'
        ? await api(server, 'PUT', path, { ...(await api(server, 'GET', `/api/v1/namespaces/${name}`)).json, metadata: { name, annotations: { subresourceupdate: 'true' } } })
        : await api(server, 'PATCH', path, { metadata: { annotations: { subresourcepatch: 'true' } } }, 'application/merge-patch+json');
    expect(res.status).toBe(200);
    await expectReviews('namespaces', sub, 'UPDATE', (r) => r.request.name === name, (r) => {
      expect(r.request.namespace).toBe(name);
      expect(kindOf(r.request.object)).toBe('v1/Namespace');
      expect(kindOf(r.request.oldObject)).toBe('v1/Namespace');
      expect(kindOf(r.request.options)).toBe('meta.k8s.io/v1/UpdateOptions');
    });
    // the subresource is admitted as itself, never as the main resource
    expect(recorded('validation', 'namespaces', undefined, 'UPDATE', (r) => r.request.name === name)).toHaveLength(0);
  });

  it('on delete (testNamespaceDelete), with the stored namespace as oldObject and the DeleteOptions sent', async () => {
    const name = unique('ns-delete');
    expect((await api(server, 'POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
    const del = await api(server, 'DELETE', `/api/v1/namespaces/${name}`, { gracePeriodSeconds: 0, propagationPolicy: 'Background' });
    expect(del.status).toBe(200);
    await expectReviews('namespaces', undefined, 'DELETE', (r) => r.request.name === name, (r) => {
      expect(r.request.namespace).toBe(name);
      expect(r.request.object ?? null).toBeNull();
      expect(kindOf(r.request.oldObject)).toBe('v1/Namespace');
      expect(r.request.options).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0, propagationPolicy: 'Background' });
    });
  });

  it('in ValidatingAdmissionPolicies too: request.namespace is the name, namespaceObject is null', async () => {
    const label = unique('vap-echo');
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: label },
      spec: {
        matchConstraints: {
          objectSelector: { matchLabels: { [label]: 'true' } },
          resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces', 'namespaces/status'] }],
        },
        validations: [{ expression: 'false', messageExpression: "'namespace=' + request.namespace + ' subResource=' + (has(request.subResource) ? request.subResource : '') + ' namespaceObject=' + string(namespaceObject == null)" }],
      },
    };
    expect((await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy)).status).toBe(201);
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: label }, spec: { policyName: label, validationActions: ['Deny'] } };
    expect((await api(server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding)).status).toBe(201);

    const name = unique('ns-vap');
    const created = await eventually(async () => {
      const r = await api(server, 'POST', '/api/v1/namespaces', { metadata: { name, labels: { [label]: 'true' } } });
      expect(r.status).toBe(422);
      return r;
    });
    expect(created.json['message']).toBe(`namespaces "${name}" is forbidden: ValidatingAdmissionPolicy '${label}' with binding '${label}' denied request: namespace=${name} subResource= namespaceObject=true`);
  });
});

describe('deletecollection admits each item as kube does', () => {
  it('one DELETE review per item, without a name, with the item as oldObject and the DeleteOptions sent; none for the collection', async () => {
    const ns = await freshNamespace(server);
    const names = [unique('cm-a'), unique('cm-b')];
    for (const name of names) {
      expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, labels: { webhooktest: 'true' } } })).status).toBe(201);
    }
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'kept' } })).status).toBe(201);

    const res = await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=webhooktest%3Dtrue`, { gracePeriodSeconds: 0, propagationPolicy: 'Background' });
    expect(res.status).toBe(200);
    expect(((res.json['items'] as Array<{ metadata: { name: string } }>) ?? []).map((i) => i.metadata.name).sort()).toEqual([...names].sort());

    for (const phase of ['mutation', 'validation'] as const) {
      const deletes = recorded(phase, 'configmaps', undefined, 'DELETE', (r) => r.request.namespace === ns);
      // each item once; the collection request itself is not a review of its own
      expect(deletes.map((r) => (r.request.oldObject as { metadata: { name: string } }).metadata.name).sort()).toEqual([...names].sort());
      for (const r of deletes) {
        expect(r.request.name ?? '').toBe('');
        expect(r.request.object ?? null).toBeNull();
        expect(kindOf(r.request.oldObject)).toBe('v1/ConfigMap');
        expect(r.request.options).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0, propagationPolicy: 'Background' });
      }
    }
    expect((await api(server, 'GET', `/api/v1/namespaces/${ns}/configmaps/kept`)).status).toBe(200);
  });

  it('a single DELETE names the object it deletes', async () => {
    const ns = await freshNamespace(server);
    const name = unique('cm-single');
    expect((await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } })).status).toBe(201);
    expect((await api(server, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`)).status).toBe(200);
    await expectReviews('configmaps', undefined, 'DELETE', (r) => r.request.namespace === ns, (r) => expect(r.request.name).toBe(name));
  });
});
