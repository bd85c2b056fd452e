// The part of the built-in types' structured-merge-diff schema an ApplyConfiguration mutation needs: which lists
// are associative (listType=map, merged by key), which are sets (listType=set), which lists, maps and structs are
// atomic. kube reads it from the OpenAPI of the served types (its TypeConverter); this server derives it from the
// strategic merge patch tags of server/endpoints/patch/smp-schema.ts — a `patchMergeKey` list is listType=map on
// that key, a `patchStrategy:"merge"` list of scalars is listType=set — plus the atomic markers below.
//
// The subset, and where it differs from kube:
// - Every list the tags do not describe is atomic (as an OpenAPI list without x-kubernetes-list-type is), so it
//   may not appear in an ApplyConfiguration (kube's validatePatch). Lists kube marks +listType=map without patch
//   tags (e.g. containers[].resources.claims) are therefore refused here and accepted there.
// - Atomic structs and maps are those listed in `atomicStructFields` / `atomicKindFields` (LabelSelector,
//   OwnerReference, LocalObjectReference, nodeSelector, the env var sources); kube knows every one.
// - Unknown fields are found at the top level and in metadata only (server/registry/known-fields.ts), for the
//   kinds described there; kube checks every level ("field not declared in schema"). Value types are not checked.
// - Kinds with no patch metadata at all are merged as kube merges a deduced (schemaless) type: objects merge,
//   lists replace, nothing is atomic.
import { lookupPatchMeta, strategicMergeSchemaFor, strategicMergeSchemas, type PatchMeta, type StructSchema } from '../../../endpoints/patch/smp-schema.js';
import { unknownFields } from '../../../registry/known-fields.js';

/** One key of an associative list, with the value an element that omits it is keyed by. */
export interface ListMapKey {
  readonly name: string;
  /** the key field's OpenAPI default (protocol: TCP), used when an element omits it */
  readonly default?: string | number;
}

export type ApplyNode =
  /** a struct with fields this server knows; any other field is `typedField` */
  | { readonly type: 'struct'; readonly fields: Readonly<Record<string, () => ApplyNode>> }
  /** a field of a typed kind whose shape is not described: objects merge granularly, lists are atomic */
  | { readonly type: 'typedField' }
  /** a struct or map marked atomic (+structType=atomic, +mapType=atomic): replaced whole */
  | { readonly type: 'atomicStruct' }
  /** +listType=atomic, explicitly */
  | { readonly type: 'atomicList' }
  /** +listType=set: scalars, merged as a set */
  | { readonly type: 'setList' }
  /** +listType=map: elements merged by their keys */
  | { readonly type: 'associativeList'; readonly keys: readonly ListMapKey[]; readonly element: () => ApplyNode }
  /** no schema at all (kube's deduced type): objects merge, lists replace, nothing is atomic */
  | { readonly type: 'deduced' };

/** What applying to one kind needs. */
export interface ApplySchema {
  readonly root: ApplyNode;
  /** fields of the object that the kind does not have, as paths "spec" / "metadata.foo" */
  unknownFields(obj: Record<string, unknown>): string[];
}

const typedField: ApplyNode = Object.freeze({ type: 'typedField' });
const atomicStruct: ApplyNode = Object.freeze({ type: 'atomicStruct' });
const deduced: ApplyNode = Object.freeze({ type: 'deduced' });

// The structs of smp-schema.ts, by identity (its thunks hand out the same objects every time).
const podSchema = strategicMergeSchemas['/Pod']!;
const objectMetaStruct = lookupPatchMeta(podSchema, 'metadata').schema;
const podSpecStruct = lookupPatchMeta(podSchema, 'spec').schema;
const containerStruct = lookupPatchMeta(podSpecStruct, 'containers').schema;
const serviceSpecStruct = lookupPatchMeta(strategicMergeSchemas['/Service']!, 'spec').schema;

const envVarSource: ApplyNode = {
  type: 'struct',
  // ConfigMapKeySelector, SecretKeySelector, ObjectFieldSelector, ResourceFieldSelector: +structType=atomic
  fields: { configMapKeyRef: () => atomicStruct, secretKeyRef: () => atomicStruct, fieldRef: () => atomicStruct, resourceFieldRef: () => atomicStruct },
};

/** Fields of shared structs that are atomic, or whose elements are, beyond what the patch tags say. */
const atomicStructFields = new Map<StructSchema, Readonly<Record<string, ApplyNode>>>([
  // OwnerReference is +structType=atomic
  [objectMetaStruct, { ownerReferences: { type: 'associativeList', keys: [{ name: 'uid' }], element: () => atomicStruct } }],
  [
    podSpecStruct,
    {
      // +mapType=atomic
      nodeSelector: atomicStruct,
      // LocalObjectReference is +structType=atomic
      imagePullSecrets: { type: 'associativeList', keys: [{ name: 'name' }], element: () => atomicStruct },
    },
  ],
  [containerStruct, { env: { type: 'associativeList', keys: [{ name: 'name' }], element: () => ({ type: 'struct', fields: { valueFrom: () => envVarSource } }) } }],
  // Service.spec.selector is +mapType=atomic
  [serviceSpecStruct, { selector: atomicStruct }],
]);

/** Atomic fields of one kind, by dotted path from the object's root (LabelSelector is +structType=atomic). */
const atomicKindFields: Readonly<Record<string, readonly string[]>> = {
  'apps/Deployment': ['spec.selector'],
  'apps/ReplicaSet': ['spec.selector'],
  'apps/StatefulSet': ['spec.selector'],
  'apps/DaemonSet': ['spec.selector'],
  'batch/Job': ['spec.selector'],
  // ReplicationController.spec.selector is a +mapType=atomic map
  '/ReplicationController': ['spec.selector'],
  'policy/PodDisruptionBudget': ['spec.selector'],
  'networking.k8s.io/NetworkPolicy': ['spec.podSelector'],
};

/**
 * The OpenAPI list-map keys where they are more than the patchMergeKey: ports are keyed by port and protocol, and
 * protocol defaults to TCP; topology spread constraints by topologyKey and whenUnsatisfiable.
 */
function listMapKeys(field: string, mergeKey: string): ListMapKey[] {
  if (mergeKey === 'containerPort') return [{ name: 'containerPort' }, { name: 'protocol', default: 'TCP' }];
  if (field === 'ports' && mergeKey === 'port') return [{ name: 'port' }, { name: 'protocol', default: 'TCP' }];
  if (field === 'topologySpreadConstraints') return [{ name: 'topologyKey' }, { name: 'whenUnsatisfiable' }];
  return [{ name: mergeKey }];
}

function nodeOfMeta(field: string, meta: PatchMeta): ApplyNode {
  const strategies = (meta.strategy ?? '').split(',');
  const element = (): ApplyNode => (meta.schema ? structNode(meta.schema()) : typedField);
  if (strategies.includes('merge')) {
    if (meta.mergeKey) return { type: 'associativeList', keys: listMapKeys(field, meta.mergeKey), element };
    return { type: 'setList' };
  }
  if (strategies.includes('replace')) return { type: 'atomicList' };
  return meta.schema ? structNode(meta.schema()) : typedField;
}

function structNode(s: StructSchema, extra: Readonly<Record<string, ApplyNode>> = {}): ApplyNode {
  const fields: Record<string, () => ApplyNode> = {};
  for (const [name, meta] of Object.entries(s)) fields[name] = () => nodeOfMeta(name, meta);
  for (const [name, node] of Object.entries(atomicStructFields.get(s) ?? {})) fields[name] = () => node;
  for (const [name, node] of Object.entries(extra)) fields[name] = () => node;
  return { type: 'struct', fields };
}

/** Puts an atomic struct at `path` (["spec", "selector"]) of a struct node, keeping its other fields. */
function withAtomicAt(node: ApplyNode, path: readonly string[]): ApplyNode {
  if (path.length === 0) return atomicStruct;
  const [head, ...rest] = path as [string, ...string[]];
  const fields = node.type === 'struct' ? { ...node.fields } : {};
  const child = fields[head]?.() ?? { type: 'struct', fields: {} };
  const replaced = withAtomicAt(child, rest);
  fields[head] = () => replaced;
  return { type: 'struct', fields };
}

const schemaCache = new Map<string, ApplySchema>();

/** The apply schema of a kind ("apps", "Deployment"). */
export function applySchemaFor(gvk: { group: string; kind: string }): ApplySchema {
  const key = `${gvk.group}/${gvk.kind}`;
  const hit = schemaCache.get(key);
  if (hit) return hit;
  const smp = strategicMergeSchemaFor(gvk);
  let root: ApplyNode = smp ? structNode(smp) : deduced;
  for (const path of atomicKindFields[key] ?? []) root = withAtomicAt(root, path.split('.'));
  const schema: ApplySchema = Object.freeze({
    root,
    unknownFields: (obj: Record<string, unknown>) => (smp ? unknownFields(gvk.kind, obj) : []),
  });
  schemaCache.set(key, schema);
  return schema;
}

/** The node of a struct field; a field the struct does not describe is typed but unknown here. */
export function fieldNode(node: ApplyNode, field: string): ApplyNode {
  switch (node.type) {
    case 'struct':
      return node.fields[field]?.() ?? typedField;
    case 'deduced':
      return deduced;
    default:
      return typedField;
  }
}
