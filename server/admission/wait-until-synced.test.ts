import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { deploymentAttributes } from './policy/test-fixtures.js';
import { waitUntilSynced } from './wait-until-synced.js';

describe('waitUntilSynced (admission.Handler.WaitForReady)', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('checks again after 1, 2, 4, … ms, at most every 100 ms, and goes on at the first check that finds the sources synced', async () => {
    const start = Date.now();
    const checks: number[] = [];
    let synced = false;
    let resolved = false;
    const done = waitUntilSynced(
      () => {
        checks.push(Date.now() - start);
        return synced;
      },
      deploymentAttributes(),
      10_000,
    ).then(() => (resolved = true));
    await jest.advanceTimersByTimeAsync(330);
    expect(checks).toEqual([0, 1, 3, 7, 15, 31, 63, 127, 227, 327]);
    expect(resolved).toBe(false);
    synced = true;
    await jest.advanceTimersByTimeAsync(100);
    await done;
    expect(checks.at(-1)).toBe(427);
  });

  it("refuses the request with kube's Forbidden once the timeout passed", async () => {
    const outcome = waitUntilSynced(() => false, deploymentAttributes(), 10_000).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(10_100);
    expect(await outcome).toMatchObject({ status: { code: 403, reason: 'Forbidden', message: 'deployments.apps "web" is forbidden: not yet ready to handle request' } });
  });
});
