// The part of the built-in types' structured-merge-diff schema an ApplyConfiguration mutation needs: which lists
// are associative (listType=map, merged by key), which are sets (listType=set), which lists, maps and structs are
// atomic, and which fields a struct declares. kube reads it all from the OpenAPI of the served types (its
// TypeConverter). Here the shape comes from the kind's OpenAPI schema (server/api/openapi: client-node's models,
// loaded by `loadApplySchema`), and the list and map types from the strategic merge patch tags of
// server/endpoints/patch/smp-schema.ts, since the models carry no x-kubernetes-list-type, list-map-keys or map-type:
// a `patchMergeKey` list is listType=map on that key, a `patchStrategy:"merge"` list of scalars is listType=set,
// plus the markers below.
//
// The subset, and where it differs from kube:
// - Every list neither the tags nor the markers describe is atomic (as an OpenAPI list without
//   x-kubernetes-list-type is), so it may not appear in an ApplyConfiguration (kube's validatePatch). Lists kube
//   marks +listType=map/set without patch tags are listed below (containers[].resources.claims); others would be
//   refused here and accepted there.
// - Atomic structs and maps are those listed in `atomicStructFields` / `atomicKindFields` (LabelSelector,
//   OwnerReference, LocalObjectReference, NodeSelector, nodeSelector, the env var sources); kube knows every one.
// - With the OpenAPI schema every struct is closed: a field it does not declare is "field not declared in schema"
//   at any depth, and the unknown fields of a JSON-patched object are found wherever they are; additionalProperties
//   are granular maps; the elements of atomic lists are still checked. Value types are not checked.
// - Before the schema is loaded (or for a kind the models lack) unknown fields are found at the top level and in
//   metadata only (server/registry/known-fields.ts), for the kinds described there.
// - Kinds with no patch metadata and no schema are merged as kube merges a deduced (schemaless) type: objects
//   merge, lists replace, nothing is atomic.
import type { JSONSchemaProps } from '../../../api/apiextensions.js';
import { builtinSchemaResolver } from '../../../api/openapi/builtin-schemas.js';
import { lookupPatchMeta, strategicMergeSchemaFor, strategicMergeSchemas, type PatchMeta, type StructSchema } from '../../../endpoints/patch/smp-schema.js';
import { unknownFields } from '../../../registry/known-fields.js';

/** One key of an associative list, with the value an element that omits it is keyed by. */
export interface ListMapKey {
  readonly name: string;
  /** the key field's OpenAPI default (protocol: TCP), used when an element omits it */
  readonly default?: string | number;
}

export type ApplyNode =
  /**
   * a struct with fields this server knows; any other field is `typedField`, or, when the struct is `closed` (its
   * OpenAPI schema is known), not declared in the schema
   */
  | { readonly type: 'struct'; readonly fields: Readonly<Record<string, () => ApplyNode>>; readonly closed?: boolean }
  /** an OpenAPI additionalProperties map: merged key by key, every value of the element's shape */
  | { readonly type: 'map'; readonly element: () => ApplyNode }
  /** a field of a typed kind whose shape is not described: objects merge granularly, lists are atomic */
  | { readonly type: 'typedField' }
  /** a struct or map marked atomic (+structType=atomic, +mapType=atomic): replaced whole; `shape` for validation */
  | { readonly type: 'atomicStruct'; readonly shape?: () => ApplyNode }
  /** +listType=atomic, explicitly or by default; `element` (from a schema) for validation */
  | { readonly type: 'atomicList'; readonly element?: () => ApplyNode }
  /** +listType=set: scalars, merged as a set */
  | { readonly type: 'setList' }
  /** +listType=map: elements merged by their keys */
  | { readonly type: 'associativeList'; readonly keys: readonly ListMapKey[]; readonly element: () => ApplyNode }
  /** no schema at all (kube's deduced type): objects merge, lists replace, nothing is atomic */
  | { readonly type: 'deduced' };

/** What applying to one kind needs. */
export interface ApplySchema {
  readonly root: ApplyNode;
  /**
   * the structs are closed (the kind's OpenAPI schema is known): validation finds undeclared fields itself, at
   * every depth, and `unknownFields` reports them all
   */
  readonly closed: boolean;
  /**
   * fields of the object that the kind does not have, as the strict JSON decoder names them: "spec",
   * "metadata.foo", "spec.template.spec.containers[1].ports[0].containerPortZ"
   */
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
      // the constraints' LabelSelector is +structType=atomic
      topologySpreadConstraints: {
        type: 'associativeList',
        keys: [{ name: 'topologyKey' }, { name: 'whenUnsatisfiable' }],
        element: () => ({ type: 'struct', fields: { labelSelector: () => atomicStruct } }),
      },
      // NodeSelector is +structType=atomic
      affinity: {
        type: 'struct',
        fields: { nodeAffinity: () => ({ type: 'struct', fields: { requiredDuringSchedulingIgnoredDuringExecution: () => atomicStruct } }) },
      },
    },
  ],
  [
    containerStruct,
    {
      env: { type: 'associativeList', keys: [{ name: 'name' }], element: () => ({ type: 'struct', fields: { valueFrom: () => envVarSource } }) },
      // ResourceRequirements.claims is +listType=map keyed by name, without patch tags
      resources: { type: 'struct', fields: { claims: () => ({ type: 'associativeList', keys: [{ name: 'name' }], element: () => typedField }) } },
    },
  ],
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
/** schemas with the kind's OpenAPI shape, by "group/version/Kind" */
const typedSchemaCache = new Map<string, ApplySchema>();

/** The patch-tag schema of a kind: its list types and atomics, every struct open. */
function taggedRoot(gvk: { group: string; kind: string }): ApplyNode | undefined {
  const smp = strategicMergeSchemaFor(gvk);
  if (!smp) return undefined;
  let root: ApplyNode = structNode(smp);
  for (const path of atomicKindFields[`${gvk.group}/${gvk.kind}`] ?? []) root = withAtomicAt(root, path.split('.'));
  return root;
}

/**
 * The apply schema of a kind ("apps", "Deployment"): with its OpenAPI shape once `loadApplySchema` loaded it for
 * that version, else from the patch tags alone.
 */
export function applySchemaFor(gvk: { group: string; kind: string; version?: string }): ApplySchema {
  if (gvk.version !== undefined) {
    const typed = typedSchemaCache.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    if (typed) return typed;
  }
  const key = `${gvk.group}/${gvk.kind}`;
  const hit = schemaCache.get(key);
  if (hit) return hit;
  const tagged = taggedRoot(gvk);
  const schema: ApplySchema = Object.freeze({
    root: tagged ?? deduced,
    closed: false,
    unknownFields: (obj: Record<string, unknown>) => (tagged ? unknownFields(gvk.kind, obj) : []),
  });
  schemaCache.set(key, schema);
  return schema;
}

/**
 * Loads the kind's OpenAPI schema (the built-in kinds'; imported on first use) so that `applySchemaFor` answers
 * with its shape from then on. Kinds without one keep the patch-tag schema.
 */
export async function loadApplySchema(gvk: { group: string; version: string; kind: string }): Promise<ApplySchema> {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  if (!typedSchemaCache.has(key)) {
    const resolver = builtinSchemaResolver();
    if (resolver.knows(gvk)) {
      await resolver.load([gvk]);
      const openapi = resolver.schemaFor(gvk);
      if (openapi && !typedSchemaCache.has(key)) typedSchemaCache.set(key, typedApplySchema(openapi, taggedRoot(gvk) ?? deduced));
    }
  }
  return applySchemaFor(gvk);
}

/** An apply schema from an OpenAPI schema, the list types and atomics taken from `tagged` where it has them. */
export function typedApplySchema(openapi: JSONSchemaProps, tagged: ApplyNode): ApplySchema {
  const root = typedNode(openapi, tagged);
  return Object.freeze({ root, closed: true, unknownFields: (obj: Record<string, unknown>) => undeclaredFields(obj, root, '') });
}

/** The node of one OpenAPI schema, where `tagged` is what the patch tags say about the same place. */
function typedNode(s: JSONSchemaProps, tagged: ApplyNode): ApplyNode {
  const items = s.type === 'array' && s.items && !Array.isArray(s.items) ? s.items : undefined;
  // every node below is built once, on first use, as the struct fields are: a walk asks a list for its element
  // node once per element (the Container schema of every container of every Pod)
  let below: ApplyNode | undefined;
  switch (tagged.type) {
    case 'atomicStruct':
      return { type: 'atomicStruct', shape: () => (below ??= typedNode(s, typedField)) };
    case 'atomicList':
      return items ? { type: 'atomicList', element: () => (below ??= typedNode(items, typedField)) } : tagged;
    case 'setList':
      return tagged;
    case 'associativeList':
      return items ? { ...tagged, element: () => (below ??= typedNode(items, tagged.element())) } : tagged;
  }
  if (s.type === 'array') return items ? { type: 'atomicList', element: () => (below ??= typedNode(items, typedField)) } : { type: 'atomicList' };
  if (s.type !== 'object') return typedField;
  if (s.properties) {
    const fields: Record<string, () => ApplyNode> = {};
    for (const [name, prop] of Object.entries(s.properties)) {
      let node: ApplyNode | undefined;
      fields[name] = () => (node ??= typedNode(prop, fieldNode(tagged, name)));
    }
    return { type: 'struct', fields, closed: true };
  }
  const ap = s.additionalProperties;
  if (ap !== undefined && typeof ap === 'object') {
    let element: ApplyNode | undefined;
    return { type: 'map', element: () => (element ??= typedNode(ap, typedField)) };
  }
  // RawExtension, FieldsV1: objects of any shape
  return typedField;
}

/** The strict JSON decoder's unknown fields: every field a closed struct does not declare, lists by index. */
function undeclaredFields(value: unknown, node: ApplyNode, path: string): string[] {
  const out: string[] = [];
  const shape = node.type === 'atomicStruct' && node.shape ? node.shape() : node;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    if (shape.type !== 'struct' && shape.type !== 'map') return out;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      if (shape.type === 'struct' && shape.closed && !Object.prototype.hasOwnProperty.call(shape.fields, k)) out.push(p);
      else out.push(...undeclaredFields(v, fieldNode(shape, k), p));
    }
    return out;
  }
  if (Array.isArray(value)) {
    const element = listElementNode(node);
    if (element) value.forEach((v, i) => out.push(...undeclaredFields(v, element, `${path}[${i}]`)));
  }
  return out;
}

/** The node of a list's elements, when the schema knows it. */
export function listElementNode(node: ApplyNode): ApplyNode | undefined {
  if (node.type === 'associativeList') return node.element();
  if (node.type === 'atomicList') return node.element?.();
  return undefined;
}

/** Whether a closed struct leaves the field undeclared (kube's "field not declared in schema"). */
export function isUndeclaredField(node: ApplyNode, field: string): boolean {
  return node.type === 'struct' && node.closed === true && !Object.prototype.hasOwnProperty.call(node.fields, field);
}

/** The node of a struct field or map value; a field the struct does not describe is typed but unknown here. */
export function fieldNode(node: ApplyNode, field: string): ApplyNode {
  switch (node.type) {
    case 'struct':
      return (Object.prototype.hasOwnProperty.call(node.fields, field) ? node.fields[field]?.() : undefined) ?? typedField;
    case 'map':
      return node.element();
    case 'deduced':
      return deduced;
    default:
      return typedField;
  }
}
