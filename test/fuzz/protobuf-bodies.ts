// Hand-built kube protobuf envelopes (`k8s\x00` + runtime.Unknown) for the fuzz: a well-formed ConfigMap as the seed,
// then the corruptions a broken or hostile client sends. Only the wire format is encoded here; nothing is decoded.
import type { Prng } from '../support/prng.js';

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

function varint(n: number | bigint): Buffer {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

/** A length-delimited field (wire type 2). */
function bytesField(num: number, payload: Buffer | string): Buffer {
  const p = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([varint((num << 3) | 2), varint(p.length), p]);
}

function varintField(num: number, value: number | bigint): Buffer {
  return Buffer.concat([varint(num << 3), varint(value)]);
}

const mapEntry = (num: number, k: string, v: string): Buffer => bytesField(num, Buffer.concat([bytesField(1, k), bytesField(2, v)]));

/** ObjectMeta {name=1, namespace=3, labels=11} */
function objectMeta(name: string, namespace: string | undefined): Buffer {
  return Buffer.concat([bytesField(1, name), ...(namespace ? [bytesField(3, namespace)] : []), mapEntry(11, 'fz', '1')]);
}

/** runtime.Unknown {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3, contentType=4} in the envelope */
function envelope(apiVersion: string, kind: string, raw: Buffer, extra: Buffer[] = []): Buffer {
  const typeMeta = Buffer.concat([bytesField(1, apiVersion), bytesField(2, kind)]);
  return Buffer.concat([magic, bytesField(1, typeMeta), bytesField(2, raw), ...extra]);
}

/** A ConfigMap {metadata=1, data=2} that a real client could send. */
export function configMapProtobuf(name: string, namespace: string | undefined): Buffer {
  return envelope('v1', 'ConfigMap', Buffer.concat([bytesField(1, objectMeta(name, namespace)), mapEntry(2, 'k', 'v')]));
}

export interface ProtobufCase {
  name: string;
  weight: number;
  make(rng: Prng, t: { apiVersion: string; kind: string; name: string; namespace: string | undefined }): Buffer;
}

/** Nested length-delimited messages `depth` levels deep (field 1 of ObjectMeta's parent, over and over). */
function deepMessage(depth: number): Buffer {
  let inner = bytesField(1, 'x');
  for (let i = 0; i < depth; i++) inner = bytesField(1, inner);
  return inner;
}

export const protobufCases: readonly ProtobufCase[] = [
  { name: 'pb-valid-configmap', weight: 2, make: (_r, t) => configMapProtobuf(t.name, t.namespace) },
  { name: 'pb-other-kind-in-typemeta', weight: 2, make: (_r, t) => envelope(t.apiVersion, t.kind, Buffer.concat([bytesField(1, objectMeta(t.name, t.namespace)), mapEntry(2, 'k', 'v')])) },
  { name: 'pb-empty', weight: 1, make: () => Buffer.alloc(0) },
  { name: 'pb-magic-only', weight: 1, make: () => magic },
  { name: 'pb-wrong-magic', weight: 1, make: (r, t) => Buffer.concat([Buffer.from('k9s\0'), configMapProtobuf(t.name, t.namespace).subarray(4)]) },
  { name: 'pb-random-bytes', weight: 2, make: (r) => Buffer.concat([magic, r.bytes(r.int(1, 200))]) },
  {
    name: 'pb-truncated',
    weight: 3,
    make: (r, t) => {
      const full = configMapProtobuf(t.name, t.namespace);
      return full.subarray(0, r.int(5, full.length - 1));
    },
  },
  {
    name: 'pb-flipped-byte',
    weight: 3,
    make: (r, t) => {
      const b = Buffer.from(configMapProtobuf(t.name, t.namespace));
      const i = r.int(4, b.length - 1);
      b[i] = b[i]! ^ (1 << r.int(0, 7));
      return b;
    },
  },
  { name: 'pb-huge-length', weight: 1, make: () => Buffer.concat([magic, varint((1 << 3) | 2), varint(0xffffffffffffn)]) },
  { name: 'pb-overlong-varint', weight: 1, make: () => Buffer.concat([magic, varintField(1, 0), Buffer.alloc(12, 0xff)]) },
  { name: 'pb-deep-raw', weight: 1, make: (r, t) => envelope('v1', 'ConfigMap', deepMessage(r.pick([100, 1000, 3000]))) },
  { name: 'pb-gzip-content-encoding', weight: 1, make: (_r, t) => envelope('v1', 'ConfigMap', Buffer.from('not gzip'), [bytesField(3, 'gzip')]) },
  { name: 'pb-json-in-raw', weight: 1, make: (_r, t) => envelope('v1', 'ConfigMap', Buffer.from(JSON.stringify({ metadata: { name: t.name } })), [bytesField(4, 'application/json')]) },
  { name: 'pb-wrong-wire-type', weight: 1, make: (_r, t) => envelope('v1', 'ConfigMap', Buffer.concat([varintField(1, 7), varintField(2, 9)])) },
  { name: 'pb-invalid-utf8-name', weight: 1, make: (_r, t) => envelope('v1', 'ConfigMap', bytesField(1, bytesField(1, Buffer.from([0xc0, 0xae, 0xff])))) },
];
