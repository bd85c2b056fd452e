// Resource names and quantities as kube's core validation checks them (validateResourceName,
// validateContainerResourceName, ValidateResourceQuantityValue, ValidatePositiveQuantityValue), shared by nodes,
// persistent volumes and claims, limit ranges and resource quotas. Bad quantity values print as sent: kube prints
// some of them with Go's %#v of resource.Quantity, which is not reproduced.
import { fieldErrors, type FieldError, type FieldPath } from '../../../api/field.js';
import { quantityString, quantityValue } from '../../validation/quantity.js';
import { isQualifiedName } from '../../validation/name.js';

const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'storage',
  'requests.storage', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
// Resources counted in whole units (helper.IsIntegerResourceName).
const integerResources = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers',
]);

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isQuotaHugePages = (name: string): boolean => isHugePages(name) || name.startsWith('requests.hugepages-') || name.startsWith('limits.hugepages-');

/** helper.IsStandardContainerResourceName */
export function isStandardContainerResourceName(name: string): boolean {
  return standardContainerResources.has(name) || isHugePages(name);
}

/** validateResourceName: a qualified name, and a standard one when it has no prefix. */
export function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/') && !(standardResources.has(name) || isQuotaHugePages(name))) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** validateContainerResourceName */
export function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for containers'));
  }
  return errs;
}

/** ValidateResourceQuantityValue: non-negative, and whole for the resources counted in units. */
export function validateResourceQuantityValue(resource: string, value: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const v = quantityValue(value);
  if (v !== undefined && v < 0) errs.push(fieldErrors.invalid(path, quantityString(value), 'must be greater than or equal to 0'));
  if (v !== undefined && integerResources.has(resource) && !Number.isInteger(v)) errs.push(fieldErrors.invalid(path, quantityString(value), 'must be an integer'));
  return errs;
}

/** ValidatePositiveQuantityValue */
export function validatePositiveQuantity(value: unknown, path: FieldPath): FieldError[] {
  const v = quantityValue(value);
  return v !== undefined && v <= 0 ? [fieldErrors.invalid(path, quantityString(value), 'must be greater than zero')] : [];
}

/** A ResourceList as an object of quantities (absent or malformed: empty). */
export function resourceList(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
