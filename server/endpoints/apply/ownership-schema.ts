// The schema server-side apply merges and tracks ownership with, per resource: the built-in kinds' apply schema
// (the one MutatingAdmissionPolicy uses, from their OpenAPI and patch tags), and for custom resources their CRD's
// structural schema, as kube builds a TypeConverter from it: x-kubernetes-list-type map/set/atomic with
// x-kubernetes-list-map-keys, x-kubernetes-map-type atomic, additionalProperties maps, and
// x-kubernetes-preserve-unknown-fields values (or no schema) merged as schemaless (deduced) values.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { applySchemaFor, loadApplySchema, type ApplyNode, type ApplySchema, type ListMapKey } from '../../admission/policy/mutating/apply-schema.js';
import { isCustomResource, type ResourceInfo } from '../../registry/resource.js';
import type { OwnershipSchema } from './managed-fields.js';

export interface ResourceApplySchema {
  apply: ApplySchema;
  ownership: OwnershipSchema;
}

const deduced: ApplyNode = { type: 'deduced' };
const scalar: ApplyNode = { type: 'typedField' };
const atomicStruct: ApplyNode = { type: 'atomicStruct' };

// metav1.ObjectMeta as a CRD's schema does not describe it (the root metadata is always ObjectMeta).
const objectMeta: ApplyNode = {
  type: 'struct',
  fields: {
    labels: () => ({ type: 'map', element: () => scalar }),
    annotations: () => ({ type: 'map', element: () => scalar }),
    finalizers: () => ({ type: 'setList' }),
    ownerReferences: () => ({ type: 'associativeList', keys: [{ name: 'uid' }], element: () => atomicStruct }),
  },
};

/** The apply node of one structural schema node. */
export function crdSchemaNode(s: JSONSchemaProps | undefined): ApplyNode {
  if (!s) return deduced;
  const ext = s as JSONSchemaProps & Record<string, unknown>;
  if (s.type === 'array') {
    const items = s.items && !Array.isArray(s.items) ? (s.items as JSONSchemaProps) : undefined;
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') return { type: 'setList' };
    if (listType === 'map') {
      const names = (ext['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [];
      const keys: ListMapKey[] = names.map((name) => {
        const d = items?.properties?.[name]?.default as unknown;
        return typeof d === 'string' || typeof d === 'number' ? { name, default: d } : { name };
      });
      let element: ApplyNode | undefined;
      return { type: 'associativeList', keys, element: () => (element ??= crdSchemaNode(items)) };
    }
    let element: ApplyNode | undefined;
    return { type: 'atomicList', element: () => (element ??= crdSchemaNode(items)) };
  }
  if (s.type !== 'object' && !s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-embedded-resource']) return scalar;
  if (s['x-kubernetes-map-type'] === 'atomic') return { type: 'atomicStruct' };
  if (s.properties) {
    const fields: Record<string, () => ApplyNode> = {};
    for (const [name, prop] of Object.entries(s.properties)) {
      let node: ApplyNode | undefined;
      fields[name] = () => (node ??= crdSchemaNode(prop));
    }
    if (s['x-kubernetes-embedded-resource'] && !fields['metadata']) fields['metadata'] = () => objectMeta;
    return { type: 'struct', fields };
  }
  const ap = s.additionalProperties;
  if (ap !== undefined && typeof ap === 'object') {
    let element: ApplyNode | undefined;
    return { type: 'map', element: () => (element ??= crdSchemaNode(ap as JSONSchemaProps)) };
  }
  return deduced;
}

function crdApplySchema(openAPIV3Schema: Record<string, unknown> | undefined): ApplySchema {
  const root = crdSchemaNode(openAPIV3Schema as JSONSchemaProps | undefined);
  const fields = root.type === 'struct' ? { ...root.fields } : {};
  fields['metadata'] = () => objectMeta;
  fields['apiVersion'] ??= () => scalar;
  fields['kind'] ??= () => scalar;
  // pruning of unknown fields is the custom resource strategy's: apply accepts them here, as a preserved value
  return { root: { type: 'struct', fields }, closed: false, unknownFields: () => [] };
}

const crdCache = new WeakMap<object, ApplySchema>();

/** The apply schema of a served resource; a built-in kind's OpenAPI shape is loaded on first use. */
export async function resourceApplySchema(info: ResourceInfo): Promise<ResourceApplySchema> {
  const ignoreStatus = info.hasStatus && info.subresources.status === true;
  if (isCustomResource(info)) {
    const key = info.openAPIV3Schema ?? info;
    let apply = crdCache.get(key);
    if (!apply) {
      apply = crdApplySchema(info.openAPIV3Schema);
      crdCache.set(key, apply);
    }
    return { apply, ownership: { root: apply.root, typed: false, ignoreStatus } };
  }
  const apply = await loadApplySchema({ group: info.group, version: info.version, kind: info.kind });
  return { apply, ownership: { root: apply.root, typed: true, ignoreStatus } };
}

/** The schema for tracking Update operations without waiting for a load: what is known now. */
export function knownApplySchema(info: ResourceInfo): ResourceApplySchema {
  const ignoreStatus = info.hasStatus && info.subresources.status === true;
  if (isCustomResource(info)) {
    const key = info.openAPIV3Schema ?? info;
    let apply = crdCache.get(key);
    if (!apply) {
      apply = crdApplySchema(info.openAPIV3Schema);
      crdCache.set(key, apply);
    }
    return { apply, ownership: { root: apply.root, typed: false, ignoreStatus } };
  }
  const apply = applySchemaFor({ group: info.group, version: info.version, kind: info.kind });
  return { apply, ownership: { root: apply.root, typed: true, ignoreStatus } };
}
