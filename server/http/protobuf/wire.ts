// The protobuf wire format, read field by field without a schema: the decoder needs every field in order to
// merge repeated occurrences and to notice fields the schema subset does not know.

/** A body that is not well-formed protobuf, or carries a value its Go type cannot hold. */
export class MalformedProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedProtobufError';
  }
}

export const wireTypes = { varint: 0, fixed64: 1, lengthDelimited: 2, fixed32: 5 } as const;

export type WireField =
  | { id: number; wireType: 0 | 1 | 5; value: bigint }
  | { id: number; wireType: 2; value: Uint8Array };

const maxFieldNumber = 2 ** 29 - 1;

class WireReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    for (let i = 0, shift = 0n; i < 10; i++, shift += 7n) {
      if (this.pos >= this.buf.length) throw new MalformedProtobufError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new MalformedProtobufError('varint longer than 10 bytes');
  }

  take(length: number): Uint8Array {
    if (length > this.buf.length - this.pos) throw new MalformedProtobufError(`length ${length} runs past the end of the message`);
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  fixed(bytes: 4 | 8): bigint {
    const raw = this.take(bytes);
    let v = 0n;
    for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(raw[i]!);
    return v;
  }
}

/** Every field of one message, in wire order. */
export function readWireFields(buf: Uint8Array): WireField[] {
  const reader = new WireReader(buf);
  const fields: WireField[] = [];
  while (!reader.done) {
    const key = reader.varint();
    const id = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (id < 1 || id > maxFieldNumber) throw new MalformedProtobufError(`invalid field number ${id}`);
    switch (wireType) {
      case wireTypes.varint:
        fields.push({ id, wireType, value: reader.varint() });
        break;
      case wireTypes.fixed64:
        fields.push({ id, wireType, value: reader.fixed(8) });
        break;
      case wireTypes.fixed32:
        fields.push({ id, wireType, value: reader.fixed(4) });
        break;
      case wireTypes.lengthDelimited: {
        const length = reader.varint();
        if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw new MalformedProtobufError(`length ${length} is too large`);
        fields.push({ id, wireType, value: reader.take(Number(length)) });
        break;
      }
      default:
        // 3/4 are proto2 groups, which no Kubernetes message uses; 6/7 do not exist.
        throw new MalformedProtobufError(`field ${id} has unsupported wire type ${wireType}`);
    }
  }
  return fields;
}

/** The elements of a packed repeated varint field. */
export function readPackedVarints(buf: Uint8Array): bigint[] {
  const reader = new WireReader(buf);
  const out: bigint[] = [];
  while (!reader.done) out.push(reader.varint());
  return out;
}

/** Fields grouped by number, each group in wire order. */
export function groupWireFields(fields: WireField[]): Map<number, WireField[]> {
  const byId = new Map<number, WireField[]>();
  for (const f of fields) {
    const list = byId.get(f.id);
    if (list) list.push(f);
    else byId.set(f.id, [f]);
  }
  return byId;
}

// Deeper than any Kubernetes type nests; past it an unknown field counts as carrying data (and is rejected).
const maxZeroCheckDepth = 64;

/**
 * Whether a field carries nothing: a zero number, an empty string, or a message whose fields all carry nothing.
 * gogo-protobuf writes every non-pointer Go field even when it is zero, so fields outside the schema subset
 * routinely arrive this way and can be ignored without losing data.
 */
export function isZeroWireField(field: WireField, depth = 0): boolean {
  if (field.wireType !== wireTypes.lengthDelimited) return field.value === 0n;
  if (field.value.length === 0) return true;
  if (depth >= maxZeroCheckDepth) return false;
  let inner: WireField[];
  try {
    inner = readWireFields(field.value);
  } catch {
    return false; // not a message, so a non-empty string or bytes
  }
  return inner.every((f) => isZeroWireField(f, depth + 1));
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
