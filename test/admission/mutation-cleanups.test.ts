// kube-apiserver's clean-ups after mutating admission, through a real mutating webhook:
// - duplicate ownerReferences are dropped with kube's warning, ported from
//   test/integration/apiserver/admissionwebhook/admission_test.go's sibling
//   duplicate_owner_references_test.go (TestMutatingWebhookDuplicateOwnerReferences), plus the warning a create
//   with duplicates gets before admission (handlers/create.go dedupOwnerReferencesAndAddWarning(obj, ctx, false));
// - managedFields a webhook leaves invalid are reset with kube's warning, ported from
//   invalid_managed_fields_test.go (TestMutatingWebhookResetsInvalidManagedFields).
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { eventually } from '../support/eventually.js';
import { api, freshNamespace, registerMutating } from './support.js';

let server: ApiServerHandle;
let webhook: WebhookServer;

/**
 * A ConfigMap to own the test's objects: this server runs the garbage collector (kube's integration server does
 * not), which would delete objects whose owners do not exist.
 */
async function owner(ns: string, name: string): Promise<{ apiVersion: string; kind: string; name: string; uid: string }> {
  const r = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
  if (r.status !== 201) throw new Error(`owner ${name}: ${r.status}`);
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: (r.json['metadata'] as { uid: string }).uid };
}

interface PodLike {
  metadata?: { ownerReferences?: Array<{ uid: string }>; managedFields?: Array<Record<string, unknown>>; labels?: Record<string, string> };
}

function route(r: ReceivedReview): WebhookReply {
  const pod = r.request.object as PodLike | undefined;
  switch (r.path) {
    // newDuplicateOwnerReferencesWebhookHandler: appends a copy of the first owner reference
    case '/dup-owner-references':
      if (pod?.metadata?.ownerReferences?.length) {
        return patch([{ op: 'add', path: '/metadata/ownerReferences/-', value: pod.metadata.ownerReferences[0] }]);
      }
      return allow();
    // newInvalidManagedFieldsWebhookHandler: corrupts the first managedFields entry
    case '/invalid-managedfields':
      if (pod?.metadata?.managedFields?.length) {
        return patch([
          { op: 'remove', path: '/metadata/managedFields/0/apiVersion' },
          { op: 'remove', path: '/metadata/managedFields/0/fieldsV1' },
          { op: 'remove', path: '/metadata/managedFields/0/fieldsType' },
        ]);
      }
      return allow();
    default:
      return allow();
  }
}

beforeAll(async () => {
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory', flags: ['--disable-admission-plugins=ServiceAccount'] });
  const hook = (name: string, label: string) => ({
    name: `${name}.admission.integration.test`,
    path: `/${name}`,
    resources: ['pods'],
    operations: ['CREATE', 'UPDATE'],
    admissionReviewVersions: ['v1', 'v1beta1'],
    objectSelector: { matchLabels: { test: label } },
  });
  await registerMutating(server, webhook, 'dup-owner-references.admission.integration.test', [hook('dup-owner-references', 'dup-owner-references')]);
  await registerMutating(server, webhook, 'invalid-managedfields.admission.integration.test', [hook('invalid-managedfields', 'invalid-managedfields')]);
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
});

const duplicateAfterMutating = (uid: string) =>
  `.metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uid}`;
const duplicateBeforeAdmission = (uids: string) =>
  `.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids}`;
const invalidManagedFields = (detail: string) =>
  `.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${detail}`;

const pod = (name: string, label: string, ownerReferences?: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { test: label }, ...(ownerReferences ? { ownerReferences } : {}) },
  spec: { containers: [{ name: 'fake-name', image: 'fakeimage' }] },
});

describe('duplicate ownerReferences after mutating admission (TestMutatingWebhookDuplicateOwnerReferences)', () => {
  it('dedups them on patch and update, with the after-admission warning only', async () => {
    const ns = await freshNamespace(server);
    const ref = await owner(ns, 'fake-owner');
    const uid = ref.uid;
    const name = 'duplicate-owner-references-test-marker';
    const created = await api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, pod(name, 'dup-owner-references', [ref]));
    expect(created.status).toBe(201);
    // the webhook duplicated the reference on create already
    expect(created.warnings).toEqual([duplicateAfterMutating(uid)]);

    // Make sure dedup happens in patch requests
    const patched = await api(server, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, [], 'application/json-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.warnings).toEqual([duplicateAfterMutating(uid)]);
    expect((patched.json as PodLike).metadata?.ownerReferences).toHaveLength(1);

    // Make sure dedup happens in update requests
    const updated = await api(server, 'PUT', `/api/v1/namespaces/${ns}/pods/${name}`, patched.json);
    expect(updated.status).toBe(200);
    expect(updated.warnings).toEqual([duplicateAfterMutating(uid)]);
    expect((updated.json as PodLike).metadata?.ownerReferences).toHaveLength(1);

    // expect no more warning
    const deleted = await api(server, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.warnings).toEqual([]);
  });

  it('dedups what the client sent before admission, with the plain warning listing every duplicate UID', async () => {
    const ns = await freshNamespace(server);
    const owners = new Map<string, Awaited<ReturnType<typeof owner>>>();
    for (const o of [await owner(ns, 'owner-a'), await owner(ns, 'owner-b')]) owners.set(o.uid, o);
    const [a, b] = [...owners.keys()] as [string, string];
    const ref = (uid: string) => owners.get(uid)!;
    // references sharing a UID but not equal stay; exact copies go
    const sameUidOtherName = { ...ref(a), blockOwnerDeletion: false };
    const created = await api(server, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'dedup-create', ownerReferences: [ref(a), ref(b), ref(a), sameUidOtherName, ref(b), ref(a)] } });
    expect(created.status).toBe(201);
    expect(created.warnings).toEqual([duplicateBeforeAdmission(`${a}, ${b}, ${a}`)]);
    expect((created.json as PodLike).metadata?.ownerReferences).toEqual([ref(a), ref(b), sameUidOtherName]);

    const updated = await api(server, 'PUT', `/api/v1/namespaces/${ns}/configmaps/dedup-create`, { metadata: { name: 'dedup-create', ownerReferences: [ref(b), ref(b)] } });
    expect(updated.status).toBe(200);
    expect(updated.warnings).toEqual([duplicateBeforeAdmission(b)]);
    expect((updated.json as PodLike).metadata?.ownerReferences).toEqual([ref(b)]);

    // a patch is deduped after admission only (kube: "For PATCH request the API server only dedups after mutating
    // admission"), so its warning is the after-admission one
    const patched = await api(server, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/dedup-create`, { metadata: { ownerReferences: [ref(a), ref(a)] } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.warnings).toEqual([duplicateAfterMutating(a)]);
    expect((patched.json as PodLike).metadata?.ownerReferences).toEqual([ref(a)]);
  });
});

describe('invalid managedFields after mutating admission (TestMutatingWebhookResetsInvalidManagedFields)', () => {
  it('resets them to their state before admission on patch and update, with kube\'s warning', async () => {
    const ns = await freshNamespace(server);
    const name = 'invalid-managedfields-test-marker';
    const created = await api(server, 'POST', `/api/v1/namespaces/${ns}/pods`, pod(name, 'invalid-managedfields'));
    expect(created.status).toBe(201);

    const valid = (p: PodLike) => {
      const entries = p.metadata?.managedFields ?? [];
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) {
        expect(e['apiVersion']).toBe('v1');
        expect(e['fieldsType']).toBe('FieldsV1');
        expect(e['fieldsV1']).toBeDefined();
      }
    };
    valid(created.json as PodLike);
    // the first entry lost its apiVersion first: that is what DecodeManagedFields reports
    expect(created.warnings).toEqual([invalidManagedFields('apiVersion must not be empty')]);

    // Make sure reset happens on patch requests
    const patched = await eventually(async () => {
      const r = await api(server, 'PATCH', `/api/v1/namespaces/${ns}/pods/${name}`, [], 'application/json-patch+json');
      expect(r.status).toBe(200);
      return r;
    });
    valid(patched.json as PodLike);
    expect(patched.warnings).toEqual([invalidManagedFields('apiVersion must not be empty')]);

    // Make sure reset happens in update requests
    const updated = await api(server, 'PUT', `/api/v1/namespaces/${ns}/pods/${name}`, patched.json);
    expect(updated.status).toBe(200);
    valid(updated.json as PodLike);
    expect(updated.warnings).toEqual([invalidManagedFields('apiVersion must not be empty')]);
  });
});
