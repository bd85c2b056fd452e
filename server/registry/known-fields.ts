// The fields each built-in kind has at the top level and in ObjectMeta. Server-side field validation checks every
// depth against the kinds' Go types (server/api/openapi/strict-decoding.ts) and falls back to this table only for a
// kind no model describes; custom resources use it for metadata, and MutatingAdmissionPolicy before a schema loads.
const objectMetaFields = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
];

const common = ['apiVersion', 'kind', 'metadata'];

const byKind: Record<string, string[]> = {
  Namespace: ['spec', 'status'],
  Pod: ['spec', 'status'],
  ConfigMap: ['data', 'binaryData', 'immutable'],
  Secret: ['data', 'stringData', 'type', 'immutable'],
  Service: ['spec', 'status'],
  ServiceAccount: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  Event: ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance'],
  Deployment: ['spec', 'status'],
  Scale: ['spec', 'status'],
  ValidatingWebhookConfiguration: ['webhooks'],
  MutatingWebhookConfiguration: ['webhooks'],
  ValidatingAdmissionPolicy: ['spec', 'status'],
  MutatingAdmissionPolicy: ['spec', 'status'],
  ValidatingAdmissionPolicyBinding: ['spec'],
  MutatingAdmissionPolicyBinding: ['spec'],
  CustomResourceDefinition: ['spec', 'status'],
};

/** Paths of the fields of an object's metadata that ObjectMeta does not have ("metadata.bar"). */
export function unknownObjectMetaFields(obj: Record<string, unknown>): string[] {
  const meta = obj['metadata'];
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return [];
  return Object.keys(meta).filter((k) => !objectMetaFields.includes(k)).map((k) => `metadata.${k}`);
}

/** Paths of fields the kind does not have ("foo", "metadata.bar"), or [] when the kind is not described. */
export function unknownFields(kind: string, obj: Record<string, unknown>): string[] {
  const own = byKind[kind];
  if (!own) return [];
  const allowed = new Set([...common, ...own]);
  const unknown = Object.keys(obj).filter((k) => !allowed.has(k));
  const meta = obj['metadata'];
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    for (const k of Object.keys(meta)) if (!objectMetaFields.includes(k)) unknown.push(`metadata.${k}`);
  }
  return unknown;
}
