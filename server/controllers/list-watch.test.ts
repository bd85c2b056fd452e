import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { KubeList, KubeObject } from '../api/types.js';
import { StorageError, type StorageEvent, type WatchHandlers } from '../storage/interface.js';
import { DelayedCalls } from './delayed-calls.js';
import { ListWatch, type ListWatchable, type ListWatchOptions } from './list-watch.js';

const user = { username: 'system:serviceaccount:kube-system:test-controller', groups: ['system:authenticated'] };
const obj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const listAt = (resourceVersion: string, ...names: string[]): KubeList => ({ apiVersion: 'v1', kind: 'NamespaceList', metadata: { resourceVersion }, items: names.map(obj) });

/** A store answering its lists from a script (a list, or an error to reject with) and recording its watches. */
class ScriptedStore implements ListWatchable {
  lists = 0;
  readonly watches: { from: string; handlers: WatchHandlers; stopped: boolean }[] = [];
  constructor(private readonly script: (KubeList | Error)[]) {}

  async list(): Promise<KubeList> {
    const next = this.script[this.lists++];
    if (!next) throw new Error('the script has no more lists');
    if (next instanceof Error) throw next;
    return next;
  }

  watch(_ctx: unknown, from: string, handlers: WatchHandlers) {
    const w = { from, handlers, stopped: false };
    this.watches.push(w);
    return { stop: () => void (w.stopped = true) };
  }
}

function recorder(store: ScriptedStore, retryMs = 1000) {
  const seen: string[] = [];
  const options: ListWatchOptions = {
    store,
    user,
    retryMs,
    onList: (items) => void seen.push(`list ${items.map((i) => i.metadata?.name).join(',')}`),
    onEvent: (e: StorageEvent) => void seen.push(`${e.type} ${e.object.metadata?.name}`),
    onListError: (err) => void seen.push(`list failed: ${err.message}`),
    onWatchError: (err) => void seen.push(`watch ended: ${err.message}`),
  };
  return { seen, listWatch: new ListWatch(options) };
}

describe('ListWatch', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it("hands over every listed item, then watches from the list's resourceVersion", async () => {
    const store = new ScriptedStore([listAt('7', 'a', 'b')]);
    const { seen, listWatch } = recorder(store);
    await listWatch.start();
    expect(store.watches.map((w) => w.from)).toEqual(['7']);
    store.watches[0]!.handlers.onEvent({ type: 'ADDED', object: obj('c') });
    store.watches[0]!.handlers.onEvent({ type: 'DELETED', object: obj('a') });
    expect(seen).toEqual(['list a,b', 'ADDED c', 'DELETED a']);
    listWatch.stop();
    expect(store.watches[0]!.stopped).toBe(true);
  });

  it('lists again after the delay when the watch ends with a 410, and watches from the new list', async () => {
    const store = new ScriptedStore([listAt('7', 'a'), listAt('12', 'a', 'b')]);
    const { seen, listWatch } = recorder(store, 1000);
    await listWatch.start();
    store.watches[0]!.handlers.onError(new StorageError('ResourceVersionTooOld', '/registry/namespaces/', 'too old resource version: 7 (9)', 9));
    expect(store.watches[0]!.stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(999);
    expect(store.lists).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.lists).toBe(2);
    expect(store.watches.map((w) => w.from)).toEqual(['7', '12']);
    expect(seen).toEqual(['list a', 'watch ended: too old resource version: 7 (9)', 'list a,b']);
    listWatch.stop();
  });

  it('reports a failed list and retries it until one succeeds, without rejecting start()', async () => {
    const store = new ScriptedStore([new Error('etcd unavailable'), new Error('etcd unavailable'), listAt('3')]);
    const { seen, listWatch } = recorder(store, 50);
    await expect(listWatch.start()).resolves.toBeUndefined();
    expect(store.watches).toEqual([]);
    await jest.advanceTimersByTimeAsync(100);
    expect(seen).toEqual(['list failed: etcd unavailable', 'list failed: etcd unavailable', 'list ']);
    expect(store.watches.map((w) => w.from)).toEqual(['3']);
    listWatch.stop();
  });

  it('counts a rejected onList as a failed list: no watch starts, and it lists again', async () => {
    const store = new ScriptedStore([listAt('4', 'a'), listAt('5', 'a')]);
    let calls = 0;
    const failures: string[] = [];
    const listWatch = new ListWatch({
      store,
      user,
      retryMs: 10,
      onList: async () => {
        if (calls++ === 0) throw new Error('not served yet');
      },
      onEvent: () => {},
      onListError: (err) => void failures.push(err.message),
      onWatchError: () => {},
    });
    await listWatch.start();
    expect(store.watches).toEqual([]);
    await jest.advanceTimersByTimeAsync(10);
    expect(failures).toEqual(['not served yet']);
    expect(store.watches.map((w) => w.from)).toEqual(['5']);
    listWatch.stop();
  });

  it('lists no more once stopped, also when a relist was already pending', async () => {
    const store = new ScriptedStore([new Error('etcd unavailable'), listAt('3')]);
    const { listWatch } = recorder(store, 50);
    await listWatch.start();
    listWatch.stop();
    await jest.advanceTimersByTimeAsync(1000);
    expect(store.lists).toBe(1);
    expect(store.watches).toEqual([]);
  });
});

describe('DelayedCalls', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('calls after the delay, and never after stop(), also for calls scheduled after it', () => {
    const calls: string[] = [];
    const delayed = new DelayedCalls();
    delayed.after(10, () => calls.push('first'));
    delayed.after(20, () => calls.push('second'));
    jest.advanceTimersByTime(10);
    expect(calls).toEqual(['first']);
    delayed.stop();
    delayed.after(5, () => calls.push('third'));
    jest.advanceTimersByTime(100);
    expect(calls).toEqual(['first']);
  });
});
