// PriorityClasses (scheduling.k8s.io/v1): kube's SetDefaults_PriorityClass (preemptionPolicy
// PreemptLowerPriority), ValidatePriorityClass (the system- prefix is reserved for kube's two system classes,
// user values at most one billion, preemptionPolicy enum), ValidatePriorityClassUpdate (value and preemptionPolicy
// immutable), and the bootstrap classes (pkg/apis/scheduling/types.go, pkg/apis/scheduling/v1/helpers.go).
// "At most one globalDefault" is kube's Priority admission plugin, run here as part of create/update validation.
import { fieldErrors, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';

export const systemPriorityClassPrefix = 'system-';
const highestUserDefinablePriority = 1_000_000_000;
const systemCriticalPriority = 2 * highestUserDefinablePriority;

/** kube's SystemPriorityClasses(), created at startup by the scheduling/bootstrap-system-priority-classes hook. */
export const systemPriorityClasses: ReadonlyArray<{ name: string; value: number; description: string }> = [
  { name: 'system-node-critical', value: systemCriticalPriority + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: systemCriticalPriority, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

/** IsKnownSystemPriorityClass: the error text kube appends after "error: ". */
function knownSystemPriorityClassError(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const spc = systemPriorityClasses.find((c) => c.name === name);
  if (!spc) return `${name} is not a known system priority class`;
  if (spc.value !== value) return `value of ${name} PriorityClass must be ${spc.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

const preemptionPolicies = ['Never', 'PreemptLowerPriority'];

export const priorityClassStrategy: Strategy = {
  applyDefaults(o) {
    if (o['preemptionPolicy'] === undefined || o['preemptionPolicy'] === null) o['preemptionPolicy'] = 'PreemptLowerPriority';
  },
  validate(o) {
    const errs: FieldError[] = [];
    const name = o.metadata?.name ?? '';
    const value = typeof o['value'] === 'number' ? o['value'] : 0;
    if (name.startsWith(systemPriorityClassPrefix)) {
      const err = knownSystemPriorityClassError(name, value, o['globalDefault'] === true);
      if (err) errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${err}`));
    } else if (value > highestUserDefinablePriority) {
      errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
    }
    const policy = o['preemptionPolicy'];
    if (policy !== undefined && policy !== null && !preemptionPolicies.includes(String(policy))) errs.push(fieldErrors.notSupported('preemptionPolicy', policy, preemptionPolicies));
    return errs;
  },
  validateUpdate(o, old) {
    const errs: FieldError[] = [];
    if ((o['value'] ?? 0) !== (old['value'] ?? 0)) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
    if ((o['preemptionPolicy'] ?? null) !== (old['preemptionPolicy'] ?? null)) errs.push(fieldErrors.invalid('preemptionPolicy', o['preemptionPolicy'] ?? null, 'field is immutable'));
    return errs;
  },
};

/** The bootstrap object of a system class, as kube's AddSystemPriorityClasses creates it. */
export function systemPriorityClassObject(c: { name: string; value: number; description: string }): KubeObject {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: c.name }, value: c.value, description: c.description };
}
