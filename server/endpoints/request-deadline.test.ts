import { callBudget } from '../admission/webhook/client.js';
import { requestDeadlinePassed } from '../admission/webhook/deadline.js';
import { handlerDeadline, requestDeadline, requestTimeoutMaximumMs, requestTimeoutUpperBoundMs } from './request-deadline.js';

const seconds = (s: number): bigint => BigInt(s) * 1_000_000_000n;

describe('the request deadline (kube WithRequestDeadline, requestTimeoutUpperBound)', () => {
  it.each([
    ['no ?timeout=', undefined, requestTimeoutMaximumMs],
    ['?timeout=0s means none of the user', seconds(0), requestTimeoutMaximumMs],
    ['?timeout=10s', seconds(10), 10_000],
    ['?timeout=1500ms', 1_500_000_000n, 1_500],
    ['a timeout at the maximum', seconds(60), requestTimeoutMaximumMs],
    ['a timeout above the maximum', seconds(600), requestTimeoutMaximumMs],
  ])('%s', (_name, timeout, expected) => {
    expect(requestDeadline(1000, timeout)).toBe(1000 + expected);
  });

  it('the write handlers cap it at 34 s', () => {
    expect(handlerDeadline(100 + requestTimeoutMaximumMs, 100)).toBe(100 + requestTimeoutUpperBoundMs);
    expect(handlerDeadline(100 + 3_000, 100)).toBe(3_100);
    expect(handlerDeadline(undefined, 100)).toBe(100 + requestTimeoutUpperBoundMs);
  });

  it('the dispatchers see it passed at the deadline, not before', () => {
    expect(requestDeadlinePassed({ deadline: 500 }, 499.9)).toBe(false);
    expect(requestDeadlinePassed({ deadline: 500 }, 500)).toBe(true);
    expect(requestDeadlinePassed({}, 1e12)).toBe(false);
  });
});

describe('a webhook call gets min(timeoutSeconds, what is left of the request), rounded up to the second', () => {
  it.each([
    ['its own timeout when the request has more left', 10, 1000 + 20_000, 10_000, 10, false],
    ['the request when less is left', 20, 1000 + 9_999.5, 9_999.5, 10, true],
    ['a second started counts whole (8 s after 2.1 s of 10 s)', 20, 1000 + 7_900, 7_900, 8, true],
    ['nothing once the request has passed its deadline', 10, 900, -100, 0, true],
    ['its own timeout without a request deadline', 30, undefined, 30_000, 30, false],
  ])('%s', (_name, own, deadline, ms, secs, fromRequest) => {
    expect(callBudget(own, deadline, 1000)).toEqual({ ms, seconds: secs, fromRequest });
  });
});
