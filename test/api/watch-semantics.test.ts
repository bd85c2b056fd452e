// kube's RunWatchSemantics (k8s.io/apiserver/pkg/storage/testing/watcher_tests.go), its table replayed through the
// REST API with @kubernetes/client-node's Watch on etcd: which combinations of allowWatchBookmarks, sendInitialEvents
// and resourceVersion send the existing objects first, which end them with the "k8s.io/initial-events-end" bookmark
// (at a resourceVersion no older than the last object's), and that every later change follows.
//
// Differences from kube's storage-level test, each forced by the REST API or this server:
// - sendInitialEvents needs resourceVersionMatch=NotOlderThan on a request (kube's ValidateListOptions), so every
//   scenario that sets it sends that too;
// - Secrets instead of Pods, named as kube names its pods ("1" … "5"): no controller creates Secrets in a new
//   namespace (the root-CA publisher creates a ConfigMap), and a Pod needs its namespace's ServiceAccount first;
// - "no more events" is checked by one more object, which must be the next event, rather than by kube's 100 ms wait.
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { eventually } from '../support/eventually.js';

interface Scenario {
  name: string;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  resourceVersion?: string;
  useCurrentRV?: boolean;
  expectInitialEvents: boolean;
  expectInitialEventsEnd: boolean;
}

// kube's table, in its order; every scenario creates "1", "2", "3" before and "4", "5" after establishing the watch
const scenarios: Scenario[] = [
  { name: 'allowWatchBookmarks=true, sendInitialEvents=true, RV=unset', allowWatchBookmarks: true, sendInitialEvents: true, expectInitialEvents: true, expectInitialEventsEnd: true },
  { name: 'allowWatchBookmarks=true, sendInitialEvents=false, RV=unset', allowWatchBookmarks: true, sendInitialEvents: false, expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=false, RV=unset', sendInitialEvents: false, expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=true, RV=unset', sendInitialEvents: true, expectInitialEvents: true, expectInitialEventsEnd: false },

  { name: 'allowWatchBookmarks=true, sendInitialEvents=true, RV=0', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersion: '0', expectInitialEvents: true, expectInitialEventsEnd: true },
  { name: 'allowWatchBookmarks=true, sendInitialEvents=false, RV=0', allowWatchBookmarks: true, sendInitialEvents: false, resourceVersion: '0', expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=false, RV=0', sendInitialEvents: false, resourceVersion: '0', expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=true, RV=0', sendInitialEvents: true, resourceVersion: '0', expectInitialEvents: true, expectInitialEventsEnd: false },

  { name: 'allowWatchBookmarks=true, sendInitialEvents=true, RV=1', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersion: '1', expectInitialEvents: true, expectInitialEventsEnd: true },
  { name: 'allowWatchBookmarks=true, sendInitialEvents=false, RV=1', allowWatchBookmarks: true, sendInitialEvents: false, resourceVersion: '1', expectInitialEvents: true, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=false, RV=1', sendInitialEvents: false, resourceVersion: '1', expectInitialEvents: true, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=true, RV=1', sendInitialEvents: true, resourceVersion: '1', expectInitialEvents: true, expectInitialEventsEnd: false },

  { name: 'allowWatchBookmarks=true, sendInitialEvents=true, RV=useCurrentRV', allowWatchBookmarks: true, sendInitialEvents: true, useCurrentRV: true, expectInitialEvents: true, expectInitialEventsEnd: true },
  { name: 'allowWatchBookmarks=true, sendInitialEvents=false, RV=useCurrentRV', allowWatchBookmarks: true, sendInitialEvents: false, useCurrentRV: true, expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=false, RV=useCurrentRV', sendInitialEvents: false, useCurrentRV: true, expectInitialEvents: false, expectInitialEventsEnd: false },
  { name: 'allowWatchBookmarks=false, sendInitialEvents=true, RV=useCurrentRV', sendInitialEvents: true, useCurrentRV: true, expectInitialEvents: true, expectInitialEventsEnd: false },

  { name: 'legacy, RV=0', resourceVersion: '0', expectInitialEvents: true, expectInitialEventsEnd: false },
  { name: 'legacy, RV=unset', expectInitialEvents: true, expectInitialEventsEnd: false },
];

let server: ApiServerHandle;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  server = await startApiServer({ storage: 'etcd3' });
  core = server.client(k8s.CoreV1Api);
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
});

interface Seen {
  type: string;
  name: string | undefined;
  resourceVersion: string | undefined;
  annotations: Record<string, string> | undefined;
}

describe("kube's RunWatchSemantics through the REST API", () => {
  it.each(scenarios.map((s, i) => [s.name, s, i] as const))('%s', async (_name, scenario, idx) => {
    const ns = `watch-semantics-${idx}`;
    await core.createNamespace({ body: { metadata: { name: ns } } });
    const create = async (name: string): Promise<k8s.V1Secret> => core.createNamespacedSecret({ namespace: ns, body: { metadata: { name }, data: {} } });
    const initial: k8s.V1Secret[] = [];
    for (const name of ['1', '2', '3']) initial.push(await create(name));
    const lastInitialRV = Number(initial.at(-1)!.metadata!.resourceVersion);
    let resourceVersion = scenario.resourceVersion;
    // kube's GetCurrentResourceVersion: any list answers with it
    if (scenario.useCurrentRV) resourceVersion = (await core.listNamespace({ limit: 1 })).metadata!.resourceVersion;

    const query: Record<string, string | boolean> = {};
    if (scenario.allowWatchBookmarks) query['allowWatchBookmarks'] = true;
    if (scenario.sendInitialEvents !== undefined) {
      query['sendInitialEvents'] = scenario.sendInitialEvents;
      query['resourceVersionMatch'] = 'NotOlderThan';
    }
    if (resourceVersion !== undefined) query['resourceVersion'] = resourceVersion;

    const seen: Seen[] = [];
    let ended: unknown;
    const watch = new k8s.Watch(server.kubeConfig());
    const req = await watch.watch(
      `/api/v1/namespaces/${ns}/secrets`,
      query,
      (type: string, obj: k8s.V1Secret) => seen.push({ type, name: obj.metadata?.name, resourceVersion: obj.metadata?.resourceVersion, annotations: obj.metadata?.annotations }),
      (err: unknown) => {
        ended = err ?? 'ended';
      },
    );
    try {
      const initialCount = (scenario.expectInitialEvents ? 3 : 0) + (scenario.expectInitialEventsEnd ? 1 : 0);
      // the watch is established once its response has begun (watch() resolved); what it sent first arrives now
      if (initialCount > 0) await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(initialCount));
      const after: k8s.V1Secret[] = [];
      for (const name of ['4', '5']) after.push(await create(name));
      // one more object: when it arrives as the next event, nothing else came before it
      const sentinel = await create('sentinel');
      await eventually(() => expect(seen.some((e) => e.name === 'sentinel')).toBe(true));
      expect(ended).toBeUndefined();

      const expected: Seen[] = scenario.expectInitialEvents ? initial.map((s) => ({ type: 'ADDED', name: s.metadata!.name, resourceVersion: s.metadata!.resourceVersion, annotations: undefined })) : [];
      expect(seen.slice(0, expected.length)).toEqual(expected);
      let rest = seen.slice(expected.length);
      if (scenario.expectInitialEventsEnd) {
        const end = rest[0]!;
        expect({ type: end.type, annotations: end.annotations }).toEqual({ type: 'BOOKMARK', annotations: { 'k8s.io/initial-events-end': 'true' } });
        // at least the last initial object's resourceVersion
        expect(Number(end.resourceVersion)).toBeGreaterThanOrEqual(lastInitialRV);
        rest = rest.slice(1);
      }
      // later events, bookmarks ignored (kube's ignoreEventsFn)
      expect(rest.filter((e) => e.type !== 'BOOKMARK')).toEqual(
        [...after, sentinel].map((s) => ({ type: 'ADDED', name: s.metadata!.name, resourceVersion: s.metadata!.resourceVersion, annotations: undefined })),
      );
      // no initial-events-end bookmark where kube sends none
      if (!scenario.expectInitialEventsEnd) expect(seen.some((e) => e.annotations?.['k8s.io/initial-events-end'])).toBe(false);
    } finally {
      req.abort();
    }
  });
});

describe("kube's watch-list bookmark carries the global resourceVersion", () => {
  /** Everything a watch-list request (sendInitialEvents, bookmarks) sends before the initial-events-end bookmark, and it. */
  async function watchList(path: string, query: Record<string, string | boolean> = {}): Promise<Seen[]> {
    const seen: Seen[] = [];
    const watch = new k8s.Watch(server.kubeConfig());
    const req = await watch.watch(
      path,
      { ...query, allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
      (type: string, obj: k8s.V1Secret) => seen.push({ type, name: obj.metadata?.name, resourceVersion: obj.metadata?.resourceVersion, annotations: obj.metadata?.annotations }),
      () => {},
    );
    try {
      await eventually(() => expect(seen.some((e) => e.annotations?.['k8s.io/initial-events-end'])).toBe(true));
      return seen.slice(0, seen.findIndex((e) => e.annotations?.['k8s.io/initial-events-end']) + 1);
    } finally {
      req.abort();
    }
  }
  const added = (s: k8s.V1Secret): Seen => ({ type: 'ADDED', name: s.metadata!.name, resourceVersion: s.metadata!.resourceVersion, annotations: undefined });

  // kube's RunWatchSemanticInitialEventsExtended: a write in another namespace moves the bookmark's resourceVersion
  it('RunWatchSemanticInitialEventsExtended: the initial events of one namespace, then the bookmark at the global revision', async () => {
    for (const ns of ['ns-foo', 'other-ns-foo']) await core.createNamespace({ body: { metadata: { name: ns } } });
    const initial: k8s.V1Secret[] = [];
    for (const name of ['1', '2', '3', '4', '5']) initial.push(await core.createNamespacedSecret({ namespace: 'ns-foo', body: { metadata: { name } } }));
    const other = await core.createNamespacedSecret({ namespace: 'other-ns-foo', body: { metadata: { name: '1' } } });
    const seen = await watchList('/api/v1/namespaces/ns-foo/secrets');
    expect(seen.slice(0, -1)).toEqual(initial.map(added));
    const end = seen.at(-1)!;
    expect(end.type).toBe('BOOKMARK');
    // kube's store has no other writer, so its bookmark is exactly the other pod's revision; here controllers may
    // have written since, so it is at least that (and so past every object of this namespace)
    expect(Number(end.resourceVersion)).toBeGreaterThanOrEqual(Number(other.metadata!.resourceVersion));
  });

  // kube's RunWatchListMatchSingle: a field selector matching one object; the bookmark is past the ones it filtered out
  it('RunWatchListMatchSingle: one object through metadata.name, then the bookmark past the last write', async () => {
    await core.createNamespace({ body: { metadata: { name: 'ns-match-single' } } });
    const expected = await core.createNamespacedSecret({ namespace: 'ns-match-single', body: { metadata: { name: 'pod-1' } } });
    let last = expected;
    for (const name of ['pod-2', 'pod-3', 'pod-4', 'pod-5']) last = await core.createNamespacedSecret({ namespace: 'ns-match-single', body: { metadata: { name } } });
    const seen = await watchList('/api/v1/secrets', { fieldSelector: 'metadata.name=pod-1' });
    expect(seen.slice(0, -1)).toEqual([added(expected)]);
    expect(seen.at(-1)!.type).toBe('BOOKMARK');
    expect(Number(seen.at(-1)!.resourceVersion)).toBeGreaterThanOrEqual(Number(last.metadata!.resourceVersion));
  });
});
