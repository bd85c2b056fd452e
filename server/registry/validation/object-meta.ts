// ObjectMeta validation as k8s.io/apimachinery/pkg/api/validation (ValidateObjectMeta,
// ValidateObjectMetaUpdate) does it: the same checks, in the same order, with the same paths and messages.
// Every resource's create and update runs this before its own strategy validation.
import { FieldPath, fieldErrors, type FieldError } from '../../api/field.js';
import { parseApiVersion, type ManagedFieldsEntry, type ObjectMeta, type OwnerReference } from '../../api/types.js';
import type { NameRule } from '../resource.js';
import { isQualifiedName, isValidLabelValue, nameValidatorFor, validateNamespaceName, type ValidateNameFunc } from './name.js';
import { finalizersOf } from '../object-fields.js';

/** api/validation.FieldImmutableErrorMsg */
export const fieldImmutableErrorMsg = 'field is immutable';
/** api/validation.TotalAnnotationSizeLimitB: 256 KiB over all keys and values. */
export const totalAnnotationSizeLimitB = 256 * (1 << 10);

const finalizerOrphanDependents = 'orphan';
const finalizerDeleteDependents = 'foregroundDeletion';

export interface ObjectMetaCreateOptions {
  namespaced: boolean;
  /** the resource's NameRule, or a ValidateNameFunc of its own */
  nameRule: NameRule | ValidateNameFunc;
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
const asString = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** metav1validation.ValidateLabelName */
export function validateLabelName(labelName: string, path: FieldPath): FieldError[] {
  return isQualifiedName(labelName).map((msg) => fieldErrors.invalid(path, labelName, msg));
}

/** metav1validation.ValidateLabels: keys and values report at the labels path itself, as kube does. */
export function validateLabels(labels: Record<string, string> | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, raw] of Object.entries(labels ?? {})) {
    const v = asString(raw);
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path, v, msg));
  }
  return errs;
}

/** ValidateAnnotationsSize: the sum of key and value bytes. */
export function annotationsSize(annotations: Record<string, string> | undefined | null): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += byteLength(k) + byteLength(asString(v));
  return total;
}

/** ValidateAnnotations: keys are qualified names (case-insensitive), and the total stays under 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, msg));
  }
  if (annotationsSize(annotations) > totalAnnotationSizeLimitB) {
    // field.TooLong omits the value: "metadata.annotations: Too long: must have at most 262144 bytes"
    errs.push({ type: 'TooLong', field: path.toString(), detail: `must have at most ${totalAnnotationSizeLimitB} bytes` });
  }
  return errs;
}

// schema.ParseGroupVersion: "" and "v1" and "g/v" parse, anything with more slashes does not.
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length > 2) return { group: '', version: '' };
  return parseApiVersion(apiVersion);
}

function validateOwnerReference(ref: OwnerReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = asString(ref.apiVersion);
  const kind = asString(ref.kind);
  const gv = groupVersionOf(apiVersion);
  if (gv.version === '') errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
  if (kind === '') errs.push(fieldErrors.invalid(path.child('kind'), kind, 'must not be empty'));
  if (asString(ref.name) === '') errs.push(fieldErrors.invalid(path.child('name'), asString(ref.name), 'must not be empty'));
  if (asString(ref.uid) === '') errs.push(fieldErrors.invalid(path.child('uid'), asString(ref.uid), 'must not be empty'));
  // BannedOwners: an Event cannot own anything.
  if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
    errs.push(fieldErrors.invalid(path, ref, `${gv.group}/${gv.version}, Kind=${kind} is disallowed from being an owner`));
  }
  return errs;
}

/** ValidateOwnerReferences: each reference, and at most one controller. Paths are not indexed, as in kube. */
export function validateOwnerReferences(refs: OwnerReference[] | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  // tolerant of a stored object of another type (see finalizersOf): new bodies are typed by their decoding
  for (const ref of Array.isArray(refs) ? refs : []) {
    errs.push(...validateOwnerReference(ref ?? ({} as OwnerReference), path));
    if (ref?.controller === true) {
      const current = `${asString(ref.kind)}/${asString(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          fieldErrors.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

/** ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
export function validateFinalizers(finalizers: string[] | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let orphan = false;
  let foreground = false;
  for (const raw of Array.isArray(finalizers) ? finalizers : []) {
    const f = asString(raw);
    for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
    if (f === finalizerOrphanDependents) orphan = true;
    if (f === finalizerDeleteDependents) foreground = true;
  }
  if (orphan && foreground) {
    errs.push(fieldErrors.invalid(path, finalizers, `finalizer ${finalizerOrphanDependents} and ${finalizerDeleteDependents} cannot be both set`));
  }
  return errs;
}

const fieldManagerMaxLength = 128;
const maxSubresourceNameLength = 256;

/** metav1validation.ValidateManagedFields */
export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined | null, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = path.index(i);
    const operation = asString(e?.operation);
    if (operation !== 'Apply' && operation !== 'Update') errs.push(fieldErrors.invalid(p.child('operation'), operation, 'must be `Apply` or `Update`'));
    const fieldsType = asString(e?.fieldsType);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') errs.push(fieldErrors.invalid(p.child('fieldsType'), fieldsType, 'must be `FieldsV1`'));
    const manager = asString(e?.manager);
    if (byteLength(manager) > fieldManagerMaxLength) {
      errs.push({ type: 'TooLong', field: p.child('manager').toString(), detail: `must have at most ${fieldManagerMaxLength} bytes` });
    }
    if (byteLength(asString(e?.subresource)) > maxSubresourceNameLength) {
      errs.push({ type: 'TooLong', field: p.child('subresource').toString(), detail: `must have at most ${maxSubresourceNameLength} bytes` });
    }
  });
  return errs;
}

/** ValidateNonnegativeField */
function validateNonnegative(value: number | undefined, path: FieldPath): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fieldErrors.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

// validateObjectMetaAccessorWithOptsCommon: everything but the name, shared by the create paths.
function validateCommon(meta: ObjectMeta, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = asString(meta.namespace);
  if (namespaced) {
    if (namespace === '') errs.push(fieldErrors.required(path.child('namespace')));
    else for (const msg of validateNamespaceName(namespace, false)) errs.push(fieldErrors.invalid(path.child('namespace'), namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldErrors.forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  errs.push(...validateNonnegative(meta.generation, path.child('generation')));
  errs.push(...validateLabels(meta.labels, path.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, path.child('finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, path.child('managedFields')));
  return errs;
}

/**
 * ValidateObjectMeta for a create: generateName (as a prefix) and name per the resource's name rule,
 * namespace required or forbidden by scope, then labels, annotations, owners, finalizers, managed fields.
 */
export function validateObjectMetaCreate(meta: ObjectMeta | undefined, opts: ObjectMetaCreateOptions, path: FieldPath = FieldPath.root('metadata')): FieldError[] {
  const m = meta ?? {};
  const nameFn = typeof opts.nameRule === 'function' ? opts.nameRule : nameValidatorFor(opts.nameRule);
  const errs: FieldError[] = [];
  const generateName = asString(m.generateName);
  const name = asString(m.name);
  if (generateName !== '') {
    for (const msg of nameFn(generateName, true)) errs.push(fieldErrors.invalid(path.child('generateName'), generateName, msg));
  }
  if (name === '') errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(fieldErrors.invalid(path.child('name'), name, msg));
  return errs.concat(validateCommon(m, opts.namespaced, path));
}

// ValidateImmutableField uses semantic equality; for metadata scalars that is plain equality, with unset
// and empty the same thing.
// The bad value is the new one as Go prints it: "" for an unset string field, null for an unset pointer.
function validateImmutable(newVal: unknown, oldVal: unknown, path: FieldPath, pointer = false): FieldError[] {
  const norm = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : v);
  if (norm(newVal) === norm(oldVal)) return [];
  const bad = pointer ? (newVal ?? null) : asString(newVal);
  return [fieldErrors.invalid(path, bad, fieldImmutableErrorMsg)];
}

// Go's %#v of a []string, as ValidateNoNewFinalizers prints the extra finalizers.
const goStringSlice = (items: string[]): string => `[]string{${items.map((s) => JSON.stringify(s)).join(', ')}}`;

/**
 * ValidateObjectMetaUpdate: no new finalizers while deleting, resourceVersion present, generation not
 * decremented, name/namespace/uid/creationTimestamp/deletionTimestamp/deletionGracePeriodSeconds immutable,
 * then labels, annotations, owners and managed fields of the new object.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, path: FieldPath = FieldPath.root('metadata')): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const old = new Set(finalizersOf(o));
    const extra = [...new Set(finalizersOf(n))].filter((f) => !old.has(f)).sort();
    if (extra.length) {
      errs.push(fieldErrors.forbidden(path.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`));
    }
  }
  const rv = asString(n.resourceVersion);
  if (rv === '') errs.push(fieldErrors.invalid(path.child('resourceVersion'), rv, 'must be specified for an update'));
  if ((n.generation ?? 0) < (o.generation ?? 0)) errs.push(fieldErrors.invalid(path.child('generation'), n.generation ?? 0, 'must not be decremented'));
  errs.push(...validateImmutable(n.name, o.name, path.child('name')));
  errs.push(...validateImmutable(n.namespace, o.namespace, path.child('namespace')));
  errs.push(...validateImmutable(n.uid, o.uid, path.child('uid')));
  errs.push(...validateImmutable(n.creationTimestamp, o.creationTimestamp, path.child('creationTimestamp')));
  errs.push(...validateImmutable(n.deletionTimestamp, o.deletionTimestamp, path.child('deletionTimestamp'), true));
  errs.push(...validateImmutable(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, path.child('deletionGracePeriodSeconds'), true));
  errs.push(...validateLabels(n.labels, path.child('labels')));
  errs.push(...validateAnnotations(n.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateManagedFields(n.managedFields, path.child('managedFields')));
  return errs;
}
