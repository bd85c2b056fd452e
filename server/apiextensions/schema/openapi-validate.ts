// kube-openapi's SchemaValidator (k8s.io/kube-openapi/pkg/validation/validate) over a compiled schema, and the
// conversion of its errors to a field.ErrorList as apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does.
// Messages are kube-openapi's ("spec.replicas in body must be of type integer: \"string\""); error names are the
// dotted data path with "[i]" for items, which become the field path.
import { FieldPath, fieldErrors, type FieldError } from '../../api/field.js';
import type { CompiledSchema } from './compiled.js';
import { validatesFormat } from './formats.js';
import { goNumber, jsonEqual, kindOf, type JSONKind, type JSONObject } from './json-value.js';

type ErrorCode =
  | 'InvalidType'
  | 'Required'
  | 'TooLong'
  | 'TooShort'
  | 'Pattern'
  | 'Enum'
  | 'MultipleOf'
  | 'Max'
  | 'Min'
  | 'Unique'
  | 'MaxItems'
  | 'MinItems'
  | 'TooFewProperties'
  | 'TooManyProperties'
  | 'UnallowedProperty'
  | 'MultipleOfMustBePositive';

/** errors.Validation: a coded error about the value at `name`. */
interface ValidationError {
  readonly kind: 'validation';
  readonly code: ErrorCode;
  readonly name: string;
  readonly message: string;
  readonly value?: unknown;
  /** the limit that was violated (err.Valid) */
  readonly valid?: number;
  readonly values?: readonly unknown[];
}

/** errors.New(CompositeErrorCode, …): the anyOf/oneOf/allOf/not summaries, which carry no path. */
interface CompositeError {
  readonly kind: 'composite';
  readonly message: string;
}

export type OpenAPIError = ValidationError | CompositeError;

const IN = 'body';

const v = (code: ErrorCode, name: string, message: string, extra: Partial<ValidationError> = {}): ValidationError => ({
  kind: 'validation',
  code,
  name,
  message,
  ...extra,
});

// errors.InvalidType with a string value: "%s in %s must be of type %s: %q"
const invalidType = (name: string, typeName: string, value: string): ValidationError =>
  v('InvalidType', name, `${name} in ${IN} must be of type ${typeName}: ${JSON.stringify(value)}`, { value });

// schemaInfoForType: the JSON schema type and format kube-openapi infers from a decoded Go value
function schemaInfo(kind: JSONKind): [string, string] {
  switch (kind) {
    case 'bool':
      return ['boolean', ''];
    case 'string':
      return ['string', ''];
    case 'int':
      return ['integer', 'int64'];
    case 'float':
      return ['number', 'float64'];
    case 'slice':
      return ['array', ''];
    case 'map':
      return ['object', ''];
    default:
      return ['', ''];
  }
}

function validateType(s: CompiledSchema, kind: JSONKind, path: string, out: OpenAPIError[]): void {
  const types = s.types;
  if (kind === 'null') {
    if (types.length > 0 && !types.includes('null') && !s.nullable) out.push(invalidType(path, types.join(','), 'null'));
    return;
  }
  const [schType, format] = schemaInfo(kind);
  const contains = (t: string) => types.includes(t);
  const isIntFloat = schType === 'integer' && contains('number');
  if (kind !== 'string' && kind !== 'slice' && s.format !== '' && !(contains(schType) || format === s.format || isIntFloat)) {
    out.push(invalidType(path, s.format, format));
    return;
  }
  // a non-numeric schema with a format accepts strings and arrays without a type check (kube-openapi quirk)
  if (!(contains('number') || contains('integer')) && s.format !== '' && (kind === 'string' || kind === 'slice')) return;
  if (!(contains(schType) || isIntFloat)) out.push(invalidType(path, types.join(','), schType));
}

function validateSchemaProps(s: CompiledSchema, data: unknown, path: string, out: OpenAPIError[]): void {
  if (s.anyOf.length > 0) {
    let best: OpenAPIError[] | undefined;
    let succeeded = false;
    for (const alt of s.anyOf) {
      const res = validateSchema(alt, data, path);
      if (res.length === 0) {
        succeeded = true;
        best = undefined;
        break;
      }
      // kube-openapi keeps the alternative with the most passing checks; the fewest failures stands in for that
      if (!best || res.length < best.length) best = res;
    }
    if (!succeeded) out.push({ kind: 'composite', message: `${JSON.stringify(path)} must validate at least one schema (anyOf)` });
    if (best) out.push(...best);
  }
  if (s.oneOf.length > 0) {
    let best: OpenAPIError[] | undefined;
    let validated = 0;
    for (const alt of s.oneOf) {
      const res = validateSchema(alt, data, path);
      if (res.length === 0) {
        validated++;
        best = undefined;
        continue;
      }
      if (validated === 0 && (!best || res.length < best.length)) best = res;
    }
    if (validated !== 1) {
      const extra = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      out.push({ kind: 'composite', message: `${JSON.stringify(path)} must validate one and only one schema (oneOf). ${extra}` });
      if (best) out.push(...best);
    }
  }
  if (s.allOf.length > 0) {
    let validated = 0;
    for (const alt of s.allOf) {
      const res = validateSchema(alt, data, path);
      if (res.length === 0) validated++;
      out.push(...res);
    }
    if (validated !== s.allOf.length) {
      const extra = validated === 0 ? '. None validated' : '';
      out.push({ kind: 'composite', message: `${JSON.stringify(path)} must validate all the schemas (allOf)${extra}` });
    }
  }
  if (s.not && validateSchema(s.not, data, path).length === 0) {
    out.push({ kind: 'composite', message: `${JSON.stringify(path)} must not validate the schema (not)` });
  }
}

// stringValidator: the first failing check only
function validateString(s: CompiledSchema, data: string, path: string, out: OpenAPIError[]): void {
  const runes = [...data].length;
  if (s.maxLength !== undefined && runes > s.maxLength) {
    out.push(v('TooLong', path, `${path} in ${IN} should be at most ${s.maxLength} chars long`, { value: data, valid: s.maxLength }));
    return;
  }
  if (s.minLength !== undefined && runes < s.minLength) {
    out.push(v('TooShort', path, `${path} in ${IN} should be at least ${s.minLength} chars long`, { value: data, valid: s.minLength }));
    return;
  }
  if (s.pattern) {
    const { re, source } = s.pattern;
    if (typeof re === 'string') {
      out.push(v('Pattern', path, `${path} in ${IN} should match '${source}, but pattern is invalid: ${re}'`, { value: data }));
    } else if (!re.matcher(data).find()) {
      out.push(v('Pattern', path, `${path} in ${IN} should match '${source}'`, { value: data }));
    }
  }
}

function validateFormat(s: CompiledSchema, data: string, path: string, out: OpenAPIError[]): void {
  if (s.format !== '' && !validatesFormat(s.format, data)) {
    out.push(invalidTypeWithValue(path, s.format, data));
  }
}

// FormatOf failures carry the offending string as their value
const invalidTypeWithValue = (name: string, typeName: string, value: string): ValidationError =>
  v('InvalidType', name, `${name} in ${IN} must be of type ${typeName}: ${JSON.stringify(value)}`, { value });

// numberValidator: integers (int64) are checked against limits truncated to int64, as MaximumNativeType does
function validateNumber(s: CompiledSchema, data: number, isInt: boolean, path: string, out: OpenAPIError[]): void {
  const multiple: OpenAPIError[] = [];
  const minimum: OpenAPIError[] = [];
  const maximum: OpenAPIError[] = [];
  if (s.multipleOf !== undefined) {
    const factor = isInt ? Math.trunc(s.multipleOf) : s.multipleOf;
    if (factor < 0) {
      multiple.push(v('MultipleOfMustBePositive', path, `factor MultipleOf declared for ${path} must be positive: ${goNumber(factor, isInt)}`, { value: factor }));
    } else if (factor !== 0) {
      const mult = isInt ? data % factor === 0 : Number.isInteger(factor < 1 ? (1 / factor) * data : data / factor);
      if (!mult) multiple.push(v('MultipleOf', path, `${path} in ${IN} should be a multiple of ${goNumber(factor, isInt)}`, { value: data }));
    }
  }
  if (s.minimum !== undefined) {
    const min = isInt ? Math.trunc(s.minimum) : s.minimum;
    const fails = s.exclusiveMinimum ? data <= min : data < min;
    if (fails) {
      const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      minimum.push(v('Min', path, `${path} in ${IN} should be ${rel} ${goNumber(min, isInt)}`, { value: data, valid: min }));
    }
  }
  if (s.maximum !== undefined) {
    const max = isInt ? Math.trunc(s.maximum) : s.maximum;
    const fails = s.exclusiveMaximum ? data >= max : data > max;
    if (fails) {
      const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      maximum.push(v('Max', path, `${path} in ${IN} should be ${rel} ${goNumber(max, isInt)}`, { value: data, valid: max }));
    }
  }
  out.push(...multiple, ...minimum, ...maximum);
}

function validateSlice(s: CompiledSchema, data: unknown[], path: string, out: OpenAPIError[]): void {
  if (s.items) data.forEach((item, i) => out.push(...validateSchema(s.items!, item, `${path}[${i}]`)));
  const size = data.length;
  if (s.minItems !== undefined && size < s.minItems) {
    out.push(v('MinItems', path, `${path} in ${IN} should have at least ${s.minItems} items`, { value: size, valid: s.minItems }));
  }
  if (s.maxItems !== undefined && size > s.maxItems) {
    out.push(v('MaxItems', path, `${path} in ${IN} should have at most ${s.maxItems} items`, { value: size, valid: s.maxItems }));
  }
  if (s.uniqueItems && data.some((x, i) => data.slice(0, i).some((y) => jsonEqual(x, y)))) {
    out.push(v('Unique', path, `${path} in ${IN} shouldn't contain duplicates`));
  }
}

function validateEnum(s: CompiledSchema, data: unknown, path: string, out: OpenAPIError[]): void {
  if (!s.enum) return;
  if (kindOf(data) !== 'null' && s.enum.some((e) => jsonEqual(data, e))) return;
  out.push(v('Enum', path, `${path} in ${IN} should be one of ${goSlice(s.enum)}`, { value: data ?? null, values: s.enum }));
}

// %v of a []interface{}: [a b 1]
function goSlice(values: readonly unknown[]): string {
  const one = (x: unknown): string => {
    const k = kindOf(x);
    if (k === 'string') return x as string;
    if (k === 'int' || k === 'float') return goNumber(x as number, k === 'int');
    if (k === 'null') return '<nil>';
    if (k === 'bool') return String(x);
    if (k === 'slice') return goSlice(x as unknown[]);
    return `map[${Object.keys(x as JSONObject)
      .sort()
      .map((key) => `${key}:${one((x as JSONObject)[key])}`)
      .join(' ')}]`;
  };
  return `[${values.map(one).join(' ')}]`;
}

function validateObject(s: CompiledSchema, data: JSONObject, path: string, out: OpenAPIError[]): void {
  const keys = Object.keys(data);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    out.push(v('TooFewProperties', path, `${path} in ${IN} should have at least ${s.minProperties} properties`, { value: keys.length, valid: s.minProperties }));
    return;
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    out.push(v('TooManyProperties', path, `${path} in ${IN} should have at most ${s.maxProperties} properties`, { value: keys.length, valid: s.maxProperties }));
    return;
  }
  const ap = s.additionalProperties;
  if (ap && !ap.allows) {
    for (const k of keys) {
      if (!s.properties.has(k)) out.push(v('UnallowedProperty', path, `${path}.${k} in ${IN} is a forbidden property`, { value: k }));
    }
  } else if (ap?.schema) {
    for (const k of keys) if (!s.properties.has(k)) out.push(...validateSchema(ap.schema, data[k], `${path}.${k}`));
  }
  for (const [name, prop] of s.properties) {
    if (Object.prototype.hasOwnProperty.call(data, name)) out.push(...validateSchema(prop, data[name], path === '' ? name : `${path}.${name}`));
  }
  for (const k of s.required) {
    if (!Object.prototype.hasOwnProperty.call(data, k)) out.push(v('Required', `${path}.${k}`, `${path}.${k} in ${IN} is required`));
  }
}

/** SchemaValidator.Validate: every applicable validator, in kube-openapi's order, all errors collected. */
export function validateSchema(s: CompiledSchema, data: unknown, path = ''): OpenAPIError[] {
  const out: OpenAPIError[] = [];
  const kind = kindOf(data);
  const typeApplies = s.types.length > 0 || s.format !== '';
  if (kind === 'null') {
    if (typeApplies) validateType(s, kind, path, out);
    validateEnum(s, data, path, out);
    return out;
  }
  if (typeApplies) validateType(s, kind, path, out);
  validateSchemaProps(s, data, path, out);
  if (kind === 'string') {
    validateString(s, data as string, path, out);
    validateFormat(s, data as string, path, out);
  }
  if (kind === 'int' || kind === 'float') validateNumber(s, data as number, kind === 'int', path, out);
  if (kind === 'slice') validateSlice(s, data as unknown[], path, out);
  validateEnum(s, data, path, out);
  if (kind === 'map') validateObject(s, data as JSONObject, path, out);
  return out;
}

/** field.TooLong's detail (k8s.io/apimachinery 1.32), which does not print the value. */
export const tooLongDetail = (max: number): string => `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`;

// enum values as field.NotSupported lists them: strings as they are, anything else as JSON
const supportedValue = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x));

/** kubeOpenAPIResultToFieldErrors: coded errors under fldPath by their name, composite ones at fldPath itself. */
export function toFieldErrors(errors: readonly OpenAPIError[], fldPath?: FieldPath): FieldError[] {
  const base = fldPath ?? FieldPath.root('');
  return errors.map((err): FieldError => {
    if (err.kind === 'composite') return fieldErrors.invalid(base, '', err.message);
    const name = err.name.startsWith('.') ? err.name.slice(1) : err.name;
    const path = err.name.length > 0 && err.name !== '.' ? base.child(name) : base;
    const value = err.value === undefined ? '' : err.value;
    switch (err.code) {
      case 'Required':
        return fieldErrors.required(path);
      case 'Enum':
        return fieldErrors.notSupported(path, err.value ?? null, (err.values ?? []).map(supportedValue));
      case 'TooLong':
        return { type: 'TooLong', field: path.toString(), detail: tooLongDetail(err.valid ?? -1) };
      case 'MaxItems':
      case 'TooManyProperties':
        return fieldErrors.tooMany(path, (err.value as number) ?? -1, err.valid ?? -1);
      case 'InvalidType':
        return fieldErrors.typeInvalid(path, value, err.message);
      default:
        return fieldErrors.invalid(path, value, err.message);
    }
  });
}

/** Validates a value against a compiled schema and reports kube's field errors under fldPath. */
export function validateValueAgainst(s: CompiledSchema, value: unknown, fldPath?: FieldPath): FieldError[] {
  return toFieldErrors(validateSchema(s, value), fldPath);
}

