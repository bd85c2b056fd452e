// The first half of decoding a webhook's answer, common to admission and conversion webhooks because both go through
// the same webhook REST client: its serializer accepts any content type and sniffs the body (JSON if it starts with
// '{', else YAML), reads apiVersion/kind, defaults them from the review type it decodes into (gvkWithDefaults), and
// cannot convert between the review's versions. The fields of the review are each caller's business.
import { parseDocument } from 'yaml';
import { interpretStruct, parseGroupVersion } from '../../api/go-json-document.js';
import { checkJsonNesting, jsonDepthError } from '../../api/nesting-depth.js';
import { yamlAliasingError, yamlDocumentToJS, yamlNestingError } from '../../api/yaml-limits.js';
import { apiVersionOf } from '../../api/types.js';
import { goJsonKind, goJsonSyntaxError, goUnmarshalFieldTypeError, goUnmarshalTypeError } from '../../endpoints/patch/go-json.js';
import { goQuote } from '../../options/go-strconv.js';

/** The typed review the client decodes into, e.g. admission.k8s.io/v1 AdmissionReview. */
export interface ReviewType {
  group: string;
  version: string;
  kind: string;
  /** every version of `kind` registered in the client's scheme */
  registeredVersions: readonly string[];
}

/** The body as a JSON object with apiVersion and kind as it had them (TypeMeta is not defaulted). */
export interface ReviewEnvelope {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

export type ReviewEnvelopeResult = { ok: true; envelope: ReviewEnvelope } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// sigs.k8s.io/yaml: YAML 1.1 (go-yaml v2) converted to JSON.
function yamlToJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  // go-yaml's nesting and alias limits, before the yaml package's recursive composer and toJSON run
  const tooDeep = yamlNestingError(text);
  if (tooDeep !== undefined) return { ok: false, error: `error converting YAML to JSON: ${tooDeep}` };
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0]?.line;
    const detail = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, error: `error converting YAML to JSON: yaml: ${line !== undefined ? `line ${line}: ` : ''}${detail}` };
  }
  const aliasing = yamlAliasingError(doc);
  if (aliasing !== undefined) return { ok: false, error: `error converting YAML to JSON: ${aliasing}` };
  const value = yamlDocumentToJS(doc, { json: true });
  return value.ok ? value : { ok: false, error: `error converting YAML to JSON: ${value.error}` };
}

/**
 * What the webhook client's serializer makes of a 2xx response body decoded into `into`: the object with its
 * apiVersion/kind, or the error text (`0-length response …`, `couldn't get version/kind; json parse error: …`,
 * `converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion`, …).
 */
export function decodeReviewEnvelope(body: Buffer, contentType: string, statusCode: number, into: ReviewType): ReviewEnvelopeResult {
  if (body.length === 0) return { ok: false, error: `0-length response with status code: ${statusCode} and content type: ${contentType}` };
  const text = body.toString('utf8');
  let value: unknown;
  if (text.trimStart().startsWith('{')) {
    // this server's nesting limit (Go's scanner stops at 10000): nothing recursive walks a deeper review, and
    // JSON.parse never builds one (a 3 MB response of brackets would take it about a second)
    const nesting = checkJsonNesting(body);
    // Whatever JSON.parse accepts, Go's scanner accepts: encoding/json's syntax check (a byte-by-byte state machine
    // here) runs only for a body too deep or refused by JSON.parse, to say what Go would have said first.
    let parsed: { ok: true; value: unknown } | { ok: false; message: string } = { ok: false, message: '' };
    if (nesting.ok) {
      try {
        parsed = { ok: true, value: JSON.parse(text) as unknown };
      } catch (err) {
        parsed = { ok: false, message: (err as Error).message };
      }
    }
    if (!parsed.ok) {
      const syntax = goJsonSyntaxError(body);
      if (syntax !== undefined) return { ok: false, error: `couldn't get version/kind; json parse error: ${syntax}` };
      if (!nesting.ok) return { ok: false, error: `couldn't get version/kind; json parse error: ${jsonDepthError(nesting)}` };
      return { ok: false, error: `couldn't get version/kind; json parse error: ${parsed.message}` };
    }
    value = parsed.value;
  } else {
    const y = yamlToJson(text);
    if (!y.ok) return { ok: false, error: y.error };
    value = y.value;
  }
  if (value !== null && !isObject(value)) {
    return { ok: false, error: `couldn't get version/kind; json parse error: ${goUnmarshalTypeError(goJsonKind(value), interpretStruct)}` };
  }
  const object = (value ?? {}) as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind']) {
    const v = object[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      return { ok: false, error: `couldn't get version/kind; json parse error: ${goUnmarshalFieldTypeError(goJsonKind(v), '', key, 'string')}` };
    }
  }
  const apiVersion = (object['apiVersion'] as string | undefined) ?? '';
  const kind = (object['kind'] as string | undefined) ?? '';
  const gv = parseGroupVersion(apiVersion);
  if (!gv.ok) return { ok: false, error: gv.error };

  // gvkWithDefaults against the review type being decoded into
  const actual = { group: gv.group, version: gv.version, kind: kind || into.kind };
  if (actual.version === '' && actual.group === '') {
    actual.group = into.group;
    actual.version = into.version;
  }
  if (actual.version === '' && actual.group === into.group) actual.version = into.version;
  if (actual.version === '') return { ok: false, error: `Object 'apiVersion' is missing in '${text}'` };
  if (actual.group !== into.group || actual.version !== into.version || actual.kind !== into.kind) {
    // runtime.UseOrCreateObject creates the body's type, which the codec then cannot convert.
    const registered =
      (actual.group === into.group && into.registeredVersions.includes(actual.version) && actual.kind === into.kind) ||
      (actual.group === '' && actual.version === 'v1' && actual.kind === 'Status');
    const gvString = apiVersionOf(actual.group, actual.version);
    if (!registered) return { ok: false, error: `no kind ${goQuote(actual.kind)} is registered for version ${goQuote(gvString)} in scheme "pkg/runtime/scheme.go:100"` };
    return { ok: false, error: `converting (${actual.version}.${actual.kind}) to (${into.version}.${into.kind}): unknown conversion` };
  }
  return { ok: true, envelope: { apiVersion, kind, object } };
}
