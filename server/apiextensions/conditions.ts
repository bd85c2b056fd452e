// CRD status conditions, as apiextensions-apiserver's helpers (FindCRDCondition, SetCRDCondition,
// IsCRDConditionTrue): setting a condition keeps its lastTransitionTime unless the status changes.
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionConditionType,
} from '../api/apiextensions.js';

/** metav1.Time now, RFC 3339 with second precision. */
export function conditionNow(now: Date = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function findCondition(crd: CustomResourceDefinition, type: CustomResourceDefinitionConditionType): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: CustomResourceDefinitionConditionType): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** SetCRDCondition: replaces the condition of the same type; the transition time moves only when status changes. */
export function setCondition(crd: CustomResourceDefinition, cond: CustomResourceDefinitionCondition, now: Date = new Date()): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  const existing = i >= 0 ? conditions[i] : undefined;
  const next: CustomResourceDefinitionCondition = { ...cond };
  next.lastTransitionTime = existing && existing.status === cond.status && existing.lastTransitionTime ? existing.lastTransitionTime : conditionNow(now);
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}
