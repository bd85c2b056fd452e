import { ReadCoalescer, type CoalescedRead } from './read-coalescer.js';

class Transient extends Error {}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(e: unknown): void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A coalescer over strings whose calls are recorded and answered by the test. */
function harness(maxBatch = 128, maxWaitMs = 5) {
  const batches: Array<{ requests: string[]; answer: Deferred<string[]> }> = [];
  const alone: string[] = [];
  const c = new ReadCoalescer<string, string>({
    sendBatch: (requests) => {
      const answer = deferred<string[]>();
      batches.push({ requests, answer });
      return answer.promise;
    },
    maxBatch,
    maxWaitMs,
    isTransient: (err) => err instanceof Transient,
  });
  const read = (request: string, aloneAnswer: () => Promise<string> = async () => `alone:${request}`): Promise<string> => {
    const r: CoalescedRead<string, string> = {
      request,
      alone: () => {
        alone.push(request);
        return aloneAnswer();
      },
      transientError: (err) => new Error(`${request} unavailable: ${(err as Error).message}`),
    };
    return c.read(r);
  };
  return { c, read, batches, alone };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('ReadCoalescer', () => {
  it('sends a lone read as itself', async () => {
    const h = harness();
    await expect(h.read('a')).resolves.toBe('alone:a');
    expect(h.batches).toHaveLength(0);
    expect(h.alone).toEqual(['a']);
  });

  it('sends the reads of one tick as one batch and answers each in order', async () => {
    const h = harness();
    const reads = ['a', 'b', 'c'].map((r) => h.read(r));
    await tick();
    expect(h.batches.map((b) => b.requests)).toEqual([['a', 'b', 'c']]);
    h.batches[0]!.answer.resolve(['A', 'B', 'C']);
    await expect(Promise.all(reads)).resolves.toEqual(['A', 'B', 'C']);
    expect(h.alone).toEqual([]);
  });

  it('holds reads that arrive while a batch is out and sends them together when it returns', async () => {
    const h = harness(128, 60_000);
    const first = [h.read('a'), h.read('b')];
    await tick();
    const later = [h.read('c'), h.read('d'), h.read('e')];
    await tick();
    expect(h.batches).toHaveLength(1);
    h.batches[0]!.answer.resolve(['A', 'B']);
    await expect(Promise.all(first)).resolves.toEqual(['A', 'B']);
    await tick();
    expect(h.batches.map((b) => b.requests)).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    h.batches[1]!.answer.resolve(['C', 'D', 'E']);
    await expect(Promise.all(later)).resolves.toEqual(['C', 'D', 'E']);
  });

  it('does not hold a read longer than maxWaitMs behind a batch that does not return', async () => {
    const h = harness(128, 5);
    void h.read('a');
    void h.read('b');
    await tick();
    const late = [h.read('c'), h.read('d')];
    // the first batch never answers; the held reads go out on their own once the wait is over
    for (const deadline = Date.now() + 5000; h.batches.length < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 1));
    expect(h.batches.map((b) => b.requests)).toEqual([['a', 'b'], ['c', 'd']]);
    h.batches[1]!.answer.resolve(['C', 'D']);
    await expect(Promise.all(late)).resolves.toEqual(['C', 'D']);
  });

  it('splits a queue longer than maxBatch into several batches', async () => {
    const h = harness(2);
    const reads = ['a', 'b', 'c', 'd', 'e'].map((r) => h.read(r));
    await tick();
    expect(h.batches.map((b) => b.requests)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(h.alone).toEqual(['e']);
    for (const b of h.batches) b.answer.resolve(b.requests.map((r) => r.toUpperCase()));
    await expect(Promise.all(reads)).resolves.toEqual(['A', 'B', 'C', 'D', 'alone:e']);
  });

  it('fails every read of a batch that failed transiently with that read’s own error, without sending it again', async () => {
    const h = harness();
    const reads = ['a', 'b'].map((r) => h.read(r));
    await tick();
    h.batches[0]!.answer.reject(new Transient('connection refused'));
    const settled = await Promise.allSettled(reads);
    expect(settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : s.value))).toEqual([
      'a unavailable: connection refused',
      'b unavailable: connection refused',
    ]);
    expect(h.alone).toEqual([]);
  });

  it('sends each read of a batch that etcd refused on its own, so that each gets its own answer or error', async () => {
    const h = harness();
    const good = h.read('a');
    const bad = h.read('compacted', async () => {
      throw new Error('required revision has been compacted');
    });
    await tick();
    h.batches[0]!.answer.reject(new Error('required revision has been compacted'));
    await expect(good).resolves.toBe('alone:a');
    await expect(bad).rejects.toThrow('required revision has been compacted');
    expect(h.alone.sort()).toEqual(['a', 'compacted']);
  });
});
