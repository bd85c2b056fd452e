// The pieces of the test webhooks' HTTPS scaffolding that are plain logic: review bodies and the received log.
import { decodeReviewBody, ReceivedLog } from './https-test-server.js';

describe('decodeReviewBody', () => {
  const problemOf = (v: unknown) => ((v as { kind?: unknown }).kind === 'Review' ? undefined : 'kind is not "Review"');

  it('returns the parsed review when the check finds no problem', () => {
    expect(decodeReviewBody('{"kind":"Review","n":1}', problemOf)).toEqual({ review: { kind: 'Review', n: 1 } });
  });

  it("returns the check's problem", () => {
    expect(decodeReviewBody('{"kind":"Other"}', problemOf)).toEqual({ problem: 'kind is not "Review"' });
  });

  it('says when the body is not JSON', () => {
    expect(decodeReviewBody('nope', problemOf)).toEqual({ problem: expect.stringMatching(/^body is not JSON: /) });
  });
});

describe('ReceivedLog', () => {
  it('resolves a wait once the n-th item is recorded, with the same array the log keeps', async () => {
    const log = new ReceivedLog<number>('Thing');
    const waiting = log.waitFor(2, 5_000);
    log.record(1);
    log.record(2);
    const items = await waiting;
    expect(items).toEqual([1, 2]);
    expect(items).toBe(log.items);
  });

  it('resolves at once when enough items are there', async () => {
    const log = new ReceivedLog<string>('Thing');
    log.record('a');
    await expect(log.waitFor(1, 5_000)).resolves.toEqual(['a']);
  });

  it('rejects naming the kind and the count after the timeout', async () => {
    const log = new ReceivedLog<string>('AdmissionReview');
    log.record('a');
    await expect(log.waitFor(3, 20)).rejects.toThrow('expected 3 AdmissionReview(s) within 20 ms, got 1');
  });

  it('clear() empties the array in place', () => {
    const log = new ReceivedLog<string>('Thing');
    const items = log.items;
    log.record('a');
    log.clear();
    expect(items).toEqual([]);
    expect(log.items).toBe(items);
  });
});
