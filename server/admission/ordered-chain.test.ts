// The chain runs plugins in order whether they answer synchronously (nothing to do for the request) or with a
// promise, and observes every call as kube's pluginHandlerWithMetrics does: once, with rejected=true when it failed.
import type { AdmissionOperation } from './attributes.js';
import type { AdmissionPlugin } from './chain.js';
import { OrderedAdmissionChain, type AdmissionObserver } from './ordered-chain.js';
import { fakeAttributes } from './plugins/fake-admission.js';

interface Observed {
  name: string;
  type: string;
  operation: AdmissionOperation;
  rejected: boolean;
}

function recorder(): { observer: AdmissionObserver; plugins: Observed[]; steps: Observed[] } {
  const plugins: Observed[] = [];
  const steps: Observed[] = [];
  return {
    plugins,
    steps,
    observer: {
      plugin: (name, type, operation, rejected, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        plugins.push({ name, type, operation, rejected });
      },
      step: (type, operation, rejected) => steps.push({ name: '', type, operation, rejected }),
    },
  };
}

const all = (): boolean => true;

function plugin(name: string, calls: string[], how: 'sync' | 'async' | 'throw' | 'reject'): AdmissionPlugin {
  const run = (phase: string) => (): Promise<void> | void => {
    calls.push(`${name}:${phase}`);
    if (how === 'throw') throw new Error(`${name} refused`);
    if (how === 'reject') return Promise.reject(new Error(`${name} refused`));
    if (how === 'async') return new Promise<void>((resolve) => setImmediate(resolve)).then(() => void calls.push(`${name}:${phase}:done`));
    return undefined;
  };
  return { name, handles: all, admit: run('admit'), validate: run('validate') };
}

describe('OrderedAdmissionChain with synchronous and asynchronous plugins', () => {
  it('runs them in order, each after the last one ended, and observes each call once', async () => {
    const calls: string[] = [];
    const { observer, plugins, steps } = recorder();
    const chain = new OrderedAdmissionChain([plugin('A', calls, 'sync'), plugin('B', calls, 'async'), plugin('C', calls, 'sync')], observer);
    const attrs = fakeAttributes({});
    await chain.admit(attrs);
    await chain.validate(attrs);
    expect(calls).toEqual(['A:admit', 'B:admit', 'B:admit:done', 'C:admit', 'A:validate', 'B:validate', 'B:validate:done', 'C:validate']);
    expect(plugins.map((o) => `${o.name}/${o.type}/${o.rejected}`)).toEqual(['A/admit/false', 'B/admit/false', 'C/admit/false', 'A/validate/false', 'B/validate/false', 'C/validate/false']);
    expect(steps.map((o) => `${o.type}/${o.rejected}`)).toEqual(['admit/false', 'validate/false']);
  });

  it.each([['throw' as const], ['reject' as const]])('a plugin that fails (%s) stops the chain, is observed as rejected, and fails the step', async (how) => {
    const calls: string[] = [];
    const { observer, plugins, steps } = recorder();
    const chain = new OrderedAdmissionChain([plugin('A', calls, 'sync'), plugin('B', calls, how), plugin('C', calls, 'sync')], observer);
    await expect(chain.admit(fakeAttributes({}))).rejects.toThrow('B refused');
    expect(calls).toEqual(['A:admit', 'B:admit']);
    expect(plugins.map((o) => `${o.name}/${o.rejected}`)).toEqual(['A/false', 'B/true']);
    expect(steps.map((o) => `${o.type}/${o.rejected}`)).toEqual(['admit/true']);
  });

  it('skips plugins that do not handle the operation or have no such phase, without observing them', async () => {
    const calls: string[] = [];
    const { observer, plugins } = recorder();
    const createOnly: AdmissionPlugin = { ...plugin('CreateOnly', calls, 'sync'), handles: (op) => op === 'CREATE' };
    const admitOnly: AdmissionPlugin = { name: 'AdmitOnly', handles: all, admit: () => void calls.push('AdmitOnly:admit') };
    const chain = new OrderedAdmissionChain([createOnly, admitOnly], observer);
    await chain.validate(fakeAttributes({ operation: 'UPDATE' }));
    expect(calls).toEqual([]);
    expect(plugins).toEqual([]);
  });
});
