// Decoding of application/vnd.kubernetes.protobuf request bodies (what kubectl's typed client sends).
export { decodeKubernetesProtobuf, decodeMessageAsJSON, kubernetesProtobufMediaType } from './decode.js';
export { protobufKinds } from './schema/root.js';
