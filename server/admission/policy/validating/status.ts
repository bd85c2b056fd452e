// The ValidatingAdmissionPolicy status controller kube-controller-manager runs
// (pkg/controller/validatingadmissionpolicystatus): for every policy whose generation is newer than
// status.observedGeneration it type-checks the expressions and applies `status.observedGeneration` and
// `status.typeChecking` (expressionWarnings only when there are some), leaving the conditions to their owners.
// Type checking needs the schemas of the matched kinds (./typechecking.ts); it is pluggable here, and without a
// checker the status says "checked, no warnings" — which is what kube writes too for kinds it has no schema for.
import type { ExpressionWarning, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyStatus } from '../../../api/admissionregistration.js';
import type { KubeObject, UserInfo } from '../../../api/types.js';
import { metaOf } from '../../../registry/object-fields.js';
import { newRequestContext } from '../../../registry/request-context.js';
import type { ResourceStore } from '../../../registry/store.js';
import { DelayedCalls } from '../../../controllers/delayed-calls.js';
import { ListWatch } from '../../../controllers/list-watch.js';

/**
 * TypeChecker.Check: warnings for spec.validations[i].expression and .messageExpression, each
 * "<group>/<version>, Kind=<kind>: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'…".
 */
export type PolicyTypeChecker = (policy: ValidatingAdmissionPolicy) => ExpressionWarning[] | Promise<ExpressionWarning[]>;

const controllerUser: UserInfo = { username: 'system:serviceaccount:kube-system:validatingadmissionpolicy-status-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };

/** Whether the controller has work for this policy (reconcile's first check). */
export function needsTypeChecking(policy: ValidatingAdmissionPolicy): boolean {
  return (policy.metadata?.generation ?? 0) > (policy.status?.observedGeneration ?? 0);
}

/** The status the controller applies: observedGeneration and typeChecking replaced, other fields kept. */
export function typeCheckedStatus(
  policy: ValidatingAdmissionPolicy,
  typeCheck: readonly ExpressionWarning[] | ((policy: ValidatingAdmissionPolicy) => readonly ExpressionWarning[]) = [],
): ValidatingAdmissionPolicyStatus {
  const warnings = typeof typeCheck === 'function' ? typeCheck(policy) : typeCheck;
  return {
    ...(policy.status ?? {}),
    observedGeneration: policy.metadata?.generation ?? 0,
    typeChecking: warnings.length > 0 ? { expressionWarnings: warnings.map((w) => ({ fieldRef: w.fieldRef, warning: w.warning })) } : {},
  };
}

export interface PolicyStatusControllerDeps {
  store: ResourceStore;
  typeCheck?: PolicyTypeChecker;
  log(msg: string, fields?: Record<string, unknown>): void;
  retryMs?: number;
}

export class ValidatingAdmissionPolicyStatusController {
  private readonly queued = new Set<string>();
  private readonly retries = new DelayedCalls();
  private readonly policies: ListWatch;

  constructor(private readonly deps: PolicyStatusControllerDeps) {
    this.policies = new ListWatch({
      store: deps.store,
      user: controllerUser,
      retryMs: deps.retryMs ?? 1000,
      onList: (items) => {
        for (const p of items) this.enqueue(p);
      },
      onEvent: (e) => {
        if (e.type !== 'DELETED') this.enqueue(e.object);
      },
      onListError: (err) => this.deps.log('validatingadmissionpolicy status controller could not list policies; retrying', { error: err.message }),
      onWatchError: (err) => this.deps.log('validatingadmissionpolicy status controller watch ended; restarting', { error: err.message }),
    });
  }

  /** Reconciles every stored policy, then follows changes. */
  async start(): Promise<void> {
    await this.policies.start();
  }

  stop(): void {
    this.policies.stop();
    this.retries.stop();
  }

  private enqueue(obj: KubeObject): void {
    if (needsTypeChecking(obj as ValidatingAdmissionPolicy)) this.schedule(metaOf(obj).name ?? '');
  }

  private async reconcile(name: string): Promise<void> {
    const ctx = newRequestContext(controllerUser, '');
    try {
      await this.deps.store.update(
        ctx,
        name,
        'status',
        async (current) => {
          const policy = current as ValidatingAdmissionPolicy;
          if (!needsTypeChecking(policy)) return policy;
          // checked inside the compare-and-swap: a spec written meanwhile is checked again, never half-reported
          let warnings: readonly ExpressionWarning[] = [];
          try {
            warnings = (await this.deps.typeCheck?.(policy)) ?? [];
          } catch (err) {
            // kube: type checking errors MUST NOT alter the behavior of the policy; the status says "checked"
            this.deps.log('type checking validatingadmissionpolicy failed', { policy: name, error: (err as Error).message });
          }
          policy.status = typeCheckedStatus(policy, warnings);
          return policy;
        },
        { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'validatingadmissionpolicy-status-controller' },
        false,
      );
    } catch (err) {
      // deleted meanwhile: nothing to do; anything else is retried
      if ((err as { code?: number }).code === 404) return;
      this.deps.log('updating validatingadmissionpolicy status failed; retrying', { policy: name, error: (err as Error).message });
      this.retries.after(this.deps.retryMs ?? 1000, () => this.schedule(name));
    }
  }

  private schedule(name: string): void {
    if (this.queued.has(name)) return;
    this.queued.add(name);
    void this.reconcile(name).finally(() => this.queued.delete(name));
  }
}
