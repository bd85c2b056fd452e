// Watch events in kube's protobuf stream framing: each frame is a 4-byte big-endian length, then a metav1.WatchEvent
// written by the RawSerializer (no "k8s\0" envelope) whose object is a RawExtension holding the object enveloped
// by the regular serializer (apiserver endpoints/handlers/watch.go; apimachinery protobuf LengthDelimitedFramer).
import protobuf from 'protobufjs';
import type { JsonObject } from '../../api/types.js';
import { encodeKubernetesProtobuf } from './encode.js';

/** One length-prefixed frame, undefined when the object's kind has no protobuf message. */
export function encodeWatchEventFrame(type: string, object: object): Uint8Array | undefined {
  // a stored object or Status: JSON data by construction
  const embedded = encodeKubernetesProtobuf(object as JsonObject);
  if (!embedded) return undefined;
  const w = protobuf.Writer.create();
  w.uint32(0x0a).string(type);
  // object: RawExtension{raw = 1}
  w.uint32(0x12).fork().uint32(0x0a).bytes(embedded).ldelim();
  const event = w.finish();
  const frame = new Uint8Array(4 + event.length);
  new DataView(frame.buffer).setUint32(0, event.length, false);
  frame.set(event, 4);
  return frame;
}
