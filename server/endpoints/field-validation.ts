// Server-side field validation (the fieldValidation query parameter), as kube-apiserver's handlers do it with the
// strict decoders: Strict fails the request, Warn (the default since 1.27) sends each problem as a warning, Ignore
// drops the check. Problems are unknown fields at any depth (`unknown field "spec.template.spec.containers[0].imagee"`),
// duplicate fields (`duplicate field "spec.replicas"`) and, for YAML bodies, yaml's duplicate keys.
// - create and update (create.go/update.go): the body is decoded strictly; Strict answers transformDecodeError's
//   400 `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: …`.
// - patch (patch.go): the patch's own strict errors (duplicates; a JSON patch's operations, prefixed "json patch")
//   come first, then the patched object's unknown fields; Strict answers 422 Invalid on the field `patch`, whose
//   value is the patched JSON (JSON and merge patch) or the patch map as %+v prints it (strategic merge patch).
// Built-in kinds are decoded into their Go types (server/api/openapi/strict-decoding.ts: client-node's models, loaded
// on the first request for the kind) whatever the directive: a value of the wrong type fails the request with kube's
// decode error (create/update: 400 from transformDecodeError; patches: 422 on the field `patch`; server-side apply:
// structured-merge-diff's 500), and unknown fields are dropped before anything is stored. Custom resources are
// checked against their schema (what pruning would drop).
import { errors } from '../api/errors.js';
import { parseJsonOrYamlDocument, goJsonMarshal, parseGroupVersion, type JsonNode } from '../api/go-json-document.js';
import { interpretTypeMeta } from '../api/go-strict-decoder.js';
import { builtinModelOf } from '../api/openapi/builtin-schemas.js';
import { duplicateFieldErrors, kindFields, type KindFields } from '../api/openapi/strict-decoding.js';
import type { GroupVersionKind } from '../api/openapi/resolver.js';
import type { KubeObject } from '../api/types.js';
import { goQuote } from '../options/go-strconv.js';
import { unknownFields, unknownObjectMetaFields } from '../registry/known-fields.js';
import type { ResourceInfo } from '../registry/resource.js';
import { goFormatV } from './patch/go-json.js';
import { JSONPatchType, StrategicMergePatchType } from './patch/index.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * The fieldValidation option (its first query value): "" is Warn. Any other value fails kube's
 * Validate{Create,Update,Patch}Options with a 422 Invalid of that options kind.
 */
export function parseFieldValidation(values: readonly string[] | undefined, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  const v = values?.[0] ?? '';
  if (v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw errors.invalid({ group: 'meta.k8s.io', kind }, '', [
    { type: 'NotSupported', field: 'fieldValidation', badValue: v, detail: 'supported values: "", "Ignore", "Strict", "Warn"' },
  ]);
}

/** A create or update body as it arrived: the strict decoder reads the JSON or YAML text, not the parsed object. */
export interface RequestBody {
  raw: Buffer;
  mediaType: string;
}

/** What a request body is decoded into: a resource, or the autoscaling/v1 Scale of a /scale subresource. */
type Target = GroupVersionKind & { ownUnknownFields?: (obj: KubeObject) => string[] };

const scale: Target = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

// Served kinds the CEL schema resolver does not describe (kube does not type-check policies against them either).
const modelsForValidationOnly: Readonly<Record<string, string>> = {
  'apiextensions.k8s.io/v1/CustomResourceDefinition': 'V1CustomResourceDefinition',
};

function targetOf(info: ResourceInfo): Target {
  const own = info.strategy.unknownFields;
  return { group: info.group, version: info.version, kind: info.kind, ...(own ? { ownUnknownFields: (o: KubeObject) => own(o) } : {}) };
}

async function fieldsOf(t: Target): Promise<KindFields | undefined> {
  if (t.ownUnknownFields) return undefined;
  const model = builtinModelOf(t) ?? modelsForValidationOnly[`${t.group}/${t.version}/${t.kind}`];
  return model ? kindFields(model) : undefined;
}

const unknown = (paths: readonly string[]): string[] => paths.map((p) => `unknown field ${goQuote(p)}`);

/** The strict errors of a decoded object whose kind has no Go-type description: a custom resource, or the fallback. */
function unknownFieldsWithoutModel(t: Target, obj: KubeObject): string[] {
  const record = obj as Record<string, unknown>;
  if (t.ownUnknownFields) return unknown([...unknownObjectMetaFields(record), ...t.ownUnknownFields(obj)]);
  return unknown(unknownFields(t.kind, record));
}

/** The JSON document the strict decoder reads; undefined for protobuf, which kube decodes without strictness. */
function bodyDocument(body: RequestBody | undefined, obj: KubeObject): { node: JsonNode; yamlDuplicateKeys: string[] } | undefined {
  if (body?.mediaType === 'application/vnd.kubernetes.protobuf') return undefined;
  const parsed = body ? parseJsonOrYamlDocument(body.raw.toString('utf8')) : undefined;
  if (parsed?.ok) return parsed;
  const fromObject = parseJsonOrYamlDocument(JSON.stringify(obj));
  return fromObject.ok ? fromObject : undefined;
}

/** yaml.v2's TypeError, which YAMLToJSONStrict returns for duplicate keys: one error listing them all. */
const yamlStrictErrors = (dups: readonly string[]): string[] => (dups.length > 0 ? [`yaml: unmarshal errors:\n  ${dups.join('\n  ')}`] : []);

/** handlers' summarizeData(body, 30): the body's first 30 bytes, for an error about a body of no known kind (rest.go). */
function summarizeData(data: Buffer): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, 30);
  // JSON as text, anything else (YAML) in hex
  const shown = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return data.length > 30 ? `${shown} ...` : shown;
}

/** transformDecodeError: the kind and version the body named, and the kind it was decoded into. */
function cannotBeHandled(t: Target, obj: KubeObject, error: string) {
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? parseGroupVersion(obj.apiVersion) : undefined;
  const version = apiVersion?.ok ? apiVersion.version : t.version;
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : t.kind;
  return errors.badRequest(`${kind} in version ${goQuote(version)} cannot be handled as a ${t.kind}: ${error}`);
}

/**
 * handlers' addStrictDecodingWarnings and parseYAMLWarnings (k8s.io/apiserver/pkg/endpoints/handlers/rest.go): a
 * yaml.v2 "yaml: unmarshal errors:\n  line 7: …" error becomes one warning per line, trimmed (a header cannot carry
 * the newline: NewWarningHeader refuses control characters); any other strict error is one warning as it is.
 */
export function strictDecodingWarnings(strict: readonly string[]): string[] {
  const shortPrefix = 'yaml: unmarshal errors:\n';
  const longPrefix = 'error converting YAML to JSON: yaml: unmarshal errors:\n';
  return strict.flatMap((e) => {
    const rest = e.startsWith(shortPrefix) ? e.slice(shortPrefix.length) : e.startsWith(longPrefix) ? e.slice(longPrefix.length) : undefined;
    return rest === undefined ? [e] : rest.split('\n').map((line) => line.trim());
  });
}

function reportStrict(t: Target, obj: KubeObject, mode: FieldValidation, warnings: string[], strict: readonly string[]): void {
  if (mode === 'Ignore' || strict.length === 0) return;
  if (mode === 'Strict') throw cannotBeHandled(t, obj, `strict decoding error: ${strict.join(', ')}`);
  warnings.push(...strictDecodingWarnings(strict));
}

/**
 * The create or update body decoded into its Go type (create.go/update.go: the json serializer, whatever the
 * fieldValidation): a value of the wrong type is a 400 whatever the directive, unknown fields are dropped, and the
 * strictness errors are reported as the directive says. Returns the object to go on with.
 */
async function decodeBody(t: Target, obj: KubeObject, mode: FieldValidation, warnings: string[], body: RequestBody | undefined): Promise<KubeObject> {
  const fields = await fieldsOf(t);
  // protobuf bodies are typed by construction and decoded without strictness
  if (body?.mediaType === 'application/vnd.kubernetes.protobuf') return obj;
  if (!fields) {
    if (mode === 'Ignore') return obj;
    const doc = bodyDocument(body, obj);
    if (!doc) return obj;
    // custom resources decode into a map first (duplicates at any depth), then their schema finds unknown fields
    const duplicates = t.ownUnknownFields ? duplicateFieldErrors(doc.node) : [];
    reportStrict(t, obj, mode, warnings, [...yamlStrictErrors(doc.yamlDuplicateKeys), ...duplicates, ...unknownFieldsWithoutModel(t, obj)]);
    return obj;
  }
  const doc = bodyDocument(body, obj);
  if (!doc || doc.node.type !== 'object') return obj;
  // meta.Interpret reads apiVersion and kind first; transformDecodeError then has no kind to name
  const typeMeta = interpretTypeMeta(doc.node);
  if (!typeMeta.ok && typeMeta.error.startsWith("couldn't get version/kind")) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${t.kind}): ${typeMeta.error} (${summarizeData(body?.raw ?? Buffer.from(JSON.stringify(obj)))})`);
  }
  const decoded = fields.decodeJson(doc.node);
  if (!decoded.ok) throw cannotBeHandled(t, obj, decoded.error);
  reportStrict(t, obj, mode, warnings, [...yamlStrictErrors(doc.yamlDuplicateKeys), ...decoded.strict]);
  decoded.prune();
  return doc.node.value as KubeObject;
}

/** A create or update body of the resource, decoded into its kind: the object to store. */
export function checkResourceFields(info: ResourceInfo, obj: KubeObject, mode: FieldValidation, warnings: string[], body?: RequestBody): Promise<KubeObject> {
  return decodeBody(targetOf(info), obj, mode, warnings, body);
}

/** An update body of a /scale subresource, decoded into an autoscaling/v1 Scale. */
export function checkScaleFields(obj: KubeObject, mode: FieldValidation, warnings: string[], body?: RequestBody): Promise<KubeObject> {
  return decodeBody(scale, obj, mode, warnings, body);
}

// ---- patches ----------------------------------------------------------------------------------------------

/** A patch body as the strict decoder reads it (JSON only); undefined when it is not JSON (the patcher fails it). */
function patchDocument(patch: Buffer): JsonNode | undefined {
  // parseJsonOrYamlDocument reads JSON objects; wrapping also lets it read a JSON patch's array
  const parsed = parseJsonOrYamlDocument(`{"patch":${patch.toString('utf8')}\n}`);
  return parsed.ok && parsed.node.type === 'object' ? parsed.node.members[0]?.node : undefined;
}

const jsonPatchOpFields = new Set(['op', 'path', 'from', 'value']);

/** kjson.UnmarshalStrict(patch, &[]jsonPatchOp), each error prefixed "json patch" as patch.go does. */
function jsonPatchStrictErrors(doc: JsonNode): string[] {
  if (doc.type !== 'array') return [];
  const out: string[] = [];
  doc.items.forEach((op, i) => {
    if (op.type !== 'object') return;
    const seen = new Set<string>();
    for (const { key } of op.members) {
      const message = !jsonPatchOpFields.has(key) ? `unknown field ${goQuote(`[${i}].${key}`)}` : seen.has(key) ? `duplicate field ${goQuote(`[${i}].${key}`)}` : undefined;
      seen.add(key);
      if (message && !out.includes(`json patch ${message}`)) out.push(`json patch ${message}`);
    }
  });
  return out;
}

/** Checks a patched object (and drops what its Go type does not keep); returns the object to go on with. */
export type PatchedFieldCheck = (patched: KubeObject, warnings: string[]) => KubeObject;

const patchInvalid = (badValue: string, detail: string) => errors.invalid({ group: '', kind: '' }, '', [{ type: 'Invalid', field: 'patch', badValue, detail }]);

/**
 * Prepares the decoding of a patch request's result into its Go type (loading the kind's fields), and returns the
 * check of each patched object (the patcher may run more than once on conflicts). `scaleSubresource` patches an
 * autoscaling/v1 Scale. As patch.go: a decode error (a value of the wrong type) is a 422 on the field `patch`
 * whatever the directive; strictness errors are reported as the directive says.
 */
export async function patchedFieldCheck(info: ResourceInfo, scaleSubresource: boolean, mode: FieldValidation, patchType: string, patch: Buffer): Promise<PatchedFieldCheck> {
  const t = scaleSubresource ? scale : targetOf(info);
  const fields = await fieldsOf(t);
  if (mode === 'Ignore' && !fields) return (patched) => patched;
  const doc = mode === 'Ignore' ? undefined : patchDocument(patch);
  const smp = patchType === StrategicMergePatchType;
  const patchErrors = !doc ? [] : patchType === JSONPatchType ? jsonPatchStrictErrors(doc) : duplicateFieldErrors(doc);
  const smpBadValue = (): string => goFormatV((doc ?? patchDocument(patch))?.value ?? {});
  return (patched, warnings) => {
    const record = patched as Record<string, unknown>;
    let resultErrors: string[];
    let prune: (() => void) | undefined;
    if (!fields) resultErrors = unknownFieldsWithoutModel(t, patched);
    else {
      // JSON and merge patches: the patch library re-marshals the document (Go maps: keys sorted) and the json
      // serializer decodes it; strategic merge patches convert the patched map with the unstructured converter
      const decoded = smp ? fields.fromUnstructured(record) : fields.decodePlain(record);
      if (!decoded.ok) throw patchInvalid(smp ? smpBadValue() : goJsonMarshal(patched), decoded.error);
      resultErrors = decoded.strict;
      prune = decoded.prune;
    }
    const strict = [...patchErrors, ...resultErrors];
    if (strict.length > 0 && mode === 'Strict') throw patchInvalid(smp ? smpBadValue() : goJsonMarshal(patched), `strict decoding error: ${strict.join(', ')}`);
    if (mode === 'Warn') warnings.push(...strictDecodingWarnings(strict));
    prune?.();
    return patched;
  };
}

// ---- server-side apply ------------------------------------------------------------------------------------

/**
 * Server-side apply of a built-in kind: structured-merge-diff converts the configuration to a typed value first
 * (structuredmerge.go), and a value of the wrong type fails the request as a plain error, a 500 with
 * "failed to create typed patch object (ns/name; gvk): .spec.replicas: expected numeric (int or float), got string"
 * (several errors as "errors:\n  …"). Configurations naming another kind are left to the apply's own checks.
 */
export async function checkApplyConfigurationTypes(info: ResourceInfo, config: Record<string, unknown>, namespace: string, name: string): Promise<void> {
  const t = targetOf(info);
  const apiVersion = t.group === '' ? t.version : `${t.group}/${t.version}`;
  if (config['apiVersion'] !== apiVersion || config['kind'] !== t.kind) return;
  const fields = await fieldsOf(t);
  if (!fields) return;
  const meta = config['metadata'] !== null && typeof config['metadata'] === 'object' && !Array.isArray(config['metadata']) ? (config['metadata'] as Record<string, unknown>) : {};
  const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : namespace;
  const n = typeof meta['name'] === 'string' ? meta['name'] : name;
  const gvk = `${t.group}/${t.version}, Kind=${t.kind}`;
  const errs = fields.applyConfigurationTypeErrors(config);
  if (errs.length > 0) {
    const list = errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
    throw errors.withCode(500, '', `failed to create typed patch object (${ns}/${n}; ${gvk}): ${list}`);
  }
  // what the schema's scalars accept and the Go type does not (1.5 for an int32, a bad quantity or time) fails the
  // conversion of the merged object back to the typed object (Scheme.unstructuredToTyped); the configuration holds
  // every value that can be wrong there, the live object was typed when stored
  const converted = fields.fromUnstructured(config);
  if (!converted.ok) throw errors.withCode(500, '', `failed to convert new object (${ns}/${n}; ${gvk}) to proper version: unable to convert unstructured object to ${gvk}: ${converted.error}`);
}
