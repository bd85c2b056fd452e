// The ResourceInfos an established CRD is served as: one per served version, with the accepted names, the
// version's subresources and printer columns, its strategy, and a codec that keeps objects in the storage
// version (crdHandler's per-version crdInfo in apiextensions-apiserver).
import type { CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion } from '../../api/apiextensions.js';
import { FieldPath } from '../../api/field.js';
import { apiVersionOf, type KubeObject } from '../../api/types.js';
import { compareKubeVersions } from '../../registry/resource-index.js';
import { allVerbs, type PrinterColumn, type ResourceInfo, type StorageCodec } from '../../registry/resource.js';
import { isConditionTrue } from '../conditions.js';
import { storageVersionOf } from '../crd-defaults.js';
import type { Converter, CustomResourceOps } from './schema-ops.js';
import { customResourceStrategy } from './strategy.js';

const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const columnTypes = new Set<PrinterColumn['type']>(['string', 'integer', 'number', 'boolean', 'date']);

/**
 * additionalPrinterColumns, or kube's default Age column when a version has none; cells rendered by the CRD
 * table convertor, and a column without a description described by its path as kube does.
 */
export function printerColumnsOf(version: CustomResourceDefinitionVersion, ops: Pick<CustomResourceOps, 'printerCell'>): PrinterColumn[] {
  const cols: CustomResourceColumnDefinition[] = version.additionalPrinterColumns?.length
    ? version.additionalPrinterColumns
    : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: creationTimestampDescription }];
  return cols.map((c) => {
    const type = columnTypes.has(c.type as PrinterColumn['type']) ? (c.type as PrinterColumn['type']) : 'string';
    const spec = { type, jsonPath: c.jsonPath };
    const col: PrinterColumn = {
      name: c.name,
      type,
      jsonPath: c.jsonPath,
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      cell: (obj, now) => ops.printerCell(spec, obj, now),
    };
    if (c.priority !== undefined) col.priority = c.priority;
    if (c.format !== undefined) col.format = c.format;
    return col;
  });
}

/** Objects kept in the storage version; reads converted to the served version, then defaulted and pruned. */
function storageCodec(converter: Converter, storageApiVersion: string, servedApiVersion: string, decoded: (obj: KubeObject) => void): StorageCodec {
  return {
    async toStorage(obj) {
      const [out] = await converter.convert([obj], storageApiVersion);
      return out!;
    },
    async fromStorage(objs) {
      const out = await converter.convert(objs, servedApiVersion);
      for (const o of out) decoded(o);
      return out;
    },
  };
}

/** Served versions in kube's discovery order (by version priority). */
export function servedVersionsOf(crd: CustomResourceDefinition): CustomResourceDefinitionVersion[] {
  return (crd.spec.versions ?? []).filter((v) => v.served).sort((a, b) => compareKubeVersions(a.name, b.name));
}

/** The ResourceInfos of an established CRD (none when it is not established). */
export function customResourceInfos(crd: CustomResourceDefinition, ops: CustomResourceOps): ResourceInfo[] {
  if (!isConditionTrue(crd, 'Established')) return [];
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const group = crd.spec.group;
  const storage = storageVersionOf(crd);
  if (!storage) return [];
  const converter = ops.converterFor(crd);
  const terminating = isConditionTrue(crd, 'Terminating');
  return servedVersionsOf(crd).map((version) => {
    const schema = version.schema?.openAPIV3Schema;
    const rules = schema ? ops.compileRules(schema, FieldPath.root('spec', 'versions').key(version.name)) : undefined;
    const statusEnabled = version.subresources?.status !== undefined && version.subresources.status !== null;
    const scale = version.subresources?.scale ?? undefined;
    const strategy = customResourceStrategy({ schema, rules, scale, ops, terminating, group, resource: names.plural });
    const info: ResourceInfo = {
      group,
      version: version.name,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      singular: names.singular ?? names.kind.toLowerCase(),
      namespaced: crd.spec.scope === 'Namespaced',
      shortNames: [...(names.shortNames ?? [])],
      categories: [...(names.categories ?? [])],
      verbs: allVerbs,
      subresources: { ...(statusEnabled ? { status: true } : {}), ...(scale ? { scale: { ...scale } } : {}) },
      nameRule: 'DNS1123Subdomain',
      hasGeneration: true,
      hasStatus: statusEnabled,
      printerColumns: printerColumnsOf(version, ops),
      strategy,
      storageVersion: storage.name,
      codec: storageCodec(converter, apiVersionOf(group, storage.name), apiVersionOf(group, version.name), (o) => strategy.applyDefaults?.(o)),
      ...(schema ? { openAPIV3Schema: schema as Record<string, unknown> } : {}),
    };
    return info;
  });
}
