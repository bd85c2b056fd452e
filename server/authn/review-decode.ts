// Decoding of review request bodies (TokenReview, SubjectAccessReview, …) into their v1 shapes, failing with
// the 400 kube-apiserver's JSON decoder gives: `SubjectAccessReview in version "v1" cannot be handled as a
// SubjectAccessReview: json: cannot unmarshal number into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string`.
import { errors, type StatusError } from '../api/errors.js';
import { parseApiVersion } from '../api/types.js';

export type ReviewResult<T> = { ok: true; review: T } | { ok: false; error: StatusError };

/** Thrown inside a decode, caught at its boundary: a decoding failure is a value to callers. */
class DecodeFailure {
  constructor(readonly detail: string) {}
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Field readers that fail the way encoding/json does; null reads as absent, as Go ignores it. */
export class ReviewDecoder {
  readonly version: string;
  constructor(
    readonly kind: string,
    apiVersion: string,
  ) {
    this.version = parseApiVersion(apiVersion).version;
  }

  private mismatch(v: unknown, struct: string, path: string, goType: string): never {
    throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${path} of type ${goType}`);
  }

  string(v: unknown, struct: string, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.mismatch(v, struct, path, 'string');
    return v;
  }

  bool(v: unknown, struct: string, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.mismatch(v, struct, path, 'bool');
    return v;
  }

  stringList(v: unknown, struct: string, path: string, goType = '[]string'): string[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.mismatch(v, struct, path, goType);
    return v.map((item) => {
      if (typeof item !== 'string') this.mismatch(item, struct, path, 'string');
      return item;
    });
  }

  object(v: unknown, struct: string, path: string, goType: string): Record<string, unknown> | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) this.mismatch(v, struct, path, goType);
    return v as Record<string, unknown>;
  }

  /** map[string][]string (UserInfo.extra, SubjectAccessReviewSpec.extra) */
  extra(v: unknown, struct: string, path: string, goType: string): Record<string, string[]> | undefined {
    const m = this.object(v, struct, path, goType);
    if (!m) return undefined;
    const out: Record<string, string[]> = {};
    for (const [k, vals] of Object.entries(m)) {
      const list = this.stringList(vals, struct, path, goType.replace(/^map\[string\]/, ''));
      if (list) out[k] = list;
    }
    return out;
  }

  /** Runs `fn`, turning a decode failure into kube's 400. */
  run<T>(fn: () => T): { ok: true; value: T } | { ok: false; error: StatusError } {
    try {
      return { ok: true, value: fn() };
    } catch (err) {
      if (err instanceof DecodeFailure) {
        return { ok: false, error: errors.badRequest(`${this.kind} in version "${this.version}" cannot be handled as a ${this.kind}: ${err.detail}`) };
      }
      throw err;
    }
  }
}

/** The body as an object, or the 400 for a body that is not one. */
export function reviewBody(body: unknown, kind: string): { ok: true; obj: Record<string, unknown> } | { ok: false; error: StatusError } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: errors.badRequest(`${kind} cannot be decoded: the request body is not a JSON object`) };
  }
  return { ok: true, obj: body as Record<string, unknown> };
}

/** RFC 3339 with seconds, as metav1.Time marshals. */
export function metaTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
