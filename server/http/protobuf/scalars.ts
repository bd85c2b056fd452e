// Proto scalar fields as the JSON values Go's encoding/json writes for the same Go field.
import { MalformedProtobufError, wireTypes, type WireField } from './wire.js';

export type ScalarValue = string | number | boolean;

// Not fatal: Go's encoding/json writes invalid UTF-8 as U+FFFD rather than failing, and so does this decoder.
const utf8 = new TextDecoder('utf-8');

function expectWireType(field: WireField, wireType: number, type: string, where: string): void {
  if (field.wireType !== wireType) throw new MalformedProtobufError(`${where}: a ${type} field cannot have wire type ${field.wireType}`);
}

export function decodeString(field: WireField, where: string): string {
  expectWireType(field, wireTypes.lengthDelimited, 'string', where);
  return utf8.decode(field.value as Uint8Array);
}

/** A varint field of the given proto type; int64 beyond 2^53 loses precision exactly as JSON.parse would. */
export function decodeVarint(field: WireField, type: 'bool' | 'int32' | 'int64', where: string): number | boolean {
  expectWireType(field, wireTypes.varint, type, where);
  return varintValue(field.value as bigint, type);
}

/** An int64 field as an exact bigint, for values (times) that are range-checked before use. */
export function decodeInt64(field: WireField, where: string): bigint {
  expectWireType(field, wireTypes.varint, 'int64', where);
  return BigInt.asIntN(64, field.value as bigint);
}

export function varintValue(raw: bigint, type: 'bool' | 'int32' | 'int64'): number | boolean {
  if (type === 'bool') return raw !== 0n;
  return Number(BigInt.asIntN(type === 'int32' ? 32 : 64, raw));
}

/** One scalar field occurrence; bytes become base64, as Go marshals []byte. */
export function decodeScalar(type: string, field: WireField, where: string): ScalarValue {
  switch (type) {
    case 'string':
      return decodeString(field, where);
    case 'bytes':
      expectWireType(field, wireTypes.lengthDelimited, 'bytes', where);
      return Buffer.from(field.value as Uint8Array).toString('base64');
    case 'bool':
    case 'int32':
    case 'int64':
      return decodeVarint(field, type, where);
    case 'double': {
      // JSONSchemaProps maximum, minimum, multipleOf (*float64)
      expectWireType(field, wireTypes.fixed64, 'double', where);
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(field.value as bigint);
      return b.readDoubleLE(0);
    }
    default:
      throw new Error(`unsupported scalar type ${type} at ${where}`);
  }
}

export function zeroScalar(type: string): ScalarValue {
  if (type === 'bool') return false;
  if (type === 'int32' || type === 'int64' || type === 'double') return 0;
  return '';
}

export function isZeroScalar(value: ScalarValue): boolean {
  return value === '' || value === 0 || value === false;
}
