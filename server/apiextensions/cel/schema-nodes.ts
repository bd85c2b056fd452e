// Navigation of a structural schema as kube's schema.Structural sees it: one `items` schema, `additionalProperties`
// as a schema (a bare `true` is an empty schema), and the implicit TypeMeta/ObjectMeta of resource roots.
import type { JSONSchemaProps } from '../../api/apiextensions.js';

export function itemsSchema(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return s.items !== undefined && !Array.isArray(s.items) ? s.items : undefined;
}

export function additionalPropertiesSchema(s: JSONSchemaProps): JSONSchemaProps | undefined {
  if (s.additionalProperties === undefined || s.additionalProperties === false) return undefined;
  return s.additionalProperties === true ? {} : s.additionalProperties;
}

const stringType: JSONSchemaProps = { type: 'string' };
const objectMetaForRules: JSONSchemaProps = { type: 'object', properties: { name: stringType, generateName: stringType } };

/**
 * kube's WithTypeAndObjectMeta: at the root of a custom resource and of embedded resources, rules see `apiVersion`,
 * `kind`, `metadata.name` and `metadata.generateName` whatever the schema declares (and nothing else of metadata).
 */
export function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const p = s.properties;
  const m = p?.['metadata'];
  if (
    p?.['kind']?.type === 'string' &&
    p['apiVersion']?.type === 'string' &&
    m?.type === 'object' &&
    m.properties?.['name']?.type === 'string' &&
    m.properties['generateName']?.type === 'string'
  ) {
    return s;
  }
  return { ...s, properties: { ...(p ?? {}), kind: stringType, apiVersion: stringType, metadata: objectMetaForRules } };
}

export function listTypeOf(s: JSONSchemaProps): string {
  return s['x-kubernetes-list-type'] ?? 'atomic';
}
