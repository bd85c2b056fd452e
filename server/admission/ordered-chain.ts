// kube-apiserver's admission chain (admission.chainAdmissionHandler + reinvocation): plugins run in kube's order,
// mutating first; when a plugin asks for it (a webhook with reinvocationPolicy IfNeeded saw its object changed by a
// later plugin), the mutating plugins run once more. Validating plugins run after object validation.
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js';
import type { AdmissionChain, AdmissionPlugin } from './chain.js';

/** Timing hooks for apiserver_admission_controller_* and apiserver_admission_step_* metrics. */
export interface AdmissionObserver {
  plugin(name: string, type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  step(type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number): void;
}

// seconds on the monotonic clock, without the BigInt that process.hrtime.bigint() allocates on every reading
const now = (): number => performance.now() / 1000;

export class OrderedAdmissionChain implements AdmissionChain {
  constructor(
    private readonly plugins: readonly AdmissionPlugin[],
    private readonly observer?: AdmissionObserver,
  ) {}

  get pluginNames(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    await this.timedStep('admit', attrs, async () => {
      await this.runMutating(attrs);
      // kube: one reinvocation round, only if some plugin requested it.
      if (attrs.reinvocation.shouldReinvoke) {
        attrs.reinvocation.isReinvoke = true;
        attrs.reinvocation.shouldReinvoke = false;
        await this.runMutating(attrs);
      }
    });
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    await this.timedStep('validate', attrs, async () => {
      for (const p of this.plugins) {
        if (!p.validate || !p.handles(attrs.operation)) continue;
        const ran = this.timedPlugin(p, 'validate', attrs);
        if (ran) await ran;
      }
    });
  }

  private async runMutating(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) {
      if (!p.admit || !p.handles(attrs.operation)) continue;
      const ran = this.timedPlugin(p, 'admit', attrs);
      if (ran) await ran;
    }
  }

  private async timedStep(type: 'admit' | 'validate', attrs: AdmissionAttributes, run: () => Promise<void>): Promise<void> {
    const start = now();
    try {
      await run();
      this.observer?.step(type, attrs.operation, false, now() - start);
    } catch (err) {
      this.observer?.step(type, attrs.operation, true, now() - start);
      throw err;
    }
  }

  /**
   * One plugin's call, timed and observed as kube's pluginHandlerWithMetrics does. A plugin that answered
   * synchronously is observed at once and nothing is returned; otherwise the promise of its observed end (a plain
   * promise chain rather than an async wrapper: one promise less per plugin).
   */
  private timedPlugin(p: AdmissionPlugin, type: 'admit' | 'validate', attrs: AdmissionAttributes): Promise<void> | undefined {
    const start = now();
    let ran: Promise<void> | void;
    try {
      ran = type === 'admit' ? p.admit!(attrs) : p.validate!(attrs);
    } catch (err) {
      // a plugin that throws instead of rejecting is observed as rejected all the same
      this.observer?.plugin(p.name, type, attrs.operation, true, now() - start);
      throw err;
    }
    if (!(ran instanceof Promise)) {
      this.observer?.plugin(p.name, type, attrs.operation, false, now() - start);
      return undefined;
    }
    return ran.then(
      () => this.observer?.plugin(p.name, type, attrs.operation, false, now() - start),
      (err: unknown) => {
        this.observer?.plugin(p.name, type, attrs.operation, true, now() - start);
        throw err;
      },
    );
  }
}
