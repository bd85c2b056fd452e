// kube's cases for its etcd health and readiness checks (k8s.io/apiserver storagebackend/factory: factory_test.go's
// TestCreateHealthcheck, TestRateLimitHealthcheck and TestTimeTravelHealthcheck, etcd3_test.go's Test_atomicLastError),
// with the probe (kube's mocked KV Get) given as a function and the limiter's clock moved by hand.
import { etcdCheck, etcdHealthKey, LastProbeError } from './etcd-health-check.js';

/** A probe whose answers the test gives, one pending call at a time. */
class ControlledProbe {
  calls = 0;
  private pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  readonly probe = (): Promise<void> => {
    this.calls++;
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  };
  answer(i: number, err?: Error): void {
    const p = this.pending[i]!;
    if (err) p.reject(err);
    else p.resolve();
  }
}

const outcome = (p: Promise<void>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: Error) => e.message,
  );

describe('LastProbeError (kube: Test_atomicLastError)', () => {
  it('takes any answer while it has none with a time, then only answers of later probes', () => {
    const last = new LastProbeError(new Error('initial error'));
    // no timestamp is always updated
    last.store(new Error('updated error'), 0);
    expect(last.load()?.message).toBe('updated error');
    const now = 1_000_000;
    last.store(new Error('now error'), now);
    expect(last.load()?.message).toBe('now error');
    // no update to past time
    last.store(new Error('past error'), now - 5000);
    expect(last.load()?.message).toBe('now error');
  });
});

describe('etcdCheck', () => {
  // kube: TestCreateHealthcheck / TestCreateReadycheck
  it('is ok when etcd answers within the timeout', async () => {
    const check = etcdCheck(() => new Promise((r) => setTimeout(r, 10)), { timeoutMs: 5000 });
    await expect(check()).resolves.toBeUndefined();
  });

  it('fails with the deadline when etcd answers after the timeout', async () => {
    const check = etcdCheck(() => new Promise(() => {}), { timeoutMs: 30 });
    await expect(check()).rejects.toThrow('error getting data from etcd: context deadline exceeded');
  });

  it('waits for etcd under a timeout longer than a timer can hold (it does not fire at once)', async () => {
    const check = etcdCheck(() => new Promise((r) => setTimeout(r, 20)), { timeoutMs: 2 ** 40 });
    await expect(check()).resolves.toBeUndefined();
  });

  // kube: TestRateLimitHealthcheck
  it.each([
    ['etcd ok', undefined, 'ok'],
    ['etcd down', new Error('etcd down'), 'error getting data from etcd: etcd down'],
  ] as const)('%s: one probe per half timeout, every other call answered with its result', async (_name, err, want) => {
    let now = 1000;
    let calls = 0;
    const probe = async (): Promise<void> => {
      calls++;
      if (err) throw err;
    };
    const check = etcdCheck(probe, { timeoutMs: 5000, now: () => now });
    // a first request obtains the state
    expect(await outcome(check())).toBe(want);
    // requests in parallel get the same state without calling etcd
    expect(new Set(await Promise.all(Array.from({ length: 100 }, () => outcome(check()))))).toEqual(new Set([want]));
    expect(calls).toBe(1);
    // once the rate limit allows a new probe, only one of the next requests sends it
    now += 5000 / 2;
    expect(new Set(await Promise.all(Array.from({ length: 100 }, () => outcome(check()))))).toEqual(new Set([want]));
    expect(calls).toBe(2);
  });

  // kube: TestTimeTravelHealthcheck
  it('does not let a late failure replace the answer of a probe sent after it', async () => {
    let now = 1000;
    const etcd = new ControlledProbe();
    const check = etcdCheck(etcd.probe, { timeoutMs: 5000, now: () => now });
    const first = outcome(check());
    now += 5000 / 2;
    // a new request is allowed, and succeeds while the first is still waiting
    const second = outcome(check());
    expect(etcd.calls).toBe(2);
    etcd.answer(1);
    expect(await second).toBe('ok');
    // the first fails late
    etcd.answer(0, new Error('etcd down'));
    expect(await first).toBe('error getting data from etcd: etcd down');
    // the cached answer is still the success, and etcd was not asked again
    expect(await outcome(check())).toBe('ok');
    expect(etcd.calls).toBe(2);
  });

  it('answers "etcd client connection not yet established" while the first probe has not answered', async () => {
    const etcd = new ControlledProbe();
    const check = etcdCheck(etcd.probe, { timeoutMs: 5000, now: () => 1000 });
    const first = outcome(check());
    expect(await outcome(check())).toBe('etcd client connection not yet established');
    etcd.answer(0);
    expect(await first).toBe('ok');
    expect(await outcome(check())).toBe('ok');
  });
});

describe('etcdHealthKey', () => {
  it.each([
    ['/registry', '/registry/health'],
    ['registry', '/registry/health'],
    ['/registry/', '/registry/health'],
    ['', '/health'],
    ['/', '/health'],
    ['/a/../b//c', '/b/c/health'],
  ])('path.Join("/", %j, "health") is %j', (prefix, key) => {
    expect(etcdHealthKey(prefix)).toBe(key);
  });
});
