// An independent reader of the protobuf Status kube-apiserver answers errors in when the client prefers protobuf
// (`k8s\x00` + runtime.Unknown{typeMeta 1: TypeMeta{apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4},
// raw = metav1.Status{metadata 1, status 2, message 3, reason 4, details 5, code 6}, field numbers from
// k8s.io/apimachinery/pkg/runtime/generated.proto and pkg/apis/meta/v1/generated.proto). Wire format only, no schema
// and nothing of the server's codec, so the fuzz checks a protobuf answer by the same rules as a JSON one.

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The fields of one message: number → values (varints as bigint, length-delimited as bytes). */
type Fields = Map<number, Array<bigint | Buffer>>;

function readFields(buf: Buffer): Fields | string {
  const out: Fields = new Map();
  let i = 0;
  const varint = (): bigint | undefined => {
    let n = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (i >= buf.length) return undefined;
      const b = buf[i++]!;
      n |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return n;
    }
    return undefined;
  };
  while (i < buf.length) {
    const key = varint();
    if (key === undefined) return 'truncated field key';
    const num = Number(key >> 3n);
    let value: bigint | Buffer;
    switch (Number(key & 7n)) {
      case 0: {
        const v = varint();
        if (v === undefined) return `truncated varint in field ${num}`;
        value = v;
        break;
      }
      case 1:
        if (i + 8 > buf.length) return `truncated fixed64 in field ${num}`;
        value = buf.subarray(i, (i += 8));
        break;
      case 2: {
        const len = varint();
        if (len === undefined || i + Number(len) > buf.length) return `truncated bytes in field ${num}`;
        value = buf.subarray(i, (i += Number(len)));
        break;
      }
      case 5:
        if (i + 4 > buf.length) return `truncated fixed32 in field ${num}`;
        value = buf.subarray(i, (i += 4));
        break;
      default:
        return `unknown wire type ${Number(key & 7n)} in field ${num}`;
    }
    out.set(num, [...(out.get(num) ?? []), value]);
  }
  return out;
}

/** The last value of a string field (proto2 optional: the last one wins), undefined when absent. */
function str(f: Fields, num: number): string | undefined {
  const v = f.get(num)?.at(-1);
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

function message(f: Fields, num: number): Fields | string | undefined {
  const v = f.get(num)?.at(-1);
  return Buffer.isBuffer(v) ? readFields(v) : undefined;
}

/** A Status read from protobuf, in the JSON field names; a string says why the body is not one. */
export function decodeProtobufStatus(body: Buffer): Record<string, unknown> | string {
  if (!body.subarray(0, 4).equals(magic)) return 'protobuf error body without the k8s envelope';
  const unknown = readFields(body.subarray(4));
  if (typeof unknown === 'string') return `protobuf envelope: ${unknown}`;
  const typeMeta = message(unknown, 1);
  if (typeof typeMeta === 'string') return `protobuf TypeMeta: ${typeMeta}`;
  const raw = unknown.get(2)?.at(-1);
  const s = Buffer.isBuffer(raw) ? readFields(raw) : new Map<number, Array<bigint | Buffer>>();
  if (typeof s === 'string') return `protobuf Status: ${s}`;
  const out: Record<string, unknown> = {};
  if (typeMeta) {
    const apiVersion = str(typeMeta, 1);
    const kind = str(typeMeta, 2);
    if (apiVersion !== undefined) out['apiVersion'] = apiVersion;
    if (kind !== undefined) out['kind'] = kind;
  }
  for (const [num, name] of [[2, 'status'], [3, 'message'], [4, 'reason']] as const) {
    const v = str(s, num);
    if (v !== undefined) out[name] = v;
  }
  const code = s.get(6)?.at(-1);
  // int32: a negative value is sign-extended to 64 bits on the wire
  if (typeof code === 'bigint') out['code'] = Number(BigInt.asIntN(32, code));
  return out;
}
