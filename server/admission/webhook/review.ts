// The AdmissionReview a webhook receives and the checks on the one it answers, as kube-apiserver's
// webhook/request package (CreateAdmissionObjects, VerifyAdmissionResponse) and its webhook REST client's decoder
// do them. Pure: attributes in, review out; response bytes in, verified response or kube's error text out.
import { randomUUID } from 'node:crypto';
import type {
  AdmissionRequest,
  AdmissionResponseStatus,
  AdmissionReviewApiVersion,
  AdmissionReviewRequest,
  AdmissionReviewVersion,
} from '../../api/admission.js';
import type { GroupVersionKind, KubeObject, UserInfo } from '../../api/types.js';
import { parseGroupVersion } from '../../api/go-json-document.js';
import { apiVersionOf } from '../../api/types.js';
import { goJsonKind, goUnmarshalFieldTypeError, goUnmarshalTypeError, type GoJsonKind } from '../../endpoints/patch/go-json.js';
import { goQuote } from '../../options/go-strconv.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { WebhookInvocation } from '../matching/types.js';
import { decodeReviewEnvelope } from './response-body.js';

/** The AdmissionReview versions this apiserver sends, in kube's order of preference within a webhook's list. */
export const supportedAdmissionReviewVersions: readonly AdmissionReviewVersion[] = ['v1', 'v1beta1'];

/** request.CreateAdmissionObjects when none of the webhook's admissionReviewVersions is known. */
export const unknownAdmissionReviewVersionsMessage = 'webhook does not accept known AdmissionReview versions (v1, v1beta1)';

/** The first of the webhook's admissionReviewVersions that this apiserver can send. */
export function admissionReviewVersionFor(accepted: readonly string[] | undefined): AdmissionReviewVersion | undefined {
  for (const v of accepted ?? []) {
    if (v === 'v1' || v === 'v1beta1') return v;
  }
  return undefined;
}

function reviewApiVersion(version: AdmissionReviewVersion): AdmissionReviewApiVersion {
  return `admission.k8s.io/${version}`;
}

// A typed object is always encoded with its apiVersion and kind; attributes built by hand may lack them.
function versionedObject(obj: KubeObject | undefined, kind: GroupVersionKind): KubeObject | null {
  if (obj === undefined || obj === null) return null;
  if (obj.apiVersion && obj.kind) return obj;
  return { apiVersion: obj.apiVersion || apiVersionOf(kind.group, kind.version), kind: obj.kind || kind.kind, ...obj };
}

// authenticationv1.UserInfo: every field is omitempty.
function reviewUserInfo(u: UserInfo): UserInfo {
  const out: Partial<UserInfo> = {};
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (u.groups && u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out as UserInfo;
}

/**
 * request.CreateV1AdmissionReview / CreateV1beta1AdmissionReview: both versions carry the same fields. `kind`,
 * `resource` and `subResource` are the invocation's (the matched, possibly equivalent, version); the request*
 * fields are what the client asked for. Empty omitempty fields are left out; object, oldObject and options are
 * always present (null when absent), as Go encodes RawExtension.
 */
export function createAdmissionReview(version: AdmissionReviewVersion, uid: string, attrs: AdmissionAttributes, invocation: WebhookInvocation): AdmissionReviewRequest {
  const request: AdmissionRequest = {
    uid,
    kind: { group: invocation.kind.group, version: invocation.kind.version, kind: invocation.kind.kind },
    resource: { group: invocation.resource.group, version: invocation.resource.version, resource: invocation.resource.resource },
  } as AdmissionRequest;
  if (invocation.subresource) request.subResource = invocation.subresource;
  request.requestKind = { group: attrs.kind.group, version: attrs.kind.version, kind: attrs.kind.kind };
  request.requestResource = { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource };
  if (attrs.subresource) request.requestSubResource = attrs.subresource;
  if (attrs.name) request.name = attrs.name;
  if (attrs.namespace) request.namespace = attrs.namespace;
  request.operation = attrs.operation;
  request.userInfo = reviewUserInfo(attrs.userInfo);
  request.object = versionedObject(attrs.object, invocation.kind);
  request.oldObject = versionedObject(attrs.oldObject, invocation.kind);
  request.dryRun = attrs.dryRun;
  // CONNECT has no operation options.
  request.options = attrs.operation === 'CONNECT' ? null : (attrs.options ?? null);
  return { kind: 'AdmissionReview', apiVersion: reviewApiVersion(version), request } as AdmissionReviewRequest;
}

export type AdmissionObjects =
  | { ok: true; uid: string; version: AdmissionReviewVersion; review: AdmissionReviewRequest }
  | { ok: false; error: string };

/** request.CreateAdmissionObjects: a new uid per call, the review in the first version the webhook accepts. */
export function createAdmissionObjects(
  admissionReviewVersions: readonly string[] | undefined,
  attrs: AdmissionAttributes,
  invocation: WebhookInvocation,
  newUid: () => string = randomUUID,
): AdmissionObjects {
  const version = admissionReviewVersionFor(admissionReviewVersions);
  if (!version) return { ok: false, error: unknownAdmissionReviewVersionsMessage };
  const uid = newUid();
  return { ok: true, uid, version, review: createAdmissionReview(version, uid, attrs, invocation) };
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding the webhook's answer the way the webhook REST client does: the envelope (body sniffing, apiVersion/kind
// defaulted from the AdmissionReview type it decodes into, no conversion between admission versions) in
// response-body.ts, then the response's fields with json's type errors.

/** The response fields kube reads, decoded (patch base64-decoded). */
export interface DecodedAdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionResponseStatus;
  patch?: Buffer;
  /** undefined when absent or null (Go's nil *PatchType) */
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** The AdmissionReview as decoded: apiVersion and kind as the body had them (TypeMeta is not defaulted). */
export interface DecodedAdmissionReview {
  apiVersion: string;
  kind: string;
  response?: DecodedAdmissionResponse;
}

export type DecodeResult = { ok: true; review: DecodedAdmissionReview } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// The Go types a webhook response is decoded into, for json's UnmarshalTypeError messages.
type GoType =
  | { t: 'string' | 'bool' | 'int32' | 'int64' | 'bytes'; name: string }
  | { t: 'struct'; name: string; fields: Record<string, GoType> }
  | { t: 'map' | 'slice'; name: string; elem: GoType };

const goString: GoType = { t: 'string', name: 'string' };
const statusCauseType: GoType = {
  t: 'struct',
  name: 'v1.StatusCause',
  fields: { reason: { t: 'string', name: 'v1.CauseType' }, message: goString, field: goString },
};
const statusType: GoType = {
  t: 'struct',
  name: 'v1.Status',
  fields: {
    kind: goString,
    apiVersion: goString,
    metadata: {
      t: 'struct',
      name: 'v1.ListMeta',
      fields: { selfLink: goString, resourceVersion: goString, continue: goString, remainingItemCount: { t: 'int64', name: 'int64' } },
    },
    status: goString,
    message: goString,
    reason: { t: 'string', name: 'v1.StatusReason' },
    details: {
      t: 'struct',
      name: 'v1.StatusDetails',
      fields: {
        name: goString,
        group: goString,
        kind: goString,
        uid: { t: 'string', name: 'types.UID' },
        causes: { t: 'slice', name: '[]v1.StatusCause', elem: statusCauseType },
        retryAfterSeconds: { t: 'int32', name: 'int32' },
      },
    },
    code: { t: 'int32', name: 'int32' },
  },
};

function responseType(version: AdmissionReviewVersion): GoType {
  return {
    t: 'struct',
    name: `${version}.AdmissionResponse`,
    fields: {
      uid: { t: 'string', name: 'types.UID' },
      allowed: { t: 'bool', name: 'bool' },
      status: statusType,
      patch: { t: 'bytes', name: '[]uint8' },
      patchType: { t: 'string', name: `${version}.PatchType` },
      auditAnnotations: { t: 'map', name: 'map[string]string', elem: goString },
      warnings: { t: 'slice', name: '[]string', elem: goString },
    },
  };
}

/** encoding/base64 StdEncoding: the CorruptInputError offset, or undefined if valid. Newlines are skipped. */
export function base64CorruptOffset(s: string): number | undefined {
  const alphabet = /[A-Za-z0-9+/]/;
  let quantum = 0; // characters in the current 4-character group
  let quantumStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\r' || c === '\n') continue;
    if (quantum === 0) quantumStart = i;
    if (c === '=') {
      // padding is only valid as the 3rd/4th character of the final group
      if (quantum < 2) return i;
      const rest = s.slice(i).replace(/[\r\n]/g, '');
      if (quantum === 2 && !rest.startsWith('==')) return i + (rest.length > 1 ? 1 : 0);
      const expected = quantum === 2 ? '==' : '=';
      if (rest !== expected) return i + expected.length;
      return undefined;
    }
    if (!alphabet.test(c)) return i;
    quantum = (quantum + 1) % 4;
  }
  if (quantum !== 0) return quantumStart;
  return undefined;
}

interface TypeCheckContext {
  /** the innermost struct's type name without its package, as reflect's Name() gives it */
  struct: string;
  /** JSON field names from the root */
  path: string[];
}

function goNumberKind(v: number): string {
  return `number ${String(v)}`;
}

/** The first error json.Unmarshal would report decoding `value` into `type`, in document order. */
function typeError(value: unknown, type: GoType, ctx: TypeCheckContext): string | undefined {
  if (value === null || value === undefined) return undefined;
  const fail = (kind: GoJsonKind | string): string =>
    ctx.path.length === 0 ? goUnmarshalTypeError(kind as GoJsonKind, type.name) : goUnmarshalFieldTypeError(kind as GoJsonKind, ctx.struct, ctx.path.join('.'), type.name);
  switch (type.t) {
    case 'string':
      return typeof value === 'string' ? undefined : fail(goJsonKind(value));
    case 'bool':
      return typeof value === 'boolean' ? undefined : fail(goJsonKind(value));
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number') return fail(goJsonKind(value));
      const limit = type.t === 'int32' ? 2 ** 31 : 2 ** 63;
      return Number.isInteger(value) && value >= -limit && value < limit ? undefined : fail(goNumberKind(value));
    }
    case 'bytes': {
      if (typeof value !== 'string') return fail(goJsonKind(value));
      const at = base64CorruptOffset(value);
      return at === undefined ? undefined : `illegal base64 data at input byte ${at}`;
    }
    case 'struct': {
      if (!isObject(value)) return fail(goJsonKind(value));
      const inner: TypeCheckContext = { struct: type.name.replace(/^.*\./, ''), path: ctx.path };
      for (const [k, v] of Object.entries(value)) {
        const field = type.fields[k];
        if (!field) continue;
        const err = typeError(v, field, { struct: inner.struct, path: [...ctx.path, k] });
        if (err) return err;
      }
      return undefined;
    }
    case 'map': {
      if (!isObject(value)) return fail(goJsonKind(value));
      for (const v of Object.values(value)) {
        const err = typeError(v, type.elem, ctx);
        if (err) return err;
      }
      return undefined;
    }
    case 'slice': {
      if (!Array.isArray(value)) return fail(goJsonKind(value));
      for (const v of value) {
        const err = typeError(v, type.elem, ctx);
        if (err) return err;
      }
      return undefined;
    }
  }
}

/**
 * What the webhook client's serializer makes of a 2xx response body, for a review sent as `version`:
 * the decoded review, or the error text (`couldn't get version/kind; json parse error: …`,
 * `converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion`, …).
 */
export function decodeAdmissionReview(body: Buffer, contentType: string, statusCode: number, version: AdmissionReviewVersion): DecodeResult {
  const decoded = decodeReviewEnvelope(body, contentType, statusCode, { group: 'admission.k8s.io', version, kind: 'AdmissionReview', registeredVersions: supportedAdmissionReviewVersions });
  if (!decoded.ok) return decoded;
  const { apiVersion, kind, object: obj } = decoded.envelope;
  const rawResponse = obj['response'];
  const err = typeError(rawResponse, responseType(version), { struct: 'AdmissionReview', path: ['response'] });
  if (err) return { ok: false, error: err };
  const review: DecodedAdmissionReview = { apiVersion, kind };
  if (isObject(rawResponse)) review.response = decodedResponse(rawResponse);
  return { ok: true, review };
}

function decodedResponse(r: Record<string, unknown>): DecodedAdmissionResponse {
  const out: DecodedAdmissionResponse = { uid: (r['uid'] as string | null) ?? '', allowed: (r['allowed'] as boolean | null) ?? false };
  if (isObject(r['status'])) out.status = r['status'] as AdmissionResponseStatus;
  if (typeof r['patch'] === 'string') out.patch = Buffer.from(r['patch'], 'base64');
  if (typeof r['patchType'] === 'string') out.patchType = r['patchType'];
  if (isObject(r['auditAnnotations'])) {
    out.auditAnnotations = Object.fromEntries(Object.entries(r['auditAnnotations']).filter(([, v]) => v !== null)) as Record<string, string>;
  }
  if (Array.isArray(r['warnings'])) out.warnings = (r['warnings'] as Array<string | null>).map((w) => w ?? '');
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

/** request.AdmissionResponse: what the dispatchers act on. */
export interface VerifiedAdmissionResponse {
  allowed: boolean;
  auditAnnotations: Record<string, string>;
  /** empty unless a mutating webhook sent one */
  patch: Buffer;
  /** '' without a patch; v1beta1 patches are always JSONPatch */
  patchType: string;
  result?: AdmissionResponseStatus;
  warnings: string[];
}

export type VerifyResult = { ok: true; response: VerifiedAdmissionResponse } | { ok: false; error: string };

/**
 * request.VerifyAdmissionResponse. For v1 the uid and the GVK must be the request's and patch/patchType must come
 * together (mutating) or not at all (validating). kube does not check uid, GVK or patch fields of v1beta1
 * responses, and ignores a validating webhook's v1beta1 patch.
 */
export function verifyAdmissionResponse(uid: string, mutating: boolean, version: AdmissionReviewVersion, review: DecodedAdmissionReview): VerifyResult {
  const r = review.response;
  if (!r) return { ok: false, error: 'webhook response was absent' };
  const base = { allowed: r.allowed, auditAnnotations: r.auditAnnotations ?? {}, warnings: r.warnings ?? [], ...(r.status ? { result: r.status } : {}) };
  if (version === 'v1beta1') {
    const patch = mutating && r.patch && r.patch.length > 0 ? r.patch : Buffer.alloc(0);
    return { ok: true, response: { ...base, patch, patchType: patch.length > 0 ? 'JSONPatch' : '' } };
  }
  if (r.uid !== uid) return { ok: false, error: `expected response.uid=${goQuote(uid)}, got ${goQuote(r.uid)}` };
  const gv = parseGroupVersion(review.apiVersion);
  const group = gv.ok ? gv.group : '';
  const ver = gv.ok ? gv.version : review.apiVersion;
  if (group !== 'admission.k8s.io' || ver !== 'v1' || review.kind !== 'AdmissionReview') {
    return { ok: false, error: `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${ver}, Kind=${review.kind}` };
  }
  const patch = r.patch ?? Buffer.alloc(0);
  if (mutating) {
    if (patch.length > 0 && r.patchType === undefined) return { ok: false, error: 'webhook returned response.patch but not response.patchType' };
    if (patch.length === 0 && r.patchType !== undefined) return { ok: false, error: 'webhook returned response.patchType but not response.patch' };
    if (r.patchType !== undefined && r.patchType === '') return { ok: false, error: `webhook returned invalid response.patchType of ""` };
    return { ok: true, response: { ...base, patch, patchType: r.patchType ?? '' } };
  }
  if (patch.length > 0) return { ok: false, error: 'validating webhook may not return response.patch' };
  if (r.patchType !== undefined) return { ok: false, error: 'validating webhook may not return response.patchType' };
  return { ok: true, response: { ...base, patch: Buffer.alloc(0), patchType: '' } };
}
