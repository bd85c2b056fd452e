// kube's protobuf envelope: the four bytes "k8s\0", then a runtime.Unknown{typeMeta{apiVersion, kind}, raw,
// contentEncoding, contentType} whose raw is the object's message (apimachinery runtime/serializer/protobuf).
import protobuf from 'protobufjs';
import { decodeString } from './scalars.js';
import { concatBytes, groupWireFields, MalformedProtobufError, readWireFields, wireTypes, type WireField } from './wire.js';

/** "k8s\0": the four bytes before every runtime.Unknown envelope. */
export const envelopeMagic: Readonly<Uint8Array> = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);

export function hasEnvelopeMagic(body: Uint8Array): boolean {
  return body.length >= envelopeMagic.length && envelopeMagic.every((b, i) => body[i] === b);
}

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

function messageBytes(list: WireField[] | undefined, where: string): Uint8Array {
  return concatBytes(
    (list ?? []).map((f) => {
      if (f.wireType !== wireTypes.lengthDelimited) throw new MalformedProtobufError(`${where} cannot have wire type ${f.wireType}`);
      return f.value;
    }),
  );
}

/** The runtime.Unknown after the magic. */
export function readEnvelope(unknown: Uint8Array): Envelope {
  const byId = groupWireFields(readWireFields(unknown));
  const last = (m: Map<number, WireField[]>, id: number, where: string): string => {
    const f = m.get(id)?.at(-1);
    return f ? decodeString(f, where) : '';
  };
  const typeMeta = groupWireFields(readWireFields(messageBytes(byId.get(1), 'typeMeta')));
  return {
    apiVersion: last(typeMeta, 1, 'typeMeta.apiVersion'),
    kind: last(typeMeta, 2, 'typeMeta.kind'),
    raw: messageBytes(byId.get(2), 'raw'),
    contentEncoding: last(byId, 3, 'contentEncoding'),
    contentType: last(byId, 4, 'contentType'),
  };
}

/**
 * The enveloped form of an object's message, as runtime.Unknown.NestedMarshalTo writes it: typeMeta (apiVersion,
 * kind), raw, then the empty contentEncoding and contentType (gogo writes non-pointer strings even when empty).
 */
export function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(raw);
  w.uint32(0x1a).string('');
  w.uint32(0x22).string('');
  const unknown = w.finish();
  const out = new Uint8Array(envelopeMagic.length + unknown.length);
  out.set(envelopeMagic, 0);
  out.set(unknown, envelopeMagic.length);
  return out;
}
