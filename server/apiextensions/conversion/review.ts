// The ConversionReview a conversion webhook receives and the checks on the one it answers, as kube's
// webhook_converter.go (createConversionReviewObjects, getConvertedObjectsFromResponse) and the webhook REST
// client's decoder do them. Pure: objects in, review out; response bytes in, converted objects or kube's error text out.
import { goJsonKind, goUnmarshalFieldTypeError } from '../../endpoints/patch/go-json.js';
import { goQuote } from '../../options/go-strconv.js';
import { decodeReviewEnvelope } from '../../admission/webhook/response-body.js';
import { parseGroupVersion } from '../../api/go-json-document.js';
import { apiextensionsGroup } from '../../api/apiextensions.js';
import type { KubeObject } from '../../api/types.js';

export type ConversionReviewVersion = 'v1' | 'v1beta1';

/** createConversionReviewObjects when none of conversionReviewVersions is known (returned bare, no prefix). */
export const noSupportedConversionReviewVersionsMessage = 'no supported conversion review versions';

/** The first of the CRD's conversionReviewVersions this apiserver can send, kube's order of preference. */
export function conversionReviewVersionFor(accepted: readonly string[] | undefined): ConversionReviewVersion | undefined {
  for (const v of accepted ?? []) {
    if (v === 'v1' || v === 'v1beta1') return v;
  }
  return undefined;
}

/**
 * The request body: kube encodes the typed review it built, so besides `request` it carries the empty `response`
 * that createConversionReviewObjects sets (`uid: ""`, `convertedObjects: null`, `result: {metadata: {}}`).
 */
export function createConversionReview(version: ConversionReviewVersion, uid: string, objects: readonly KubeObject[], desiredAPIVersion: string): Record<string, unknown> {
  return {
    kind: 'ConversionReview',
    apiVersion: `${apiextensionsGroup}/${version}`,
    request: { uid, desiredAPIVersion, objects },
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  };
}

/** The response fields kube reads, as decoded (convertedObjects still raw JSON values). */
export interface DecodedConversionReview {
  apiVersion: string;
  kind: string;
  response?: { uid: string; convertedObjects: unknown[]; result: { status: string; message: string } };
}

export type DecodeConversionReviewResult = { ok: true; review: DecodedConversionReview } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// The response's Go field types, for json's UnmarshalTypeError texts (the innermost struct names the field).
const statusStringFields: Record<string, string> = { kind: 'string', apiVersion: 'string', status: 'string', message: 'string', reason: 'v1.StatusReason' };

function responseTypeError(r: unknown): string | undefined {
  if (r === null || r === undefined) return undefined;
  if (!isObject(r)) return goUnmarshalFieldTypeError(goJsonKind(r), 'ConversionReview', 'response', 'v1.ConversionResponse');
  const uid = r['uid'];
  if (uid !== null && uid !== undefined && typeof uid !== 'string') return goUnmarshalFieldTypeError(goJsonKind(uid), 'ConversionResponse', 'response.uid', 'types.UID');
  const objs = r['convertedObjects'];
  if (objs !== null && objs !== undefined && !Array.isArray(objs)) {
    return goUnmarshalFieldTypeError(goJsonKind(objs), 'ConversionResponse', 'response.convertedObjects', '[]runtime.RawExtension');
  }
  const result = r['result'];
  if (result === null || result === undefined) return undefined;
  if (!isObject(result)) return goUnmarshalFieldTypeError(goJsonKind(result), 'ConversionResponse', 'response.result', 'v1.Status');
  for (const [k, goType] of Object.entries(statusStringFields)) {
    const v = result[k];
    if (v !== null && v !== undefined && typeof v !== 'string') return goUnmarshalFieldTypeError(goJsonKind(v), 'Status', `response.result.${k}`, goType);
  }
  const code = result['code'];
  if (code !== null && code !== undefined) {
    if (typeof code !== 'number') return goUnmarshalFieldTypeError(goJsonKind(code), 'Status', 'response.result.code', 'int32');
    if (!Number.isInteger(code) || code < -(2 ** 31) || code >= 2 ** 31) {
      return `json: cannot unmarshal number ${String(code)} into Go struct field Status.response.result.code of type int32`;
    }
  }
  return undefined;
}

/**
 * What the conversion webhook client's serializer makes of a 2xx body, for a review sent as `version`: the
 * decoded review, or the error text. The body is sniffed (JSON if it starts with '{', else YAML); apiVersion and
 * kind default from the ConversionReview being decoded into; the other ConversionReview version is registered but
 * cannot be converted into the requested one.
 */
export function decodeConversionReview(body: Buffer, contentType: string, statusCode: number, version: ConversionReviewVersion): DecodeConversionReviewResult {
  const decoded = decodeReviewEnvelope(body, contentType, statusCode, { group: apiextensionsGroup, version, kind: 'ConversionReview', registeredVersions: ['v1', 'v1beta1'] });
  if (!decoded.ok) return decoded;
  const { apiVersion, kind, object: obj } = decoded.envelope;
  const raw = obj['response'];
  const typeErr = responseTypeError(raw);
  if (typeErr) return { ok: false, error: typeErr };
  const review: DecodedConversionReview = { apiVersion, kind };
  if (isObject(raw)) {
    const result = isObject(raw['result']) ? raw['result'] : {};
    review.response = {
      uid: (raw['uid'] as string | null | undefined) ?? '',
      convertedObjects: (raw['convertedObjects'] as unknown[] | null | undefined) ?? [],
      result: { status: (result['status'] as string | null | undefined) ?? '', message: (result['message'] as string | null | undefined) ?? '' },
    };
  }
  return { ok: true, review };
}

export type ConvertedObjectsResult = { ok: true; objects: unknown[] } | { ok: false; error: string };

/**
 * getConvertedObjectsFromResponse: for v1 the GVK and uid must be the request's; a result other than Success
 * fails with the webhook's message (or says what the status was). v1beta1 responses are not checked for GVK or uid.
 */
export function convertedObjectsFromResponse(expectedUid: string, version: ConversionReviewVersion, review: DecodedConversionReview): ConvertedObjectsResult {
  if (version === 'v1') {
    const gv = parseGroupVersion(review.apiVersion);
    const group = gv.ok ? gv.group : '';
    const ver = gv.ok ? gv.version : '';
    if (group !== apiextensionsGroup || ver !== 'v1' || review.kind !== 'ConversionReview') {
      return { ok: false, error: `expected webhook response of ${apiextensionsGroup}/v1, Kind=ConversionReview, got ${group}/${ver}, Kind=${review.kind}` };
    }
  }
  const r = review.response;
  if (!r) return { ok: false, error: 'no response provided' };
  if (version === 'v1' && r.uid !== expectedUid) return { ok: false, error: `expected response.uid=${goQuote(expectedUid)}, got ${goQuote(r.uid)}` };
  if (r.result.status !== 'Success') {
    if (r.result.message.length > 0) return { ok: false, error: r.result.message };
    return { ok: false, error: `response.result.status was '${r.result.status}', not 'Success'` };
  }
  return { ok: true, objects: r.convertedObjects };
}
