// The apimachinery types whose JSON is not their message's fields: each has a custom MarshalJSON in Go.
import type { JsonValue } from '../../api/types.js';
import { decodeInt64, decodeString, decodeVarint } from './scalars.js';
import { groupWireFields, MalformedProtobufError, readWireFields, type WireField } from './wire.js';

type FieldsById = Map<number, WireField[]>;

function lastOf(byId: FieldsById, id: number): WireField | undefined {
  const list = byId.get(id);
  return list?.[list.length - 1];
}

function int64Of(byId: FieldsById, id: number, where: string): bigint {
  const f = lastOf(byId, id);
  return f ? decodeInt64(f, where) : 0n;
}

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

/** metav1.Time: RFC 3339 to the second, null when zero. */
export function renderTime(data: Uint8Array, where: string): JsonValue {
  if (data.length === 0) return null;
  const byId = groupWireFields(readWireFields(data));
  // metav1.Time.Unmarshal drops the nanos: "our JSON only handled seconds" (apimachinery time_proto.go).
  return formatTime(int64Of(byId, 1, `${where}.seconds`), 0n, false, where);
}

/** metav1.MicroTime: RFC 3339 with six fractional digits, null when zero. */
export function renderMicroTime(data: Uint8Array, where: string): JsonValue {
  if (data.length === 0) return null;
  const byId = groupWireFields(readWireFields(data));
  return formatTime(int64Of(byId, 1, `${where}.seconds`), int64Of(byId, 2, `${where}.nanos`), true, where);
}

/** intstr.IntOrString: the int or the string, by type (0 Int, 1 String). */
export function renderIntOrString(data: Uint8Array, where: string): JsonValue {
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
}

// The quantity grammar kube-apiserver publishes in its OpenAPI (resource.Quantity).
const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/**
 * resource.Quantity: its string. Go clients send the canonical form already (Quantity.Marshal writes
 * q.String()), so the string is passed through rather than re-canonicalised.
 */
export function renderQuantity(data: Uint8Array, where: string): JsonValue {
  const f = lastOf(groupWireFields(readWireFields(data)), 1);
  if (!f) return '0'; // the zero Quantity
  const s = decodeString(f, where);
  if (!quantityPattern.test(s)) {
    throw new MalformedProtobufError(`${where}: quantities must match the regular expression '${quantityPattern.source}', got "${s}"`);
  }
  return s;
}

/** metav1.FieldsV1: its Raw bytes are the JSON itself. */
export function renderFieldsV1(data: Uint8Array, where: string): JsonValue {
  const f = lastOf(groupWireFields(readWireFields(data)), 1);
  if (!f) return null;
  const text = decodeString(f, `${where}.Raw`);
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new MalformedProtobufError(`${where}: FieldsV1 is not JSON: ${(err as Error).message}`);
  }
}

/** Renderers by protobufjs full name. */
export const apimachineryRenderers: ReadonlyMap<string, (data: Uint8Array, where: string) => JsonValue> = new Map([
  ['.k8s.io.apimachinery.pkg.apis.meta.v1.Time', renderTime],
  ['.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime', renderMicroTime],
  ['.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1', renderFieldsV1],
  ['.k8s.io.apimachinery.pkg.util.intstr.IntOrString', renderIntOrString],
  ['.k8s.io.apimachinery.pkg.api.resource.Quantity', renderQuantity],
]);
