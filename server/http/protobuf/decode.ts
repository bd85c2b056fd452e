// application/vnd.kubernetes.protobuf request bodies as the v1 JSON of the same object.
//
// kube-apiserver decodes the protobuf into the Go type; downstream everything here works on the JSON that
// Go type marshals to. So this decoder produces exactly that JSON: the envelope's apiVersion/kind, JSON field
// names, and the presence rules of encoding/json (omitempty scalars left out when zero, pointers kept when set
// to zero, structs always written, inline structs flattened), plus the custom marshalling of Time, MicroTime,
// IntOrString, Quantity and FieldsV1. A kubectl protobuf body and the JSON kubectl would have sent are equal.
import protobuf from 'protobufjs';
import type { Field, FieldBase, MapField, Type } from 'protobufjs';
import { errors, StatusError } from '../../api/errors.js';
import { exceedsNestingDepth, maxNestingDepth } from '../../api/nesting-depth.js';
import type { JsonObject, JsonValue, KubeObject } from '../../api/types.js';
import { apimachineryRenderers } from './apimachinery-json.js';
import { decodeScalar, decodeString, decodeVarint, isZeroScalar, zeroScalar, type ScalarValue } from './scalars.js';
import { goJSONOf, kubernetesProtoRoot, protobufKinds } from './schema/root.js';
import {
  concatBytes,
  groupWireFields,
  isZeroWireField,
  MalformedProtobufError,
  readPackedVarints,
  readWireFields,
  wireTypes,
  type WireField,
} from './wire.js';

export const kubernetesProtobufMediaType = 'application/vnd.kubernetes.protobuf';

/** "k8s\0": the four bytes before every runtime.Unknown envelope (k8s.io/apimachinery protobuf serializer). */
const envelopeMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const supportedKindsText = (() => {
  const core = protobufKinds.filter((k) => k.apiVersion === 'v1').map((k) => k.kind);
  const others = protobufKinds.filter((k) => k.apiVersion !== 'v1').map((k) => `${k.apiVersion} ${k.kind}`);
  return `v1 ${core.join(', ')}${others.length ? ` and ${others.join(', ')}` : ''}`;
})();

const sendJSONAdvice = 'send the object as application/json instead, which this server accepts for every kind';

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

/** One message as the JSON its Go type marshals to. */
function renderMessage(type: Type, data: Uint8Array, path: string): JsonValue {
  if (messageDepth >= maxNestingDepth) throw tooDeep();
  messageDepth++;
  try {
    const special = apimachineryRenderers.get(type.fullName);
    if (special) return special(data, path || type.name);
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
  for (const field of type.fieldsArray) {
    const occurrences = byId.get(field.id) ?? [];
    byId.delete(field.id);
    writeField(field, occurrences, out, path);
  }
  for (const [id, occurrences] of byId) {
    if (occurrences.every((o) => isZeroWireField(o))) continue;
    throw errors.badRequest(
      `the protobuf body sets field ${id} of ${type.fullName.slice(1)}${path ? ` (at ${path})` : ''}, which this server's ` +
        `protobuf schema does not know, so decoding it would lose data; ${sendJSONAdvice}`,
    );
  }
}

function writeField(field: Field, occurrences: WireField[], out: JsonObject, path: string): void {
  const key = field.name;
  const where = child(path, key);
  if (field instanceof protobuf.MapField) {
    const entries = renderMap(field, occurrences, where);
    if (Object.keys(entries).length) out[key] = entries;
    return;
  }
  if (field.repeated) {
    const list = renderList(field, occurrences, where);
    if (list.length) out[key] = list;
    return;
  }
  const present = occurrences.length > 0;
  const rule = goJSONOf(field);
  if (field.resolvedType instanceof protobuf.Type) {
    if (rule === 'pointer' && !present) return;
    // A message field that occurs twice is merged, which for protobuf means decoding the concatenation.
    const data = concatBytes(bytesOf(occurrences, where));
    if (rule === 'inline') {
      const inner = renderMessage(field.resolvedType, data, path);
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw new Error(`${where}: only plain messages can be inlined`);
      Object.assign(out, inner);
      return;
    }
    out[key] = renderMessage(field.resolvedType, data, where);
    return;
  }
  // Scalars: the last occurrence wins.
  const value = present ? renderScalar(field, occurrences[occurrences.length - 1]!, where) : undefined;
  if (rule === 'pointer') {
    if (value !== undefined) out[key] = value;
  } else if (rule === 'required') {
    out[key] = value ?? zeroScalar(field.type);
  } else if (value !== undefined && !isZeroScalar(value)) {
    out[key] = value;
  }
}

function renderScalar(field: FieldBase, occurrence: WireField, where: string): ScalarValue {
  if (field.resolvedType instanceof protobuf.Enum) {
    // Kubernetes protos declare no enums (their "enums" are strings), but a proto enum renders as its name.
    const n = decodeVarint(occurrence, 'int32', where) as number;
    return field.resolvedType.valuesById[n] ?? n;
  }
  return decodeScalar(field.type, occurrence, where);
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
        out.push(renderScalar(field, { id: field.id, wireType: wireTypes.varint, value: raw }, `${where}[${out.length}]`));
      }
    } else {
      out.push(renderScalar(field, occurrence, `${where}[${out.length}]`));
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
      out[key] = last ? renderScalar(field, last, at) : zeroScalar(field.type);
    }
  }
  return out;
}

function asBadRequest(err: unknown): never {
  if (err instanceof StatusError) throw err;
  if (err instanceof MalformedProtobufError) throw errors.badRequest(`the protobuf body is malformed: ${err.message}`);
  throw err;
}

/** One message of the schema subset, by full name ("k8s.io.api.core.v1.Pod"), as its Go type's JSON. */
export function decodeMessageAsJSON(messageName: string, data: Uint8Array): JsonValue {
  try {
    return renderMessage(kubernetesProtoRoot.lookupType(messageName), data, '');
  } catch (err) {
    return asBadRequest(err);
  }
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

function readEnvelope(body: Uint8Array): Envelope {
  const byId = groupWireFields(readWireFields(body));
  const last = (id: number): WireField | undefined => byId.get(id)?.at(-1);
  const str = (f: WireField | undefined, where: string): string => (f ? decodeString(f, where) : '');
  const typeMeta = groupWireFields(readWireFields(concatBytes(bytesOf(byId.get(1) ?? [], 'typeMeta'))));
  const raw = last(2);
  if (raw && raw.wireType !== wireTypes.lengthDelimited) throw new MalformedProtobufError(`raw cannot have wire type ${raw.wireType}`);
  return {
    apiVersion: str(typeMeta.get(1)?.at(-1), 'typeMeta.apiVersion'),
    kind: str(typeMeta.get(2)?.at(-1), 'typeMeta.kind'),
    raw: raw ? (raw.value as Uint8Array) : new Uint8Array(0),
    contentEncoding: str(last(3), 'contentEncoding'),
    contentType: str(last(4), 'contentType'),
  };
}

/**
 * A `Content-Type: application/vnd.kubernetes.protobuf` request body ("k8s\0" + runtime.Unknown{typeMeta, raw})
 * as the object's v1 JSON. Throws a 415 StatusError for kinds outside the schema subset and a 400 for bodies
 * that are not valid protobuf of the announced kind.
 */
export function decodeKubernetesProtobuf(body: Buffer): KubeObject {
  if (body.length < envelopeMagic.length || !body.subarray(0, envelopeMagic.length).equals(envelopeMagic)) {
    throw errors.badRequest(`the body of the request is not a Kubernetes protobuf message: it does not start with the "k8s\\x00" envelope prefix`);
  }
  try {
    const envelope = readEnvelope(body.subarray(envelopeMagic.length));
    if (!envelope.apiVersion || !envelope.kind) {
      throw errors.badRequest(`the protobuf envelope does not name the object's apiVersion and kind (runtime.Unknown typeMeta)`);
    }
    const gvk = `${envelope.apiVersion} ${envelope.kind}`;
    if (envelope.contentEncoding) {
      throw errors.unsupportedMediaType(`the protobuf envelope of ${gvk} uses contentEncoding "${envelope.contentEncoding}", which this server does not support; ${sendJSONAdvice}`);
    }
    if (envelope.contentType && envelope.contentType !== kubernetesProtobufMediaType) {
      throw errors.unsupportedMediaType(`the protobuf envelope of ${gvk} carries contentType "${envelope.contentType}"; ${sendJSONAdvice}`);
    }
    const entry = protobufKinds.find((k) => k.apiVersion === envelope.apiVersion && k.kind === envelope.kind);
    if (!entry) {
      throw errors.unsupportedMediaType(
        `this server decodes ${kubernetesProtobufMediaType} bodies only for ${supportedKindsText}, not ${gvk}; ${sendJSONAdvice}`,
      );
    }
    const rendered = renderMessage(kubernetesProtoRoot.lookupType(entry.message), envelope.raw, '') as JsonObject;
    // JSON carried as bytes (FieldsV1) was parsed without the raw-body scan: the decoded object as a whole is bounded.
    if (exceedsNestingDepth(rendered)) throw tooDeep();
    // TypeMeta is inline and first in every Go API type: kind, then apiVersion.
    return { kind: envelope.kind, apiVersion: envelope.apiVersion, ...rendered } as KubeObject;
  } catch (err) {
    return asBadRequest(err);
  }
}
