// application/vnd.kubernetes.protobuf for kube's built-in kinds, in both directions: loaded with the first protobuf
// body or protobuf response (import()), never at startup. Negotiation (negotiate.ts, schema/kinds.ts) is separate
// and cheap.
export { decodeKubernetesProtobuf, decodeMessageAsJSON, kubernetesProtobufMediaType } from './decode.js';
export { encodeKubernetesProtobuf, encodeMessage, protobufMessageOf } from './encode.js';
export { encodeWatchEventFrame } from './watch-frame.js';
