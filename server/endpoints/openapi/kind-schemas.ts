// The schemas (v3 components, v2 definitions) of one OpenAPI document: the built-in kinds' types from
// ./definitions.ts, custom resources' from their CRD's openAPIV3Schema (as apiextensions-apiserver's builder
// publishes them: apiVersion, kind and metadata added at the root), the List kinds, and the meta/v1 types every
// document's operations refer to (Status, DeleteOptions, WatchEvent, Patch).
import type { JsonObject, JsonValue } from '../../api/types.js';
import { builtinKindModels, builtinModelOf } from '../../api/openapi/builtin-schemas.js';
import { builtinResources } from '../../registry/catalogue/index.js';
import { definitionName, metaGroup } from '../../api/openapi/definition-names.js';
import type { ResourceInfo } from '../../registry/resource.js';
import { BuiltinDefinitions, loadModelCatalog, type KindModel, type SchemaStyle, v2Style } from './definitions.js';

export const meta = (kind: string): string => definitionName(metaGroup, 'v1', kind);

// Served kinds the CEL schema resolver does not describe.
const otherKindModels: KindModel[] = [{ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', model: 'V1CustomResourceDefinition' }];
const metaModels = [
  { model: 'V1Status', type: 'Status' },
  { model: 'V1DeleteOptions', type: 'DeleteOptions' },
  { model: 'V1WatchEvent', type: 'WatchEvent' },
];

let shared: Promise<BuiltinDefinitions> | undefined;

/**
 * The built-in kinds' definitions, loaded once per process on the first OpenAPI request (a few hundred small
 * imports and reads), never at startup.
 */
export function builtinDefinitions(): Promise<BuiltinDefinitions> {
  shared ??= (async () => {
    const kinds: KindModel[] = [...servedKindModels(), ...otherKindModels];
    const catalog = await loadModelCatalog([...kinds.map((k) => k.model), ...metaModels.map((m) => m.model)]);
    return new BuiltinDefinitions(
      catalog,
      kinds,
      metaModels.map((m) => ({ model: m.model, type: m.type, pkg: { group: metaGroup, version: 'v1' } })),
    );
  })();
  return shared;
}

/** The table's kinds, and every other built-in kind of the catalogue under its conventional client-node model. */
function servedKindModels(): KindModel[] {
  const named = builtinKindModels();
  const known = new Set([...named, ...otherKindModels].map((k) => `${k.group}/${k.version}/${k.kind}`));
  const conventional = builtinResources.flatMap((r) => {
    const model = builtinModelOf(r);
    return model && !known.has(`${r.group}/${r.version}/${r.kind}`) ? [{ group: r.group, version: r.version, kind: r.kind, model }] : [];
  });
  return [...named, ...conventional];
}

const gvkExtension = (group: string, version: string, kind: string): JsonObject => ({ group, kind, version });
const apiVersionField: JsonObject = {
  description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const kindField: JsonObject = {
  description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};

/**
 * A custom resource's kind schema: the version's openAPIV3Schema with apiVersion, kind and metadata (a reference
 * to ObjectMeta) added at the root, as apiextensions-apiserver's OpenAPI builder publishes it.
 */
function customResourceKindSchema(s: SchemaStyle, r: ResourceInfo, own: Record<string, unknown>): JsonObject {
  const schema = structuredClone(own) as JsonObject;
  const properties = { ...((schema['properties'] as JsonObject | undefined) ?? {}) };
  properties['apiVersion'] = apiVersionField;
  properties['kind'] = kindField;
  properties['metadata'] = s.field(meta('ObjectMeta'), 'Standard object metadata.');
  // Swagger 2.0 has no nullable
  if (s === v2Style) dropNullable(schema);
  return { ...schema, type: 'object', properties, 'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.kind)] };
}

function dropNullable(v: JsonValue): void {
  if (Array.isArray(v)) v.forEach(dropNullable);
  else if (v && typeof v === 'object') {
    delete v['nullable'];
    Object.values(v).forEach(dropNullable);
  }
}

/** A kind nothing describes (a built-in kind without a model): its fields are accepted as sent. */
function openKindSchema(s: SchemaStyle, r: ResourceInfo): JsonObject {
  return {
    type: 'object',
    properties: { apiVersion: apiVersionField, kind: kindField, metadata: s.field(meta('ObjectMeta'), 'Standard object metadata.', { default: {} }) },
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.kind)],
  };
}

function listSchema(s: SchemaStyle, r: ResourceInfo, name: string): JsonObject {
  return {
    description: `${r.listKind} is a list of ${r.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: apiVersionField,
      items: { description: `List of ${r.resource}.`, type: 'array', items: s.ref(name) },
      kind: kindField,
      metadata: s.field(meta('ListMeta'), 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', { default: {} }),
    },
    'x-kubernetes-group-version-kind': [gvkExtension(r.group, r.version, r.listKind)],
  };
}

const patchDefinition: JsonObject = { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' };

/** The model of a served built-in kind (the CEL resolver's table, plus CustomResourceDefinition). */
function kindModelOf(r: ResourceInfo): KindModel | undefined {
  return [...servedKindModels(), ...otherKindModels].find((k) => k.group === r.group && k.version === r.version && k.kind === r.kind);
}

/** The schemas of one group version's document (or, for v2, of each group version in turn). */
export function documentSchemas(s: SchemaStyle, defs: BuiltinDefinitions, resources: readonly ResourceInfo[], gv: { group: string; version: string }): Record<string, JsonObject> {
  const own: Record<string, JsonObject> = {};
  const roots = [meta('Status'), meta('DeleteOptions'), meta('WatchEvent'), meta('ObjectMeta'), meta('ListMeta')];
  for (const r of resources) {
    const name = definitionName(r.group, r.version, r.kind);
    const km = r.openAPIV3Schema ? undefined : kindModelOf(r);
    if (r.openAPIV3Schema) own[name] = customResourceKindSchema(s, r, r.openAPIV3Schema);
    else if (km && defs.has(km)) roots.push(name);
    else own[name] = openKindSchema(s, r);
    if (!r.virtual) own[definitionName(r.group, r.version, r.listKind)] = listSchema(s, r, name);
    if (r.subresources.scale) roots.push(definitionName('autoscaling', 'v1', 'Scale'));
  }
  const schemas: Record<string, JsonObject> = { ...defs.definitionsFor(s, roots), ...own, [meta('Patch')]: patchDefinition };
  // the meta/v1 kinds every group version registers (metav1.AddToGroupVersion), as kube lists them
  const registered = (kind: string): JsonValue[] => [gvkExtension('', 'v1', kind), ...(gv.group !== '' ? [gvkExtension(gv.group, gv.version, kind)] : [])];
  schemas[meta('Status')] = { ...schemas[meta('Status')]!, 'x-kubernetes-group-version-kind': [gvkExtension('', 'v1', 'Status')] };
  schemas[meta('DeleteOptions')] = { ...schemas[meta('DeleteOptions')]!, 'x-kubernetes-group-version-kind': registered('DeleteOptions') };
  schemas[meta('WatchEvent')] = { ...schemas[meta('WatchEvent')]!, 'x-kubernetes-group-version-kind': registered('WatchEvent') };
  const sorted: Record<string, JsonObject> = {};
  for (const k of Object.keys(schemas).sort()) sorted[k] = schemas[k]!;
  return sorted;
}
