// field.ErrorList of k8s.io/apimachinery: every validation error carries a path, a type and a detail,
// and renders exactly as kube-apiserver prints it ("metadata.name: Invalid value: \"X\": detail").
import type { CauseType, StatusCause } from './types.js';

export type FieldErrorType = 'NotFound' | 'Required' | 'Duplicate' | 'Invalid' | 'NotSupported' | 'Forbidden' | 'TooLong' | 'TooMany' | 'InternalError' | 'TypeInvalid';

export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indices, e.g. "webhooks[0].clientConfig.url". */
  field: string;
  badValue?: unknown;
  detail?: string;
}

const causeTypes: Record<FieldErrorType, CauseType> = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  InternalError: 'InternalError',
  TypeInvalid: 'FieldValueTypeInvalid',
};

const typeStrings: Record<FieldErrorType, string> = {
  NotFound: 'Not found',
  Required: 'Required value',
  Duplicate: 'Duplicate value',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Forbidden: 'Forbidden',
  TooLong: 'Too long',
  TooMany: 'Too many',
  InternalError: 'Internal error',
  TypeInvalid: 'Invalid value',
};

/** Path builder mirroring field.NewPath(...).Child(...).Index(...). */
export class FieldPath {
  private constructor(private readonly text: string) {}
  static root(name: string, ...more: string[]): FieldPath {
    return more.reduce((p, c) => p.child(c), new FieldPath(name));
  }
  child(name: string, ...more: string[]): FieldPath {
    const first = new FieldPath(this.text === '' ? name : `${this.text}.${name}`);
    return more.reduce((p, c) => p.child(c), first);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

type PathLike = FieldPath | string;
const p = (path: PathLike): string => path.toString();

export const fieldErrors = {
  required: (path: PathLike, detail = ''): FieldError => ({ type: 'Required', field: p(path), detail }),
  invalid: (path: PathLike, value: unknown, detail: string): FieldError => ({ type: 'Invalid', field: p(path), badValue: value, detail }),
  notSupported: (path: PathLike, value: unknown, supported: string[]): FieldError => ({
    type: 'NotSupported',
    field: p(path),
    badValue: value,
    detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
  }),
  duplicate: (path: PathLike, value: unknown): FieldError => ({ type: 'Duplicate', field: p(path), badValue: value }),
  forbidden: (path: PathLike, detail: string): FieldError => ({ type: 'Forbidden', field: p(path), detail }),
  notFound: (path: PathLike, value: unknown): FieldError => ({ type: 'NotFound', field: p(path), badValue: value }),
  tooLong: (path: PathLike, value: unknown, max: number): FieldError => ({
    type: 'TooLong',
    field: p(path),
    badValue: value,
    detail: `may not be more than ${max} bytes`,
  }),
  tooMany: (path: PathLike, actual: number, max: number): FieldError => ({
    type: 'TooMany',
    field: p(path),
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  typeInvalid: (path: PathLike, value: unknown, detail: string): FieldError => ({ type: 'TypeInvalid', field: p(path), badValue: value, detail }),
  internal: (path: PathLike, detail: string): FieldError => ({ type: 'InternalError', field: p(path), detail }),
};

/** A bad value kube prints with Go's %#v of a struct (`apiextensions.ValidationRule{Rule:"…", …}`), pre-rendered. */
export class GoStructValue {
  constructor(readonly rendered: string) {}
}

/** kube's rendering of bad values: strings quoted (%q), scalars bare, []string as Go's %#v, other composites as JSON. */
function renderValue(value: unknown): string {
  if (value instanceof GoStructValue) return value.rendered;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // Go's %#v of a []string, which is how kube prints list values.
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
  return JSON.stringify(value);
}

/** "Invalid value: \"X\": detail" — the cause message, without the field. */
export function fieldErrorBody(e: FieldError): string {
  const head = typeStrings[e.type];
  const omitValue = e.type === 'Required' || e.type === 'Forbidden' || e.type === 'InternalError' || (e.type === 'TooLong' && e.badValue === undefined);
  let s = omitValue || e.badValue === undefined ? head : `${head}: ${renderValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** "metadata.name: Invalid value: \"X\": detail" */
export function formatFieldError(e: FieldError): string {
  return e.field ? `${e.field}: ${fieldErrorBody(e)}` : fieldErrorBody(e);
}

/** utilerrors.NewAggregate rendering: one error bare, several in brackets. */
export function formatFieldErrors(errs: FieldError[]): string {
  const msgs = errs.map(formatFieldError);
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

export function toStatusCause(e: FieldError): StatusCause {
  return { reason: causeTypes[e.type], message: fieldErrorBody(e), field: e.field };
}
