import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { WorkQueue, type WorkResult } from './work-queue.js';

describe('WorkQueue', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  function queue(results: Record<string, WorkResult[]>, ready = () => true) {
    const seen: string[] = [];
    let release: (() => void) | undefined;
    const q = new WorkQueue({
      workers: 1,
      baseDelayMs: 100,
      maxDelayMs: 400,
      ready,
      onError: () => {},
      process: async (key) => {
        seen.push(key);
        if (key === 'slow') await new Promise<void>((r) => (release = r));
        return results[key]?.shift() ?? 'done';
      },
    });
    return { q, seen, release: () => release?.() };
  }

  it('queues a key once, and processes a key added while it runs once more afterwards', async () => {
    const { q, seen, release } = queue({});
    q.add('slow');
    q.add('slow');
    await jest.advanceTimersByTimeAsync(0);
    q.add('slow');
    q.add('slow');
    release();
    await jest.advanceTimersByTimeAsync(0);
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(['slow', 'slow']);
    q.stop();
  });

  it('retries a failed key after a doubling delay, capped', async () => {
    const { q, seen } = queue({ k: ['retry', 'retry', 'retry', 'retry', 'done'] });
    q.add('k');
    await jest.advanceTimersByTimeAsync(0);
    const at: number[] = [];
    for (const t of [99, 1, 199, 1, 399, 1, 399, 1]) {
      await jest.advanceTimersByTimeAsync(t);
      at.push(seen.length);
    }
    expect(at).toEqual([1, 2, 2, 3, 3, 4, 4, 5]);
    q.stop();
  });

  it('takes nothing off the queue until ready, then everything on pump()', async () => {
    let ready = false;
    const { q, seen } = queue({}, () => ready);
    q.add('a');
    q.add('b');
    await jest.advanceTimersByTimeAsync(0);
    expect(seen).toEqual([]);
    ready = true;
    q.pump();
    await jest.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(['a', 'b']);
    q.stop();
  });
});
