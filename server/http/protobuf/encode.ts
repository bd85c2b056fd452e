// Objects (their Go JSON) as application/vnd.kubernetes.protobuf, written the way gogo-protobuf's generated
// MarshalToSizedBuffer writes the Go value the JSON decodes into: fields in ascending number order, non-pointer
// scalars and structs always (zero values included), pointers only when set, non-nil []byte even when empty,
// repeated scalars unpacked, map entries sorted by key. Fields the Go type does not have are dropped, as decoding
// the JSON into the Go type drops them.
import protobuf from 'protobufjs';
import type { Field, Type, Writer } from 'protobufjs';
import type { JsonObject, JsonValue } from '../../api/types.js';
import { specialTypes, type NestedCodec } from './apimachinery-json.js';
import { writeEnvelope } from './envelope.js';
import { messageForKind } from './schema/kinds.js';
import { goJSONOf, isWrapper, jsonNameOf, lookupMessage } from './schema/root.js';
import { wireTypes } from './wire.js';

const byNumber = new WeakMap<Type, readonly Field[]>();

function fieldsByNumber(type: Type): readonly Field[] {
  let fields = byNumber.get(type);
  if (!fields) {
    fields = [...type.fieldsArray].sort((a, b) => a.id - b.id);
    byNumber.set(type, fields);
  }
  return fields;
}

const nested: NestedCodec = {
  render: () => {
    throw new Error('the encoder does not render');
  },
  write: (name, value, w, where) => encodeMessageBody(lookupMessage(name), value, w, where),
};

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function wireTypeOf(type: string): number {
  switch (type) {
    case 'string':
    case 'bytes':
      return wireTypes.lengthDelimited;
    case 'double':
      return wireTypes.fixed64;
    default:
      return wireTypes.varint;
  }
}

function writeScalar(type: string, value: JsonValue | undefined, w: Writer, where: string): void {
  switch (type) {
    case 'string':
      w.string(typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));
      return;
    case 'bytes':
      w.bytes(typeof value === 'string' ? Buffer.from(value, 'base64') : new Uint8Array(0));
      return;
    case 'bool':
      w.bool(value === true);
      return;
    case 'int32':
      w.int32(typeof value === 'number' ? value : 0);
      return;
    case 'int64':
      // protobufjs takes the decimal string for values past 2^53 exactly as JSON.parse left them
      w.int64(typeof value === 'number' ? (Number.isSafeInteger(value) ? value : BigInt(Math.trunc(value)).toString()) : 0);
      return;
    case 'double':
      w.double(typeof value === 'number' ? value : 0);
      return;
    default:
      throw new Error(`${where}: unsupported scalar type ${type}`);
  }
}

/** A message-typed value: fork, the body, length. */
function writeMessageField(id: number, type: Type, value: JsonValue | undefined, w: Writer, where: string): void {
  w.uint32((id << 3) | wireTypes.lengthDelimited).fork();
  encodeMessageBody(type, value, w, where);
  w.ldelim();
}

/** The fields of one message for a JSON value (undefined or null: the zero Go value). */
export function encodeMessageBody(type: Type, value: JsonValue | undefined, w: Writer, where: string): void {
  const special = specialTypes.get(type.fullName);
  if (special) {
    special.write(value, w, where, nested);
    return;
  }
  if (isWrapper(type)) {
    const items = fieldsByNumber(type)[0]!;
    if (Array.isArray(value)) for (const item of value) writeScalarOrMessage(items, item, w, where);
    return;
  }
  const obj = isObject(value) ? value : {};
  for (const field of fieldsByNumber(type)) {
    const rule = goJSONOf(field);
    if (rule === 'x') continue;
    const key = jsonNameOf(field);
    const v = rule === 'i' ? obj : Object.hasOwn(obj, key) ? obj[key] : undefined;
    encodeField(field, rule, v, w, `${where}.${key}`);
  }
}

function writeScalarOrMessage(field: Field, value: JsonValue | undefined, w: Writer, where: string): void {
  if (field.resolvedType instanceof protobuf.Type) {
    writeMessageField(field.id, field.resolvedType, value, w, where);
    return;
  }
  w.uint32((field.id << 3) | wireTypeOf(field.type));
  writeScalar(field.type, value, w, where);
}

function encodeField(field: Field, rule: string, value: JsonValue | undefined, w: Writer, where: string): void {
  if (field instanceof protobuf.MapField) {
    if (!isObject(value)) return;
    const valueType = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    // gogo sorts the keys (github_com_gogo_protobuf_sortkeys) for a deterministic encoding
    for (const k of Object.keys(value).sort()) {
      w.uint32((field.id << 3) | wireTypes.lengthDelimited).fork();
      w.uint32(0x0a).string(k);
      if (valueType) writeMessageField(2, valueType, value[k], w, `${where}[${JSON.stringify(k)}]`);
      else {
        w.uint32((2 << 3) | wireTypeOf(field.type));
        writeScalar(field.type, value[k], w, where);
      }
      w.ldelim();
    }
    return;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) return;
    value.forEach((item, i) => writeScalarOrMessage(field, item, w, `${where}[${i}]`));
    return;
  }
  const absent = value === undefined || value === null;
  if (field.resolvedType instanceof protobuf.Type) {
    // a pointer is written when set; a struct always (its zero value included)
    if (absent && (rule === 'p' || rule === 'P')) return;
    writeMessageField(field.id, field.resolvedType, value, w, where);
    return;
  }
  // pointers and []byte are written when non-nil; other scalars always
  if (absent && (rule === 'p' || rule === 'P' || field.type === 'bytes')) return;
  w.uint32((field.id << 3) | wireTypeOf(field.type));
  writeScalar(field.type, value, w, where);
}

/** The message of an object's apiVersion/kind, undefined when it has none (custom resources, Table). */
export function protobufMessageOf(obj: JsonObject): string | undefined {
  const { apiVersion, kind } = obj;
  return typeof apiVersion === 'string' && typeof kind === 'string' ? messageForKind(apiVersion, kind) : undefined;
}

/** An object as "k8s\0" + runtime.Unknown, undefined when its kind has no protobuf message. */
export function encodeKubernetesProtobuf(obj: JsonObject): Uint8Array | undefined {
  const message = protobufMessageOf(obj);
  if (!message) return undefined;
  const w = protobuf.Writer.create();
  encodeMessageBody(lookupMessage(message), obj, w, String(obj['kind']));
  return writeEnvelope(obj['apiVersion'] as string, obj['kind'] as string, w.finish());
}

/** The body of one message by full name, without envelope (what a RawSerializer writes). */
export function encodeMessage(messageName: string, value: JsonValue): Uint8Array {
  const w = protobuf.Writer.create();
  encodeMessageBody(lookupMessage(messageName), value, w, messageName);
  return w.finish();
}
