// ConfigMaps and Secrets: key validation (IsConfigMapKey) and, for secrets, the Opaque default and base64 data.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { setDefault, type Obj } from '../fields.js';

const configKey = /^[-._a-zA-Z0-9]+$/;

function validateKeys(obj: KubeObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const f of fields) {
    const m = obj[f];
    if (m === undefined || m === null) continue;
    for (const key of Object.keys(m as object)) {
      const path = FieldPath.root(f).key(key);
      if (key.length > 253) errs.push(fieldErrors.invalid(path, key, 'must be no more than 253 characters'));
      else if (!configKey.test(key)) errs.push(fieldErrors.invalid(path, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
      if (seen.has(key)) errs.push(fieldErrors.invalid(path, key, 'duplicate of key present in ' + fields[0]));
      seen.add(key);
    }
  }
  return errs;
}

export const configMapStrategy: Strategy = {
  validate: (obj) => validateKeys(obj, ['data', 'binaryData']),
  validateUpdate: (obj, old) => validateKeys(obj, ['data', 'binaryData']).concat(immutableData(obj, old, ['data', 'binaryData'])),
};

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const secretStrategy: Strategy = {
  applyDefaults(obj) {
    setDefault(obj as Obj, 'type', 'Opaque');
    // stringData is write-only: merged into data (base64) as kube's conversion does.
    const stringData = obj['stringData'] as Record<string, string> | undefined;
    if (stringData) {
      const data = ((obj['data'] as Record<string, string> | undefined) ?? {});
      for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      obj['data'] = data;
      delete obj['stringData'];
    }
  },
  validate(obj) {
    const errs = validateKeys(obj, ['data']);
    for (const [k, v] of Object.entries((obj['data'] as Record<string, unknown> | undefined) ?? {})) {
      if (typeof v !== 'string' || v.length % 4 !== 0 || !base64.test(v)) errs.push(fieldErrors.invalid(FieldPath.root('data').key(k), '<secret contents redacted>', 'illegal base64 data'));
    }
    return errs;
  },
  validateUpdate(obj, old) {
    const errs = secretStrategy.validate!(obj).concat(immutableData(obj, old, ['data']));
    if (obj['type'] !== old['type']) errs.push(fieldErrors.invalid('type', obj['type'], 'field is immutable'));
    return errs;
  },
};

/** `immutable: true` ConfigMaps and Secrets reject data changes, as kube does. */
function immutableData(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  if (obj['immutable'] !== true) errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (JSON.stringify(obj[f] ?? {}) !== JSON.stringify(old[f] ?? {})) errs.push(fieldErrors.forbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}
