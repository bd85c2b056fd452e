// kube's mutating.policyReinvokeContext, kept per request in attrs.reinvocation.values under the plugin's name.
// An invocation is one (policy, binding, param); one with reinvocationPolicy IfNeeded that ran is due again in the
// chain's reinvocation round when the object changed after it: by a later invocation of this plugin, or by a later
// plugin (a mutating webhook) before the round.
import { deepCopyJSON } from '../../../api/deep-copy.js';
import type { KubeObject } from '../../../api/types.js';
import { semanticallyEqual } from '../../webhook/mutating.js';

/** kube's key{PolicyUID, BindingUID, ParamUID}: names, since policies and bindings are cluster-scoped. */
export function invocationKey(policy: { source: string; name: string }, binding: string, param: KubeObject | null): string {
  const p = param ? `${param.metadata?.namespace ?? ''}/${param.metadata?.name ?? ''}` : '';
  return JSON.stringify([policy.source, policy.name, binding, p]);
}

export class PolicyReinvokeContext {
  /** the object as the plugin's last run left it */
  private lastPolicyOutput: KubeObject | undefined;
  /** IfNeeded invocations that ran and are to be reinvoked if the object changes later */
  private previouslyInvokedReinvocablePolicies = new Set<string>();
  /** invocations to run in the reinvocation round */
  private readonly reinvokePolicies = new Set<string>();

  shouldReinvoke(key: string): boolean {
    return this.reinvokePolicies.has(key);
  }

  isOutputChangedSinceLastPolicyInvocation(object: KubeObject | undefined): boolean {
    return !semanticallyEqual(this.lastPolicyOutput, object);
  }

  setLastPolicyInvocationOutput(object: KubeObject | undefined): void {
    this.lastPolicyOutput = object === undefined ? undefined : deepCopyJSON(object);
  }

  addReinvocablePolicyToPreviouslyInvoked(key: string): void {
    this.previouslyInvokedReinvocablePolicies.add(key);
  }

  requireReinvokingPreviouslyInvokedPlugins(): void {
    if (this.previouslyInvokedReinvocablePolicies.size === 0) return;
    for (const key of this.previouslyInvokedReinvocablePolicies) this.reinvokePolicies.add(key);
    this.previouslyInvokedReinvocablePolicies = new Set();
  }
}
