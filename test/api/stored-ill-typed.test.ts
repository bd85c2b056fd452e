// Objects that older versions of this server stored without decoding them into their Go types (finalizers a string,
// ownerReferences a number, labels an array) survive in etcd. They must stay deletable: no 500 from the store, no
// finalizer that nobody can remove, no namespace stuck in Terminating. Written here straight into etcd.
import { Etcd3 } from 'etcd3';
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';

const env = useApiServer({ storage: 'etcd3' });
const ns = 'legacy';
const cmPath = `/api/v1/namespaces/${ns}/configmaps`;

async function call(method: string, p: string, body?: string, contentType = 'application/json') {
  const res = await env.server.request(p, { method, body, headers: { 'Content-Type': contentType } });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    /* asserted on the status */
  }
  return { status: res.status, json, body: res.body };
}

/** Writes a ConfigMap into etcd as an older server would have stored it (no resourceVersion in the stored form). */
async function storeRaw(name: string, metadata: Record<string, unknown>, rest: Record<string, unknown> = {}): Promise<void> {
  const etcd = new Etcd3({ hosts: env.server.etcd!.endpoint });
  try {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, uid: `uid-${name}`, creationTimestamp: '2025-01-01T00:00:00Z', ...metadata }, ...rest };
    await etcd.put(`/registry/configmaps/${ns}/${name}`).value(JSON.stringify(obj));
  } finally {
    etcd.close();
  }
}

beforeAll(async () => {
  expect((await call('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))).status).toBe(201);
});

describe('ill-typed objects stored by an older server', () => {
  it('deletes an object whose finalizers are a string (they hold no finalizer)', async () => {
    await storeRaw('finalizers-string', { finalizers: 'str' });
    const del = await call('DELETE', `${cmPath}/finalizers-string`);
    expect(del.status).toBe(200);
    expect((await call('GET', `${cmPath}/finalizers-string`)).status).toBe(404);
  });

  it('deletes an object whose ownerReferences are a number, or whose labels are a list', async () => {
    await storeRaw('owners-number', { ownerReferences: 123 });
    await storeRaw('labels-list', { labels: [1], finalizers: [1, 2] });
    expect((await call('DELETE', `${cmPath}/owners-number`)).status).toBe(200);
    expect((await call('DELETE', `${cmPath}/labels-list`)).status).toBe(200);
    expect((await call('GET', `${cmPath}/owners-number`)).status).toBe(404);
    expect((await call('GET', `${cmPath}/labels-list`)).status).toBe(404);
  });

  it('repairs an ill-typed field with a patch that replaces it, without a 500', async () => {
    await storeRaw('repair', { ownerReferences: 123, finalizers: 'str', deletionTimestamp: '2025-01-02T00:00:00Z', deletionGracePeriodSeconds: 0 }, { data: { a: 'b' } });
    const r = await call('PATCH', `${cmPath}/repair`, '{"metadata":{"ownerReferences":null,"finalizers":null}}', 'application/merge-patch+json');
    expect(r.status).toBe(200);
    // no finalizer left on an object being deleted: the update completes the deletion, as kube's does
    expect((await call('GET', `${cmPath}/repair`)).status).toBe(404);
  });

  it('refuses a patch that leaves the stored field ill-typed with the decode error, not a 500', async () => {
    await storeRaw('still-bad', { finalizers: 'str' });
    const r = await call('PATCH', `${cmPath}/still-bad`, '{"data":{"a":"b"}}', 'application/merge-patch+json');
    expect(r.status).toBe(422);
    expect(r.json['message']).toMatch(/json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.finalizers of type \[\]string$/);
  });

  it('finishes deleting a namespace holding ill-typed objects, one of them already marked for deletion', async () => {
    await storeRaw('marked', { finalizers: 'str', deletionTimestamp: '2025-01-02T00:00:00Z', deletionGracePeriodSeconds: 0 });
    await storeRaw('unmarked', { finalizers: { a: 1 }, ownerReferences: 'x' });
    expect((await call('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    await eventually(async () => {
      expect((await call('GET', `/api/v1/namespaces/${ns}`)).status).toBe(404);
    }, 30_000);
  });
});
