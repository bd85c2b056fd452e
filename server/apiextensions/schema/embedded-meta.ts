// Validation of TypeMeta and ObjectMeta inside x-kubernetes-embedded-resource values
// (apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation.go): apiVersion and kind are required,
// kind is a DNS-1035 label in any case, and metadata is a valid ObjectMeta with path-segment names.
import { FieldPath, fieldErrors, type FieldError } from '../../api/field.js';
import type { ObjectMeta } from '../../api/types.js';
import { isDNS1035Label } from '../../registry/validation/name.js';
import { validateObjectMetaCreate } from '../../registry/validation/object-meta.js';
import { asResourceRoot, type CompiledSchema } from './compiled.js';
import { kindOf, type JSONObject } from './json-value.js';

// Go's names for JSON value kinds in json.UnmarshalTypeError
const goJSONKind = (v: unknown): string => {
  const k = kindOf(v);
  return k === 'map' ? 'object' : k === 'slice' ? 'array' : k === 'int' || k === 'float' ? 'number' : k === 'bool' ? 'bool' : k;
};

const stringFields = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'];
const numberFields = ['generation', 'deletionGracePeriodSeconds'];
const stringMapFields = ['labels', 'annotations'];

/** json.Unmarshal into metav1.ObjectMeta: the first type mismatch, as encoding/json reports it. */
export function objectMetaUnmarshalError(meta: unknown): string | undefined {
  if (meta === null) return undefined;
  if (kindOf(meta) !== 'map') return `json: cannot unmarshal ${goJSONKind(meta)} into Go value of type v1.ObjectMeta`;
  const m = meta as JSONObject;
  const mismatch = (field: string, goType: string, v: unknown) =>
    `json: cannot unmarshal ${goJSONKind(v)} into Go struct field ObjectMeta.${field} of type ${goType}`;
  for (const f of stringFields) {
    if (m[f] !== undefined && m[f] !== null && typeof m[f] !== 'string') return mismatch(f, 'string', m[f]);
  }
  for (const f of numberFields) {
    if (m[f] !== undefined && m[f] !== null && kindOf(m[f]) !== 'int') return mismatch(f, 'int64', m[f]);
  }
  for (const f of stringMapFields) {
    const v = m[f];
    if (v === undefined || v === null) continue;
    if (kindOf(v) !== 'map') return mismatch(f, 'map[string]string', v);
    for (const x of Object.values(v as JSONObject)) if (typeof x !== 'string' && x !== null) return mismatch(`${f}`, 'string', x);
  }
  if (m.finalizers !== undefined && m.finalizers !== null) {
    if (!Array.isArray(m.finalizers)) return mismatch('finalizers', '[]string', m.finalizers);
    for (const x of m.finalizers) if (typeof x !== 'string') return mismatch('finalizers', 'string', x);
  }
  for (const f of ['ownerReferences', 'managedFields']) {
    if (m[f] !== undefined && m[f] !== null && !Array.isArray(m[f])) return mismatch(f, f === 'ownerReferences' ? '[]v1.OwnerReference' : '[]v1.ManagedFieldsEntry', m[f]);
  }
  return undefined;
}

// schema.ParseGroupVersion: more than one slash is an error
function parseGroupVersionError(apiVersion: string): string | undefined {
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

function validateEmbeddedResource(path: FieldPath, x: JSONObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(fieldErrors.required(path.child('apiVersion')));
  if (!('kind' in x)) errs.push(fieldErrors.required(path.child('kind')));
  for (const [k, v] of Object.entries(x)) {
    switch (k) {
      case 'apiVersion': {
        if (typeof v !== 'string') errs.push(fieldErrors.invalid(path.child('apiVersion'), v, 'must be a string'));
        else if (v === '') errs.push(fieldErrors.required(path.child('apiVersion')));
        else {
          const err = parseGroupVersionError(v);
          if (err) errs.push(fieldErrors.invalid(path.child('apiVersion'), v, err));
        }
        break;
      }
      case 'kind': {
        if (typeof v !== 'string') errs.push(fieldErrors.invalid(path.child('kind'), v, 'must be a string'));
        else if (v === '') errs.push(fieldErrors.required(path.child('kind')));
        else {
          const msgs = isDNS1035Label(v.toLowerCase());
          if (msgs.length > 0) errs.push(fieldErrors.invalid(path.child('kind'), v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
        }
        break;
      }
      case 'metadata': {
        const err = objectMetaUnmarshalError(v);
        if (err) {
          errs.push(fieldErrors.invalid(path.child('metadata'), v, err));
        } else if (v !== null) {
          const meta = { ...(v as ObjectMeta) };
          // kube sets a name so that a missing one is not reported for embedded objects
          if (!meta.name) meta.name = 'fakename';
          errs.push(...validateObjectMetaCreate(meta, { namespaced: !!meta.namespace, nameRule: 'PathSegment' }, path.child('metadata')));
        }
        break;
      }
    }
  }
  return errs;
}

function validate(path: FieldPath, x: unknown, s: CompiledSchema | undefined): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const kind = kindOf(x);
  if (kind === 'map') {
    const obj = x as JSONObject;
    if (s.embeddedResource) errs.push(...validateEmbeddedResource(path, obj));
    for (const [k, v] of Object.entries(obj)) {
      const prop = s.properties.get(k);
      if (prop) errs.push(...validate(path.child(k), v, prop));
      else if (s.additionalProperties) errs.push(...validate(path.key(k), v, s.additionalProperties.schema));
    }
  } else if (kind === 'slice') {
    (x as unknown[]).forEach((v, i) => errs.push(...validate(path.index(i), v, s.items)));
  }
  return errs;
}

/** objectmeta.Validate: embedded resources anywhere in x, and the root itself when isResourceRoot. */
export function validateEmbeddedObjectMeta(x: unknown, s: CompiledSchema | undefined, isResourceRoot: boolean, path = FieldPath.root('')): FieldError[] {
  return validate(path, x, isResourceRoot ? asResourceRoot(s) : s);
}
