// Concurrent reads on etcd go out as one read-only Txn (server/storage/read-coalescer.ts): fewer gRPC calls, the
// same answers. etcd's own gRPC counters show the calls; every answer is compared with the same read made alone.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../server/api/types.js';
import { Etcd3Storage } from '../../server/storage/etcd3.js';
import type { ListResult } from '../../server/storage/interface.js';
import { collectionKey, objectKey } from '../../server/storage/keys.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { expectStorageError } from './contract.js';

const cm = (name: string, namespace: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { name } });

let etcd: EtcdProcess;
let storage: Etcd3Storage;
let prefix: string;

beforeAll(async () => {
  etcd = await startEtcd({ name: 'coalescing' });
});
afterAll(async () => {
  await etcd?.cleanup();
});
beforeEach(() => {
  storage = new Etcd3Storage({ endpoints: etcd.endpoint });
  prefix = `/t-${randomBytes(6).toString('hex')}/registry`;
});
afterEach(() => storage.close());

/** etcd's count of started KV calls by method, from its /metrics. */
async function kvCalls(): Promise<{ Range: number; Txn: number }> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const count = (method: string): number => {
    const m = new RegExp(`^grpc_server_started_total\\{grpc_method="${method}",grpc_service="etcdserverpb.KV",grpc_type="unary"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { Range: count('Range'), Txn: count('Txn') };
}

async function callsDuring<T>(fn: () => Promise<T>): Promise<{ value: T; Range: number; Txn: number }> {
  const before = await kvCalls();
  const value = await fn();
  const after = await kvCalls();
  return { value, Range: after.Range - before.Range, Txn: after.Txn - before.Txn };
}

const namespaces = Array.from({ length: 20 }, (_, i) => `ns-${i}`);

async function seed(): Promise<void> {
  for (const ns of namespaces) for (const n of ['a', 'b', 'c']) await storage.create(objectKey(prefix, '', 'configmaps', ns, n), cm(n, ns));
}

describe('Etcd3Storage read coalescing', () => {
  it('sends concurrent lists and gets as one Txn, each answered as it is alone', async () => {
    await seed();
    const lists = (): Promise<ListResult[]> => Promise.all(namespaces.map((ns) => storage.list(collectionKey(prefix, '', 'configmaps', ns))));
    const gets = (): Promise<KubeObject[]> => Promise.all(namespaces.slice(0, 5).map((ns) => storage.get(objectKey(prefix, '', 'configmaps', ns, 'b'))));
    const together = await callsDuring(() => Promise.all([lists(), gets()]));
    expect(together.Txn).toBe(1);
    expect(together.Range).toBe(0);

    const alone = await callsDuring(async () => {
      const ls: ListResult[] = [];
      for (const ns of namespaces) ls.push(await storage.list(collectionKey(prefix, '', 'configmaps', ns)));
      const gs: KubeObject[] = [];
      for (const ns of namespaces.slice(0, 5)) gs.push(await storage.get(objectKey(prefix, '', 'configmaps', ns, 'b')));
      return [ls, gs] as const;
    });
    expect(alone.Range).toBe(25);
    expect(alone.Txn).toBe(0);
    // nothing was written in between: the same objects, resourceVersions and list revisions
    expect(together.value).toEqual(alone.value);
    for (const l of together.value[0]) expect(l.items.map((o) => o['data'])).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
  });

  it('pages a limited list in a burst exactly as alone: continue token and remainingItemCount', async () => {
    await seed();
    const all = collectionKey(prefix, '', 'configmaps');
    const [paged] = await Promise.all([storage.list(all, { limit: 7 }), ...namespaces.map((ns) => storage.list(collectionKey(prefix, '', 'configmaps', ns)))]);
    const alone = await storage.list(all, { limit: 7, resourceVersion: paged.resourceVersion });
    expect(paged.items).toEqual(alone.items);
    expect(paged.continue).toBe(alone.continue);
    expect(paged.remainingItemCount).toBe(53);
    const next = await storage.list(all, { limit: 100, continue: paged.continue! });
    expect(next.items).toHaveLength(53);
  });

  it('gives a read that etcd refuses in a burst its own error, and the others their answers', async () => {
    await seed();
    const first = await storage.list(collectionKey(prefix, '', 'configmaps', 'ns-0'));
    await storage.create(objectKey(prefix, '', 'configmaps', 'ns-0', 'd'), cm('d', 'ns-0'));
    await storage.compact(await storage.currentRevision());
    const [old, ...fresh] = await Promise.allSettled([
      storage.list(collectionKey(prefix, '', 'configmaps', 'ns-0'), { resourceVersion: first.resourceVersion }),
      ...namespaces.map((ns) => storage.list(collectionKey(prefix, '', 'configmaps', ns))),
    ]);
    expect(old!.status).toBe('rejected');
    const aloneErr = await expectStorageError(storage.list(collectionKey(prefix, '', 'configmaps', 'ns-0'), { resourceVersion: first.resourceVersion }), 'ResourceVersionTooOld');
    await expectStorageError(Promise.reject((old as PromiseRejectedResult).reason), 'ResourceVersionTooOld', new RegExp(aloneErr.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    expect(fresh.map((r) => (r.status === 'fulfilled' ? r.value.items.length : -1))).toEqual(namespaces.map((ns) => (ns === 'ns-0' ? 4 : 3)));
  });

  it('splits a burst larger than etcd’s --max-txn-ops (128) into several Txns', async () => {
    await storage.create(objectKey(prefix, '', 'configmaps', 'ns-0', 'a'), cm('a', 'ns-0'));
    const key = objectKey(prefix, '', 'configmaps', 'ns-0', 'a');
    const burst = await callsDuring(() => Promise.all(Array.from({ length: 200 }, () => storage.get(key))));
    expect(burst.Txn).toBe(2);
    expect(burst.Range).toBe(0);
    expect(new Set(burst.value.map((o) => o.metadata?.resourceVersion)).size).toBe(1);
  });
});
