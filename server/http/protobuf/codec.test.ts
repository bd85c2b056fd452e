// The protobuf codec in both directions: JSON → protobuf → JSON is the identity for every registered kind (objects
// synthesized from the descriptor with every field set) and for realistic fixtures of the served kinds; the envelope
// and gogo's encoding choices checked byte by byte against kube's serializer tests; watch frames; negotiation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';
import type { JsonObject, JsonValue } from '../../api/types.js';
import { specialTypes } from './apimachinery-json.js';
import { decodeKubernetesProtobuf, decodeMessageAsJSON, encodeKubernetesProtobuf, encodeMessage, encodeWatchEventFrame } from './index.js';
import { envelopeMagic, hasEnvelopeMagic, readEnvelope, writeEnvelope } from './envelope.js';
import { formatGoDuration, parseGoDuration } from './go-duration.js';
import { negotiateOutput } from './negotiate.js';
import { kubeKinds } from './schema/kube-kinds.generated.js';
import { goJSONOf, isWrapper, jsonNameOf, kubernetesProtoRoot } from './schema/root.js';

const testdata = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');

function roundTrip(obj: JsonObject): JsonObject {
  const bytes = encodeKubernetesProtobuf(obj);
  if (!bytes) throw new Error(`${String(obj['apiVersion'])} ${String(obj['kind'])} has no message`);
  return decodeKubernetesProtobuf(Buffer.from(bytes)) as JsonObject;
}

// ---- kube's serializer tests (apimachinery pkg/test/runtime_serializer_protobuf_protobuf_test.go) ----

describe('the envelope, as kube writes and reads it', () => {
  // TestEncode wire2: "other/version" "test" with raw 01 02 03, then the empty contentEncoding and contentType
  const wire2 = Buffer.from([
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x15, 0x0a, 0x0d, 0x6f, 0x74, 0x68, 0x65, 0x72, 0x2f, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x12, 0x04, 0x74, 0x65, 0x73, 0x74, 0x12, 0x03, 0x01, 0x02, 0x03, 0x1a, 0x00,
    0x22, 0x00,
  ]);
  // TestEncode wire1: no kind, empty raw
  const wire1 = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00]);

  it('writes the bytes of TestEncode', () => {
    expect(Buffer.from(writeEnvelope('other/version', 'test', Uint8Array.from([1, 2, 3])))).toEqual(wire2);
    expect(Buffer.from(writeEnvelope('', '', new Uint8Array(0)))).toEqual(wire1);
  });

  it('reads the cases of TestProtobufDecode', () => {
    const empty = readEnvelope(wire1.subarray(4));
    expect({ ...empty, raw: [...empty.raw] }).toEqual({ apiVersion: '', kind: '', raw: [], contentEncoding: '', contentType: '' });
    const withPrefixedRaw = Buffer.from([...wire2.subarray(0, 27), 0x12, 0x07, 0x6b, 0x38, 0x73, 0x00, 0x01, 0x02, 0x03, 0x1a, 0x00, 0x22, 0x00]);
    const e = readEnvelope(withPrefixedRaw.subarray(4));
    expect({ apiVersion: e.apiVersion, kind: e.kind, raw: [...e.raw] }).toEqual({ apiVersion: 'other/version', kind: 'test', raw: [0x6b, 0x38, 0x73, 0x00, 1, 2, 3] });
  });

  it.each([
    [[], false],
    [[0x6b, 0x38, 0x73], false],
    [[0x6b, 0x38, 0x73, 0x01], false],
    [[0x6b, 0x38, 0x73, 0x00], true],
    [[0x6b, 0x38, 0x73, 0x00, 0x01], true],
  ])('recognizes %j: %s (TestRecognize)', (bytes, recognized) => {
    expect(hasEnvelopeMagic(Uint8Array.from(bytes))).toBe(recognized);
  });
});

// ---- every registered kind ----

const root = kubernetesProtoRoot();
const stringValue = (name: string) => `${name}-v`;

/** Values for the types with their own JSON, each of which survives the protobuf round trip unchanged. */
const specialValues: Record<string, (depth: number) => JsonValue> = {
  '.k8s.io.apimachinery.pkg.apis.meta.v1.Time': () => '2024-05-01T12:34:56Z',
  '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': () => '2024-05-01T12:34:56.123456Z',
  '.k8s.io.apimachinery.pkg.apis.meta.v1.Duration': () => '1h2m3.5s',
  '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': () => ({ 'f:metadata': { 'f:labels': { '.': {} } } }),
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': (depth) => (depth % 2 ? 'http' : 8080),
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': () => '1500m',
  '.k8s.io.apimachinery.pkg.runtime.RawExtension': () => ({ apiVersion: 'v1', kind: 'Anything', nested: [1, 'two', null] }),
  '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON': () => ({ any: ['json', 1, true] }),
  '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': () => [{ type: 'string' }, { type: 'integer' }],
  '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': (depth) => (depth % 2 ? false : { type: 'object' }),
  '.k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': () => ['a', 'b'],
};

function scalarValue(type: string, name: string): JsonValue {
  switch (type) {
    case 'string':
      return stringValue(name);
    case 'bytes':
      return Buffer.from(`${name} bytes`).toString('base64');
    case 'bool':
      return true;
    case 'int32':
      return -7;
    case 'int64':
      return 1_234_567_890_123;
    case 'double':
      return 1.5;
    default:
      throw new Error(`no value for ${type}`);
  }
}

/**
 * A JSON object with every field of the message set to a non-zero value (recursive types stop at a depth, through
 * their pointer, slice and map fields: non-pointer structs are always written, so they are always filled).
 */
function synthesize(type: Type, depth: number): JsonValue {
  const special = specialValues[type.fullName];
  if (special) return special(depth);
  expect(specialTypes.has(type.fullName)).toBe(false);
  if (isWrapper(type)) return ['x', 'y'];
  const out: JsonObject = {};
  for (const field of type.fieldsArray) {
    const rule = goJSONOf(field);
    if (rule === 'x') continue;
    const key = jsonNameOf(field);
    const message = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    const optional = rule === 'p' || rule === 'P' || field.repeated || field.map;
    if (message && optional && depth >= 3) {
      // left unset: a nil slice, map or pointer without omitempty is written as null
      if (rule === 'r' || rule === 'P') out[key] = null;
      continue;
    }
    const value = (): JsonValue => (message ? synthesize(message, depth + 1) : scalarValue(field.type, key));
    if (rule === 'i') Object.assign(out, value() as JsonObject);
    else if (field.map) out[key] = { b: value(), a: value() };
    else if (field.repeated) out[key] = [value()];
    else out[key] = value();
  }
  return out;
}

const registered = Object.entries(kubeKinds.groupVersions).flatMap(([gv, kinds]) => Object.entries(kinds).map(([kind, message]) => [gv, kind, message] as const));

describe('JSON → protobuf → JSON for every registered kind', () => {
  it.each(registered)('%s %s', (apiVersion, kind, message) => {
    const body = synthesize(root.lookupType(message), 0) as JsonObject;
    const obj = { kind, apiVersion, ...body };
    expect(roundTrip(obj)).toEqual(obj);
  });
});

// ---- realistic objects of the served kinds ----

const fixtures = JSON.parse(readFileSync(path.join(testdata, 'fixtures.json'), 'utf8')) as JsonObject[];

describe('JSON → protobuf → JSON for the fixtures of the served kinds', () => {
  it.each(fixtures.map((f) => [`${String(f['apiVersion'])} ${String(f['kind'])}`, f] as const))('%s', (_name, fixture) => {
    expect(roundTrip(fixture)).toEqual(fixture);
  });
});

// ---- gogo's encoding choices ----

/** A schema-free reader: [field number, wire type, value] in wire order. */
function wire(buf: Uint8Array): Array<[number, number, Buffer | bigint]> {
  const r = protobuf.Reader.create(buf);
  const out: Array<[number, number, Buffer | bigint]> = [];
  while (r.pos < r.len) {
    const key = r.uint32();
    const wt = key & 7;
    if (wt === 0) out.push([key >>> 3, 0, BigInt(r.uint64().toString())]);
    else if (wt === 2) out.push([key >>> 3, 2, Buffer.from(r.bytes())]);
    else throw new Error(`wire type ${wt}`);
  }
  return out;
}

describe('the encoding, as gogo-protobuf marshals the Go value', () => {
  it('writes a ConfigMap field by field in number order: zero strings, sorted map entries, no nil pointer', () => {
    const bytes = encodeKubernetesProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { z: '1', a: '2' } })!;
    const e = readEnvelope(bytes.subarray(envelopeMagic.length));
    expect({ apiVersion: e.apiVersion, kind: e.kind }).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    const fields = wire(e.raw);
    // metadata 1, data 2 (a before z); no immutable 4 (a nil *bool), no binaryData 3
    expect(fields.map(([id]) => id)).toEqual([1, 2, 2]);
    const entries = fields.slice(1).map(([, , v]) => wire(v as Buffer).map(([, , x]) => (x as Buffer).toString()));
    expect(entries).toEqual([
      ['a', '2'],
      ['z', '1'],
    ]);
    // ObjectMeta: every non-pointer field, zero or not, in number order; creationTimestamp 8 an empty Time
    const meta = wire(fields[0]![2] as Buffer);
    expect(meta.map(([id]) => id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(meta[0]![2]).toEqual(Buffer.from('c'));
    expect(meta[7]![2]).toEqual(Buffer.alloc(0));
  });

  it('writes pointers when set, zero included, and keeps them through the round trip', () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', creationTimestamp: null }, spec: { replicas: 0, selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} }, status: {} };
    expect(roundTrip(d)).toEqual(d);
  });

  it('writes an IntOrString with all three fields and a Time without its nanoseconds', () => {
    const ios = wire(encodeMessage('k8s.io.apimachinery.pkg.util.intstr.IntOrString', 'http'));
    expect(ios.map(([id, , v]) => [id, Buffer.isBuffer(v) ? v.toString() : Number(v)])).toEqual([
      [1, 1],
      [2, 0],
      [3, 'http'],
    ]);
    const time = wire(encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime', '2024-05-01T12:34:56.123456Z'));
    expect(time.map(([id, , v]) => [id, Number(v)])).toEqual([
      [1, Date.parse('2024-05-01T12:34:56Z') / 1000],
      [2, 123456000],
    ]);
    expect(decodeMessageAsJSON('k8s.io.apimachinery.pkg.apis.meta.v1.Time', encodeMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Time', '2024-05-01T12:34:56+02:00'))).toBe('2024-05-01T10:34:56Z');
  });

  it('drops fields the Go type does not have, as decoding into it does', () => {
    expect(roundTrip({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 's', creationTimestamp: null }, unknown: { a: 1 } })).toEqual({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 's', creationTimestamp: null } });
  });

  it('writes nil slices without omitempty as null (PolicyRule.verbs, ClusterRole.rules)', () => {
    expect(roundTrip({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', creationTimestamp: null }, rules: [{ verbs: [] }] })).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r', creationTimestamp: null },
      rules: [{ verbs: null }],
    });
  });

  it('has no message for a custom resource or a Table', () => {
    expect(encodeKubernetesProtobuf({ apiVersion: 'stable.example.com/v1', kind: 'CronTab' })).toBeUndefined();
    expect(encodeKubernetesProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'Table' })).toBeUndefined();
  });
});

describe('watch frames', () => {
  it('frames a WatchEvent without envelope around an enveloped object, length first (big-endian)', () => {
    const frame = encodeWatchEventFrame('ADDED', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } })!;
    const view = Buffer.from(frame);
    expect(view.readUInt32BE(0)).toBe(view.length - 4);
    const event = wire(view.subarray(4));
    expect(event[0]).toEqual([1, 2, Buffer.from('ADDED')]);
    const raw = wire(event[1]![2] as Buffer)[0]![2] as Buffer;
    expect(hasEnvelopeMagic(raw)).toBe(true);
    expect(decodeKubernetesProtobuf(raw)).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n', creationTimestamp: null }, spec: {}, status: {} });
  });
});

describe('Go durations', () => {
  it.each([
    ['0s', 0n],
    ['1ns', 1n],
    ['1.5µs', 1500n],
    ['2ms', 2_000_000n],
    ['1.5s', 1_500_000_000n],
    ['1m0s', 60_000_000_000n],
    ['1h2m3.5s', 3_723_500_000_000n],
    ['-1m30s', -90_000_000_000n],
  ])('%s is %d ns both ways', (text, ns) => {
    expect(formatGoDuration(ns)).toBe(text);
    expect(parseGoDuration(text)).toBe(ns);
  });
});

describe('output negotiation (goautoneg and kube NegotiateMediaTypeOptions)', () => {
  const builtin = { protobufObjects: true };
  const cr = { protobufObjects: false };
  const all = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';
  it.each<[string | undefined, { protobufObjects: boolean; watch?: boolean }, string]>([
    [undefined, builtin, 'application/json'],
    ['', builtin, 'application/json'],
    ['*/*', builtin, 'application/json'],
    ['application/vnd.kubernetes.protobuf', builtin, 'application/vnd.kubernetes.protobuf'],
    ['application/vnd.kubernetes.protobuf, application/json', builtin, 'application/vnd.kubernetes.protobuf'],
    ['application/json;q=0.5, application/vnd.kubernetes.protobuf', builtin, 'application/vnd.kubernetes.protobuf'],
    ['application/*', builtin, 'application/json'],
    ['application/yaml', builtin, 'application/yaml'],
    ['application/vnd.kubernetes.protobuf;stream=watch', { protobufObjects: true, watch: true }, 'application/vnd.kubernetes.protobuf'],
    ['application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json', builtin, 'application/json'],
    ['application/vnd.kubernetes.protobuf, application/json', cr, 'application/json'],
    ['text/html', builtin, `!${all}`],
    ['application/vnd.kubernetes.protobuf', cr, `!${all}`],
    ['application/yaml', { protobufObjects: true, watch: true }, '!only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'],
    ['application/json;stream=other', { protobufObjects: true, watch: true }, '!only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'],
  ])('Accept %j → %s', (accept, opts, expected) => {
    const n = negotiateOutput(accept, opts);
    expect(n.ok ? n.mediaType : `!${n.message}`).toBe(expected);
  });
});
