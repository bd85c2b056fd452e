// useApiServer/useWebhookServer with the hooks a test framework passes (vitest without globals, node:test), and
// what a test sees when the start failed: jest and vitest run the tests after a failed beforeAll, so each must
// show the start's error, not "only available inside tests".
import { useApiServer, useWebhookServer, type JestStyleHooks, type NodeTestHooks } from './jest.js';

interface Recorded {
  beforeAll: Array<{ fn: () => Promise<void>; timeout: number | undefined }>;
  afterAll: Array<{ fn: () => Promise<void>; timeout: number | undefined }>;
}

function jestStyle(): { hooks: JestStyleHooks; recorded: Recorded } {
  const recorded: Recorded = { beforeAll: [], afterAll: [] };
  return {
    recorded,
    hooks: {
      beforeAll: (fn, timeout) => recorded.beforeAll.push({ fn, timeout }),
      afterAll: (fn, timeout) => recorded.afterAll.push({ fn, timeout }),
    },
  };
}

function nodeTestStyle(): { hooks: NodeTestHooks; recorded: Recorded } {
  const recorded: Recorded = { beforeAll: [], afterAll: [] };
  return {
    recorded,
    hooks: {
      before: (fn, options) => recorded.beforeAll.push({ fn, timeout: options?.timeout }),
      after: (fn, options) => recorded.afterAll.push({ fn, timeout: options?.timeout }),
    },
  };
}

describe('useApiServer with a start that fails (no etcd binary)', () => {
  it.each([
    ['jest-style hooks (vitest)', jestStyle],
    ['node:test hooks', nodeTestStyle],
  ])('registers its hooks with timeouts through %s, and a getter rethrows the start error', async (_name, make) => {
    const { hooks, recorded } = make();
    const env = useApiServer({ etcd: { binary: '/nonexistent/kah-test/etcd' } }, hooks);
    expect(recorded.beforeAll).toHaveLength(1);
    expect(recorded.afterAll).toHaveLength(1);
    expect(recorded.beforeAll[0]!.timeout).toBeGreaterThan(30_000);
    expect(recorded.afterAll[0]!.timeout).toBeGreaterThan(0);
    expect(() => env.server).toThrow('the apiserver of useApiServer() is only available inside tests (after beforeAll)');

    await expect(recorded.beforeAll[0]!.fn()).rejects.toThrow('/nonexistent/kah-test/etcd (from the binary option) does not exist or is not an executable file');
    // The test body after the failed beforeAll: the same cause, not a second, misleading error.
    let thrown: unknown;
    try {
      env.client(class {} as never);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/^the apiserver of useApiServer\(\) did not start: .*\/nonexistent\/kah-test\/etcd \(from the binary option\) does not exist/);
    expect((thrown as Error).message).not.toContain('only available inside tests');
    await recorded.afterAll[0]!.fn();
  });
});

describe('useWebhookServer with passed hooks', () => {
  it('starts in beforeAll and closes in afterAll with node:test hooks', async () => {
    const { hooks, recorded } = nodeTestStyle();
    const env = useWebhookServer({}, hooks);
    await recorded.beforeAll[0]!.fn();
    expect(env.url('/validate')).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/validate$/);
    await recorded.afterAll[0]!.fn();
    expect(() => env.url()).toThrow('only available inside tests');
  });

  it('refuses resetBeforeEach without a beforeEach hook, saying what is missing', () => {
    expect(() => useWebhookServer({ resetBeforeEach: true }, jestStyle().hooks)).toThrow('needs a beforeEach hook');
  });
});
