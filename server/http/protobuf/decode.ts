// application/vnd.kubernetes.protobuf bodies as the JSON of the same object.
//
// kube-apiserver decodes the protobuf into the Go type; downstream everything here works on the JSON that Go type
// marshals to. So this decoder produces exactly that JSON: the envelope's apiVersion/kind, JSON field names, and the
// presence rules of encoding/json (omitempty scalars left out when zero, pointers kept when set to zero, structs
// always written, nil slices without omitempty as null, inline structs flattened), plus the custom marshalling of
// Time, MicroTime, Duration, IntOrString, Quantity, FieldsV1, RawExtension and the apiextensions unions. Field
// numbers the schema does not know are skipped, as gogo-protobuf's generated Unmarshal skips them.
import protobuf from 'protobufjs';
import type { Field, MapField, Type } from 'protobufjs';
import { errors, StatusError } from '../../api/errors.js';
import { exceedsNestingDepth, maxNestingDepth } from '../../api/nesting-depth.js';
import type { JsonObject, JsonValue, KubeObject } from '../../api/types.js';
import { setEmbeddedProtobufDecoder, specialTypes, type NestedCodec } from './apimachinery-json.js';
import { encodeMessageBody } from './encode.js';
import { envelopeMagic, hasEnvelopeMagic, readEnvelope } from './envelope.js';
import { decodeScalar, decodeString, isZeroScalar, zeroScalar, type ScalarValue } from './scalars.js';
import { messageForKind } from './schema/kinds.js';
import { goJSONOf, isWrapper, jsonNameOf, lookupMessage } from './schema/root.js';
import { concatBytes, groupWireFields, MalformedProtobufError, readPackedVarints, readWireFields, wireTypes, type WireField } from './wire.js';

export const kubernetesProtobufMediaType = 'application/vnd.kubernetes.protobuf';

function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function bytesOf(occurrences: WireField[], where: string): Uint8Array[] {
  return occurrences.map((o) => {
    if (o.wireType !== wireTypes.lengthDelimited) throw new MalformedProtobufError(`${where}: a message field cannot have wire type ${o.wireType}`);
    return o.value;
  });
}

// How many messages renderMessage is inside: recursive types (JSONSchemaProps) nest as deep as the bytes allow,
// two bytes a level, and the walk recurses per level, so it stops at the nesting limit of every request body.
let messageDepth = 0;

function tooDeep(): StatusError {
  return errors.badRequest(`the protobuf body nests messages deeper than ${maxNestingDepth} levels`);
}

const nested: NestedCodec = {
  render: (name, data, where) => renderMessage(lookupMessage(name), data, where),
  write: (name, value, w, where) => encodeMessageBody(lookupMessage(name), value, w, where),
};

/** One message as the JSON its Go type marshals to. */
export function renderMessage(type: Type, data: Uint8Array, path: string): JsonValue {
  if (messageDepth >= maxNestingDepth) throw tooDeep();
  messageDepth++;
  try {
    const special = specialTypes.get(type.fullName);
    if (special) return special.render(data, path || type.name, nested);
    if (isWrapper(type)) return renderList(type.fieldsArray[0]!, groupWireFields(readWireFields(data)).get(1) ?? [], path);
    const out: JsonObject = {};
    writeFields(type, data, out, path);
    return out;
  } finally {
    messageDepth--;
  }
}

function writeFields(type: Type, data: Uint8Array, out: JsonObject, path: string): void {
  const byId = groupWireFields(readWireFields(data));
  // Declaration order, which follows the Go struct, so the JSON keys come out in the order Go writes them.
  for (const field of type.fieldsArray) writeField(field, byId.get(field.id) ?? [], out, path);
}

/** An empty slice or map: omitted with omitempty, null without (a nil Go slice). */
function writeEmpty(rule: string, out: JsonObject, key: string): void {
  if (rule === 'r') out[key] = null;
}

function writeField(field: Field, occurrences: WireField[], out: JsonObject, path: string): void {
  const rule = goJSONOf(field);
  if (rule === 'x') return;
  const key = jsonNameOf(field);
  const where = child(path, key);
  if (field instanceof protobuf.MapField) {
    const entries = renderMap(field, occurrences, where);
    if (Object.keys(entries).length) out[key] = entries;
    else writeEmpty(rule, out, key);
    return;
  }
  if (field.repeated) {
    const list = renderList(field, occurrences, where);
    if (list.length) out[key] = list;
    else writeEmpty(rule, out, key);
    return;
  }
  const present = occurrences.length > 0;
  if (field.resolvedType instanceof protobuf.Type) {
    if (!present && (rule === 'p' || rule === 'P')) {
      if (rule === 'P') out[key] = null;
      return;
    }
    // A message field that occurs twice is merged, which for protobuf means decoding the concatenation.
    const data = concatBytes(bytesOf(occurrences, where));
    if (rule === 'i') {
      const inner = renderMessage(field.resolvedType, data, path);
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw new Error(`${where}: only plain messages can be inlined`);
      Object.assign(out, inner);
      return;
    }
    const value = renderMessage(field.resolvedType, data, where);
    // a named slice type (Verbs) as a non-pointer field: omitempty leaves out the empty slice, no omitempty writes null
    if (Array.isArray(value) && value.length === 0 && rule !== 'p' && rule !== 'P') writeEmpty(rule, out, key);
    else out[key] = value;
    return;
  }
  // Scalars: the last occurrence wins.
  const value = present ? decodeScalar(field.type, occurrences[occurrences.length - 1]!, where) : undefined;
  if (field.type === 'bytes') {
    // []byte: nil unless on the wire (gogo keeps an empty but present []byte non-nil)
    if (value === undefined) {
      if (rule === 'r' || rule === 'P') out[key] = null;
    } else if (value !== '' || rule !== 'o') out[key] = value;
    return;
  }
  if (rule === 'p' || rule === 'P') {
    if (value !== undefined) out[key] = value;
    else if (rule === 'P') out[key] = null;
  } else if (rule === 'r') {
    out[key] = value ?? zeroScalar(field.type);
  } else if (value !== undefined && !isZeroScalar(value)) {
    out[key] = value;
  }
}

function renderList(field: Field, occurrences: WireField[], where: string): JsonValue[] {
  const out: JsonValue[] = [];
  if (field.resolvedType instanceof protobuf.Type) {
    for (const data of bytesOf(occurrences, where)) out.push(renderMessage(field.resolvedType, data, `${where}[${out.length}]`));
    return out;
  }
  const packable = field.type !== 'string' && field.type !== 'bytes';
  for (const occurrence of occurrences) {
    if (packable && occurrence.wireType === wireTypes.lengthDelimited) {
      // Packed encoding; gogo writes proto2 repeated scalars unpacked, but a decoder must accept both.
      for (const raw of readPackedVarints(occurrence.value)) {
        out.push(decodeScalar(field.type, { id: field.id, wireType: wireTypes.varint, value: raw }, `${where}[${out.length}]`));
      }
    } else {
      out.push(decodeScalar(field.type, occurrence, `${where}[${out.length}]`));
    }
  }
  return out;
}

function renderMap(field: MapField, occurrences: WireField[], where: string): JsonObject {
  const out: JsonObject = {};
  for (const entry of bytesOf(occurrences, where)) {
    const byId = groupWireFields(readWireFields(entry));
    const keyField = byId.get(1)?.at(-1);
    const key = keyField ? decodeString(keyField, `${where} key`) : '';
    const valueOccurrences = byId.get(2) ?? [];
    const at = `${where}[${JSON.stringify(key)}]`;
    if (field.resolvedType instanceof protobuf.Type) {
      out[key] = renderMessage(field.resolvedType, concatBytes(bytesOf(valueOccurrences, at)), at);
    } else {
      const last = valueOccurrences.at(-1);
      const value: ScalarValue = last ? decodeScalar(field.type, last, at) : zeroScalar(field.type);
      out[key] = value;
    }
  }
  return out;
}

function asBadRequest(err: unknown): never {
  if (err instanceof StatusError) throw err;
  if (err instanceof MalformedProtobufError) throw errors.badRequest(`the protobuf body is malformed: ${err.message}`);
  if (err instanceof RangeError) throw tooDeep(); // the stack, before the depth count: never a crash
  throw err;
}

/** One message by full name ("k8s.io.api.core.v1.Pod"), as its Go type's JSON. */
export function decodeMessageAsJSON(messageName: string, data: Uint8Array): JsonValue {
  try {
    return renderMessage(lookupMessage(messageName), data, '');
  } catch (err) {
    return asBadRequest(err);
  }
}

/** An enveloped object ("k8s\0" + runtime.Unknown) as its JSON, apiVersion and kind first as Go writes TypeMeta. */
function renderEnveloped(body: Uint8Array): KubeObject {
  const envelope = readEnvelope(body.subarray(envelopeMagic.length));
  // runtime.NewMissingKindErr / NewMissingVersionErr, as the protobuf serializer's Decode returns them
  const typeMeta = `runtime.TypeMeta{APIVersion:${JSON.stringify(envelope.apiVersion)}, Kind:${JSON.stringify(envelope.kind)}}`;
  if (!envelope.kind) throw errors.badRequest(`Object 'Kind' is missing in '${typeMeta}'`);
  if (!envelope.apiVersion) throw errors.badRequest(`Object 'apiVersion' is missing in '${typeMeta}'`);
  const message = messageForKind(envelope.apiVersion, envelope.kind);
  if (!message) {
    // the scheme's NotRegisteredError: kinds without a message (custom resources, Table) cannot come as protobuf
    throw errors.badRequest(`no kind ${JSON.stringify(envelope.kind)} is registered for version ${JSON.stringify(envelope.apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"`);
  }
  const rendered = renderMessage(lookupMessage(message), envelope.raw, '') as JsonObject;
  return { kind: envelope.kind, apiVersion: envelope.apiVersion, ...rendered } as KubeObject;
}

setEmbeddedProtobufDecoder((raw) => renderEnveloped(raw) as JsonObject);

/**
 * A `Content-Type: application/vnd.kubernetes.protobuf` request body ("k8s\0" + runtime.Unknown{typeMeta, raw}) as
 * the object's JSON. Throws a 400 StatusError for bodies that are not valid protobuf of the announced kind.
 */
export function decodeKubernetesProtobuf(body: Buffer): KubeObject {
  // kube's Serializer.Decode: "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
  if (!hasEnvelopeMagic(body)) {
    throw errors.badRequest(`provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
  }
  if (body.length === envelopeMagic.length) throw errors.badRequest('empty body');
  try {
    const rendered = renderEnveloped(body);
    // JSON carried as bytes (FieldsV1, RawExtension) was parsed without the raw-body scan: the object as a whole is bounded.
    if (exceedsNestingDepth(rendered)) throw tooDeep();
    return rendered;
  } catch (err) {
    return asBadRequest(err);
  }
}
