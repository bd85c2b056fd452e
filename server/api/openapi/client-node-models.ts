// OpenAPI schemas of built-in kinds, rebuilt from @kubernetes/client-node's generated models (each a class with a
// static `attributeTypeMap` of {baseName, type, format}, generated from kube's OpenAPI document). The models are
// imported one file at a time, only when a schema is asked for, so server startup does not pay for them.
//
// The generated models lose what kube's OpenAPI v3 says about a few types; those are restored here: Quantity
// (`oneOf: [string, number]`, which CEL does not expose), `format: byte` map values (Secret.data,
// ConfigMap.binaryData) and int-or-string.
import type { JSONSchemaProps } from '../apiextensions.js';
import { importExternal } from '../../import-external.js';
import { fieldsMissingFromModels, modelsMissingFromClientNode } from './fields-missing-from-models.js';

/** One property of a generated model: its JSON name, its TypeScript type expression and its OpenAPI format. */
export interface Attribute {
  baseName: string;
  type: string;
  format: string;
}

type ModelClass = { attributeTypeMap?: readonly Attribute[] };

/** kube's v3 definition of resource.Quantity: a oneOf without a type, so CEL does not expose it */
export const quantitySchema: JSONSchemaProps = { oneOf: [{ type: 'string' }, { type: 'number' }] };
const bytes: JSONSchemaProps = { type: 'string', format: 'byte' };

/** Properties whose kube schema the generated models flatten to plain strings. */
export const modelSchemaOverrides: Readonly<Record<string, Readonly<Record<string, JSONSchemaProps>>>> = {
  V1ResourceRequirements: { limits: { type: 'object', additionalProperties: quantitySchema }, requests: { type: 'object', additionalProperties: quantitySchema } },
  V1VolumeResourceRequirements: { limits: { type: 'object', additionalProperties: quantitySchema }, requests: { type: 'object', additionalProperties: quantitySchema } },
  V1PodSpec: { overhead: { type: 'object', additionalProperties: quantitySchema } },
  V1ContainerStatus: { allocatedResources: { type: 'object', additionalProperties: quantitySchema } },
  V1PodStatus: { allocatedResources: { type: 'object', additionalProperties: quantitySchema } },
  V1PersistentVolumeClaimStatus: { allocatedResources: { type: 'object', additionalProperties: quantitySchema }, capacity: { type: 'object', additionalProperties: quantitySchema } },
  V1EmptyDirVolumeSource: { sizeLimit: quantitySchema },
  V1Secret: { data: { type: 'object', additionalProperties: bytes } },
  V1ConfigMap: { binaryData: { type: 'object', additionalProperties: bytes } },
};

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

async function importModel(name: string): Promise<ModelClass | undefined> {
  const missing = modelsMissingFromClientNode[name];
  if (missing) return { attributeTypeMap: missing };
  // model names come from the generated type maps (identifiers), never from requests
  if (!/^[A-Za-z0-9]+$/.test(name)) return undefined;
  try {
    const mod = (await importExternal(`@kubernetes/client-node/dist/gen/models/${name}.js`)) as Record<string, unknown>;
    return mod[name] as ModelClass | undefined;
  } catch {
    return undefined;
  }
}

/** The model names a type expression refers to (`Array<V1Container>` → V1Container). */
function referencedModel(type: string): string | undefined {
  const a = ARRAY.exec(type) ?? MAP.exec(type);
  if (a) return referencedModel(a[1]!);
  return /^[A-Z][A-Za-z0-9]*$/.test(type) && type !== 'Date' && type !== 'IntOrString' ? type : undefined;
}

/**
 * Imports a model and every model it reaches: each model's attributes, with the fields kube serves that the
 * generated model lacks (./fields-missing-from-models.ts).
 */
export async function loadModels(root: string): Promise<Map<string, readonly Attribute[]>> {
  const models = new Map<string, readonly Attribute[]>();
  let frontier = [root];
  while (frontier.length) {
    const loaded = await Promise.all(frontier.map(async (n) => [n, await importModel(n)] as const));
    const next = new Set<string>();
    for (const [name, cls] of loaded) {
      const generated = cls?.attributeTypeMap ?? [];
      const added = fieldsMissingFromModels[name];
      const attrs = added && cls ? [...generated, ...added.filter((a) => !generated.some((g) => g.baseName === a.baseName))] : generated;
      models.set(name, attrs);
      for (const a of attrs) {
        const ref = referencedModel(a.type);
        if (ref && !models.has(ref) && !frontier.includes(ref)) next.add(ref);
      }
    }
    frontier = [...next];
  }
  return models;
}

function schemaOfType(type: string, format: string, models: ReadonlyMap<string, readonly Attribute[]>, visiting: readonly string[]): JSONSchemaProps {
  const arr = ARRAY.exec(type);
  if (arr) return { type: 'array', items: schemaOfType(arr[1]!, '', models, visiting) };
  const map = MAP.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOfType(map[1]!, '', models, visiting) };
  switch (type) {
    case 'string':
      return format === 'byte' ? bytes : { type: 'string' };
    case 'number':
      return format === 'int32' || format === 'int64' ? { type: 'integer', format } : { type: 'number', ...(format ? { format } : {}) };
    case 'boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', format: 'date-time' };
    case 'IntOrString':
      return { type: 'string', format: 'int-or-string' };
    case 'any':
    case 'object':
      // RawExtension and FieldsV1 are `type: object` without properties in kube's OpenAPI v3
      return { type: 'object' };
  }
  return modelSchema(type, models, visiting);
}

function modelSchema(name: string, models: ReadonlyMap<string, readonly Attribute[]>, visiting: readonly string[]): JSONSchemaProps {
  // a circular reference becomes an empty object, as kube's PopulateRefs does
  if (visiting.includes(name)) return { type: 'object' };
  const attrs = models.get(name);
  if (!attrs) return { type: 'object' };
  const properties: Record<string, JSONSchemaProps> = {};
  const path = [...visiting, name];
  for (const a of attrs) properties[a.baseName] = modelSchemaOverrides[name]?.[a.baseName] ?? schemaOfType(a.type, a.format, models, path);
  return { type: 'object', properties };
}

/** The schema of one generated model (`V1Deployment`), references resolved; undefined when there is no such model. */
export async function schemaOfModel(model: string): Promise<JSONSchemaProps | undefined> {
  const models = await loadModels(model);
  if (!models.get(model)?.length) return undefined;
  return modelSchema(model, models, []);
}
