// The types whose JSON is not their message's fields: each has its own MarshalJSON/UnmarshalJSON in Go, and its
// own protobuf marshalling (Time drops nanoseconds, IntOrString writes all three fields, …). Both directions here,
// by message full name.
import type { Writer } from 'protobufjs';
import type { JsonObject, JsonValue } from '../../api/types.js';
import { formatGoDuration, parseGoDuration } from './go-duration.js';
import { decodeInt64, decodeString, decodeVarint } from './scalars.js';
import { concatBytes, groupWireFields, MalformedProtobufError, readWireFields, wireTypes, type WireField } from './wire.js';

type FieldsById = Map<number, WireField[]>;

/** Decoding and encoding of other messages, for the types that contain them (JSONSchemaPropsOrBool, …). */
export interface NestedCodec {
  render(messageName: string, data: Uint8Array, where: string): JsonValue;
  /** Writes the body of one message (the fields, no tag or length) for a JSON value. */
  write(messageName: string, value: JsonValue | undefined, w: Writer, where: string): void;
}

export interface SpecialType {
  /** The message's bytes as the JSON its Go type marshals to. */
  render(data: Uint8Array, where: string, nested: NestedCodec): JsonValue;
  /** The JSON value (undefined when absent) as the message's fields, as gogo-protobuf marshals the Go value. */
  write(value: JsonValue | undefined, w: Writer, where: string, nested: NestedCodec): void;
}

const tag = (id: number, wireType: number): number => (id << 3) | wireType;

function lastOf(byId: FieldsById, id: number): WireField | undefined {
  const list = byId.get(id);
  return list?.[list.length - 1];
}

function int64Of(byId: FieldsById, id: number, where: string): bigint {
  const f = lastOf(byId, id);
  return f ? decodeInt64(f, where) : 0n;
}

function bytesOf(byId: FieldsById, id: number, where: string): Uint8Array | undefined {
  const list = byId.get(id);
  if (!list?.length) return undefined;
  return concatBytes(list.map((f) => messageBytes(f, where)));
}

function messageBytes(f: WireField, where: string): Uint8Array {
  if (f.wireType !== wireTypes.lengthDelimited) throw new MalformedProtobufError(`${where}: a message field cannot have wire type ${f.wireType}`);
  return f.value;
}

/** Bad stored JSON for a typed field: a bug or a hand-written storage entry, not a client error. */
function notEncodable(where: string, what: string, value: JsonValue | undefined): Error {
  return new Error(`${where}: cannot encode ${JSON.stringify(value)} as ${what}`);
}

// ---- times ----

// Go's zero time.Time (0001-01-01T00:00:00Z) as Unix seconds; metav1 marshals it as null.
const zeroTimeUnixSeconds = -62135596800n;
// RFC 3339 has four-digit years: 0000-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
const minRFC3339Seconds = -62167219200n;
const maxRFC3339Seconds = 253402300799n;
const nanosPerSecond = 1_000_000_000n;

function formatTime(seconds: bigint, nanos: bigint, withMicros: boolean, where: string): JsonValue {
  // time.Unix normalises nanos outside [0, 1e9) into the seconds.
  const total = seconds * nanosPerSecond + nanos;
  let sec = total / nanosPerSecond;
  let nsec = total % nanosPerSecond;
  if (nsec < 0n) {
    sec -= 1n;
    nsec += nanosPerSecond;
  }
  if (sec === zeroTimeUnixSeconds && nsec === 0n) return null;
  if (sec < minRFC3339Seconds || sec > maxRFC3339Seconds) {
    throw new MalformedProtobufError(`${where}: time ${sec}s since the epoch is outside the years 0000-9999`);
  }
  const base = new Date(Number(sec) * 1000).toISOString().slice(0, 19);
  // RFC3339Micro ("2006-01-02T15:04:05.000000Z07:00") truncates to microseconds.
  return withMicros ? `${base}.${String(nsec / 1000n).padStart(6, '0')}Z` : `${base}Z`;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** time.Parse(time.RFC3339, s) as Unix seconds and nanoseconds; undefined when it does not parse. */
export function parseRFC3339(text: string): { seconds: bigint; nanos: bigint } | undefined {
  const m = rfc3339.exec(text);
  if (!m) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  let seconds = BigInt(Math.floor(d.getTime() / 1000));
  if (m[9]) seconds -= BigInt((Number(m[10]) * 60 + Number(m[11])) * 60) * (m[9] === '-' ? -1n : 1n);
  const nanos = m[7] ? BigInt(m[7].padEnd(9, '0')) : 0n;
  return { seconds, nanos };
}

function writeTimestamp(value: JsonValue | undefined, w: Writer, where: string, keepNanos: boolean): void {
  // Zero (null) times marshal to no bytes at all (Time.MarshalToSizedBuffer).
  if (value === undefined || value === null) return;
  if (typeof value !== 'string') throw notEncodable(where, 'a time', value);
  const t = parseRFC3339(value);
  if (!t) throw notEncodable(where, 'an RFC 3339 time', value);
  if (t.seconds === zeroTimeUnixSeconds && t.nanos === 0n) return;
  // Timestamp{Seconds, Nanos}: gogo writes both. metav1.Time keeps seconds only ("our JSON only handled seconds").
  w.uint32(tag(1, wireTypes.varint)).int64(t.seconds.toString());
  w.uint32(tag(2, wireTypes.varint)).int32(keepNanos ? Number(t.nanos) : 0);
}

/** metav1.Time: RFC 3339 to the second, null when zero. */
const time: SpecialType = {
  render(data, where) {
    if (data.length === 0) return null;
    const byId = groupWireFields(readWireFields(data));
    // metav1.Time.Unmarshal drops the nanos: "our JSON only handled seconds" (apimachinery time_proto.go).
    return formatTime(int64Of(byId, 1, `${where}.seconds`), 0n, false, where);
  },
  write: (value, w, where) => writeTimestamp(value, w, where, false),
};

/** metav1.MicroTime: RFC 3339 with six fractional digits, null when zero. */
const microTime: SpecialType = {
  render(data, where) {
    if (data.length === 0) return null;
    const byId = groupWireFields(readWireFields(data));
    return formatTime(int64Of(byId, 1, `${where}.seconds`), int64Of(byId, 2, `${where}.nanos`), true, where);
  },
  write(value, w, where) {
    // MicroTime.ProtoMicroTime keeps the nanoseconds (the JSON has microseconds)
    writeTimestamp(value, w, where, true);
  },
};

/** metav1.Duration: {duration int64 nanoseconds}; time.Duration's String() in JSON. */
const duration: SpecialType = {
  render(data, where) {
    return formatGoDuration(int64Of(groupWireFields(readWireFields(data)), 1, `${where}.duration`));
  },
  write(value, w, where) {
    const ns = typeof value === 'string' ? parseGoDuration(value) : value === undefined || value === null ? 0n : undefined;
    if (ns === undefined) throw notEncodable(where, 'a duration', value);
    w.uint32(tag(1, wireTypes.varint)).int64(ns.toString());
  },
};

// ---- intstr, Quantity ----

/** intstr.IntOrString: the int or the string, by type (0 Int, 1 String); gogo writes all three fields. */
const intOrString: SpecialType = {
  render(data, where) {
    const byId = groupWireFields(readWireFields(data));
    const type = int64Of(byId, 1, `${where}.type`);
    if (type === 0n) {
      const f = lastOf(byId, 2);
      return f ? (decodeVarint(f, 'int32', `${where}.intVal`) as number) : 0;
    }
    if (type === 1n) {
      const f = lastOf(byId, 3);
      return f ? decodeString(f, `${where}.strVal`) : '';
    }
    throw new MalformedProtobufError(`${where}: IntOrString type must be 0 (int) or 1 (string), got ${type}`);
  },
  write(value, w, where) {
    const isString = typeof value === 'string';
    if (!isString && typeof value !== 'number' && value !== undefined && value !== null) throw notEncodable(where, 'an int or string', value);
    w.uint32(tag(1, wireTypes.varint)).int64(isString ? 1 : 0);
    w.uint32(tag(2, wireTypes.varint)).int32(typeof value === 'number' ? value : 0);
    w.uint32(tag(3, wireTypes.lengthDelimited)).string(isString ? value : '');
  },
};

// The quantity grammar kube-apiserver publishes in its OpenAPI (resource.Quantity).
const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/**
 * resource.Quantity: its string. Go clients send the canonical form already (Quantity.Marshal writes
 * q.String()), so the string is passed through rather than re-canonicalised.
 */
const quantity: SpecialType = {
  render(data, where) {
    const f = lastOf(groupWireFields(readWireFields(data)), 1);
    if (!f) return '0'; // the zero Quantity
    const s = decodeString(f, where);
    if (!quantityPattern.test(s)) {
      throw new MalformedProtobufError(`${where}: quantities must match the regular expression '${quantityPattern.source}', got "${s}"`);
    }
    return s;
  },
  write(value, w, where) {
    const s = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : value === undefined || value === null ? '0' : undefined;
    if (s === undefined) throw notEncodable(where, 'a quantity', value);
    w.uint32(tag(1, wireTypes.lengthDelimited)).string(s);
  },
};

// ---- raw JSON carriers ----

const utf8 = new TextDecoder('utf-8');
const envelopeMagic = [0x6b, 0x38, 0x73, 0x00];

function parseRawJSON(raw: Uint8Array, where: string): JsonValue {
  try {
    return JSON.parse(utf8.decode(raw)) as JsonValue;
  } catch (err) {
    throw new MalformedProtobufError(`${where}: the raw bytes are not JSON: ${(err as Error).message}`);
  }
}

function writeRaw(id: number, value: JsonValue | undefined, w: Writer): void {
  // nil Raw (absent or null) is not written; gogo writes a non-nil []byte even when empty
  if (value === undefined || value === null) return;
  w.uint32(tag(id, wireTypes.lengthDelimited)).bytes(Buffer.from(JSON.stringify(value)));
}

/** An embedded object carried as bytes: JSON, or (from a protobuf client) an enveloped protobuf object. */
export type EmbeddedDecoder = (raw: Uint8Array, where: string) => JsonValue;
let embeddedProtobuf: EmbeddedDecoder | undefined;
export function setEmbeddedProtobufDecoder(d: EmbeddedDecoder): void {
  embeddedProtobuf = d;
}

/** runtime.RawExtension: the embedded object's JSON, null when there are no bytes. */
const rawExtension: SpecialType = {
  render(data, where) {
    const raw = bytesOf(groupWireFields(readWireFields(data)), 1, `${where}.raw`);
    if (!raw || raw.length === 0) return null;
    if (embeddedProtobuf && raw.length >= 4 && envelopeMagic.every((b, i) => raw[i] === b)) return embeddedProtobuf(raw, where);
    return parseRawJSON(raw, where);
  },
  write: (value, w) => writeRaw(1, value, w),
};

/** apiextensions JSON (default, enum, example): the raw JSON value, null when empty. */
const apiextensionsJSON: SpecialType = {
  render(data, where) {
    const raw = bytesOf(groupWireFields(readWireFields(data)), 1, `${where}.raw`);
    return raw && raw.length > 0 ? parseRawJSON(raw, where) : null;
  },
  write: (value, w) => writeRaw(1, value, w),
};

/** metav1.FieldsV1: its Raw bytes are the JSON itself. */
const fieldsV1: SpecialType = {
  render(data, where) {
    const raw = bytesOf(groupWireFields(readWireFields(data)), 1, `${where}.Raw`);
    if (!raw) return null;
    return parseRawJSON(raw, where);
  },
  write: (value, w) => writeRaw(1, value, w),
};

// ---- apiextensions JSONSchemaProps unions ----

const props = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

function writeNested(id: number, value: JsonValue, w: Writer, where: string, nested: NestedCodec): void {
  w.uint32(tag(id, wireTypes.lengthDelimited)).fork();
  nested.write(props, value, w, where);
  w.ldelim();
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSONSchemaPropsOrArray {schema 1, jSONSchemas 2}: the array when it has items, else the schema. */
const propsOrArray: SpecialType = {
  render(data, where, nested) {
    const byId = groupWireFields(readWireFields(data));
    const items = (byId.get(2) ?? []).map((f, i) => nested.render(props, messageBytes(f, where), `${where}[${i}]`));
    if (items.length > 0) return items;
    const schema = bytesOf(byId, 1, where);
    return schema ? nested.render(props, schema, where) : null;
  },
  write(value, w, where, nested) {
    if (Array.isArray(value)) value.forEach((v, i) => writeNested(2, v, w, `${where}[${i}]`, nested));
    else if (isObject(value)) writeNested(1, value, w, where, nested);
  },
};

/** JSONSchemaPropsOrBool {allows 1, schema 2}: the schema when set, else the bool. */
const propsOrBool: SpecialType = {
  render(data, where, nested) {
    const byId = groupWireFields(readWireFields(data));
    const schema = bytesOf(byId, 2, where);
    if (schema) return nested.render(props, schema, where);
    const allows = lastOf(byId, 1);
    return allows ? (decodeVarint(allows, 'bool', `${where}.allows`) as boolean) : false;
  },
  write(value, w, where, nested) {
    // UnmarshalJSON of a schema sets Allows: true
    w.uint32(tag(1, wireTypes.varint)).bool(isObject(value) || value === true);
    if (isObject(value)) writeNested(2, value, w, where, nested);
  },
};

/** JSONSchemaPropsOrStringArray {schema 1, property 2}: the strings when there are any, else the schema, else null. */
const propsOrStringArray: SpecialType = {
  render(data, where, nested) {
    const byId = groupWireFields(readWireFields(data));
    const property = (byId.get(2) ?? []).map((f, i) => decodeString(f, `${where}[${i}]`));
    if (property.length > 0) return property;
    const schema = bytesOf(byId, 1, where);
    return schema ? nested.render(props, schema, where) : null;
  },
  write(value, w, where, nested) {
    if (Array.isArray(value)) for (const s of value) w.uint32(tag(2, wireTypes.lengthDelimited)).string(String(s));
    else if (isObject(value)) writeNested(1, value, w, where, nested);
  },
};

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const extensions = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** Special types by protobufjs full name (with the leading dot). */
export const specialTypes: ReadonlyMap<string, SpecialType> = new Map([
  [`.${meta}.Time`, time],
  [`.${meta}.MicroTime`, microTime],
  [`.${meta}.Duration`, duration],
  [`.${meta}.FieldsV1`, fieldsV1],
  ['.k8s.io.apimachinery.pkg.util.intstr.IntOrString', intOrString],
  ['.k8s.io.apimachinery.pkg.api.resource.Quantity', quantity],
  ['.k8s.io.apimachinery.pkg.runtime.RawExtension', rawExtension],
  [`.${extensions}.JSON`, apiextensionsJSON],
  [`.${extensions}.JSONSchemaPropsOrArray`, propsOrArray],
  [`.${extensions}.JSONSchemaPropsOrBool`, propsOrBool],
  [`.${extensions}.JSONSchemaPropsOrStringArray`, propsOrStringArray],
]);
