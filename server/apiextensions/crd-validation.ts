// Validation of CustomResourceDefinitions as apiextensions-apiserver's apis/apiextensions/validation does it
// for apiextensions.k8s.io/v1: name = <plural>.<group>, group, scope, names, versions (unique DNS-1035 names,
// exactly one storage version, a schema per version), subresources, printer columns, status names, stored
// versions, and the update rules. The schema, CEL and conversion checks of issue #9's other modules are passed
// in, so this file stays the CRD's own rules.
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  CustomResourceSubresources,
  JSONSchemaProps,
} from '../api/apiextensions.js';
import { fieldErrors, FieldPath, type FieldError } from '../api/field.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../registry/validation/name.js';
import { fieldImmutableErrorMsg } from '../registry/validation/object-meta.js';
import { isConditionTrue } from './conditions.js';
import { goStrings, goVersion, goVersions } from './crd-go-values.js';

/** The checks of the other issue #9 modules, each optional so the CRD rules work on their own. */
export interface CrdValidationDeps {
  /** crdschema's validateStructuralSchema */
  validateSchema?(schema: JSONSchemaProps, fldPath: FieldPath, opts: { isRoot: boolean; requireStructural?: boolean }): FieldError[];
  /** whether a stored schema is structural (NewStructural and ValidateStructural pass) */
  isStructural?(schema: JSONSchemaProps): boolean;
  /** crdcel's compileSchemaValidations, errors only; a non-structural schema only gets the static rule checks */
  compileRules?(schema: JSONSchemaProps, fldPath: FieldPath, opts: { structural: boolean }): FieldError[];
  /** crdconv's validateCustomResourceConversion; `old` on update */
  validateConversion?(spec: CustomResourceDefinitionSpec, fldPath: FieldPath, old?: CustomResourceDefinition): FieldError[];
}

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const approvalAnnotation = 'api-approved.kubernetes.io';

const asString = (v: unknown): string => (typeof v === 'string' ? v : '');

/** validateSimpleJSONPath */
function validateSimpleJSONPath(s: string, path: FieldPath): FieldError[] {
  if (s.length === 0) return [fieldErrors.invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldErrors.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceDefinitionNames: for spec.names and status.acceptedNames. */
export function validateNames(names: Partial<CustomResourceDefinitionNames> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const n = names ?? {};
  const dns1035 = (value: string) => isDNS1035Label(value).join(',');
  const plural = asString(n.plural);
  const singular = asString(n.singular);
  const kind = asString(n.kind);
  const listKind = asString(n.listKind);
  if (plural && dns1035(plural)) errs.push(fieldErrors.invalid(path.child('plural'), plural, dns1035(plural)));
  if (singular && dns1035(singular)) errs.push(fieldErrors.invalid(path.child('singular'), singular, dns1035(singular)));
  if (kind && dns1035(kind.toLowerCase())) errs.push(fieldErrors.invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${dns1035(kind.toLowerCase())}`));
  if (listKind && dns1035(listKind.toLowerCase())) {
    errs.push(fieldErrors.invalid(path.child('listKind'), listKind, `may have mixed case, but should otherwise match: ${dns1035(listKind.toLowerCase())}`));
  }
  (n.shortNames ?? []).forEach((s, i) => {
    const e = dns1035(asString(s));
    if (e) errs.push(fieldErrors.invalid(path.child('shortNames').index(i), s, e));
  });
  // kind and listKind may not be the same or parsing becomes ambiguous
  if (kind && kind === listKind) errs.push(fieldErrors.invalid(path.child('listKind'), listKind, 'kind and listKind may not be the same'));
  (n.categories ?? []).forEach((c, i) => {
    const e = dns1035(asString(c));
    if (e) errs.push(fieldErrors.invalid(path.child('categories').index(i), c, e));
  });
  return errs;
}

function validateSubresources(sub: CustomResourceSubresources | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const scale = sub?.scale;
  if (!scale) return errs;
  // kube names these paths with a dotted child ("scale.specReplicasPath").
  const spec = asString(scale.specReplicasPath);
  if (!spec) errs.push(fieldErrors.required(path.child('scale.specReplicasPath')));
  else {
    const e = validateSimpleJSONPath(spec, path.child('scale.specReplicasPath'));
    if (e.length) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(fieldErrors.invalid(path.child('scale.specReplicasPath'), spec, 'should be a json path under .spec'));
  }
  const status = asString(scale.statusReplicasPath);
  if (!status) errs.push(fieldErrors.required(path.child('scale.statusReplicasPath')));
  else {
    const e = validateSimpleJSONPath(status, path.child('scale.statusReplicasPath'));
    if (e.length) errs.push(...e);
    else if (!status.startsWith('.status.')) errs.push(fieldErrors.invalid(path.child('scale.statusReplicasPath'), status, 'should be a json path under .status'));
  }
  const selector = asString(scale.labelSelectorPath);
  if (selector) {
    const e = validateSimpleJSONPath(selector, path.child('scale.labelSelectorPath'));
    if (e.length) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errs.push(fieldErrors.invalid(path.child('scale.labelSelectorPath'), selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

/** ValidateCustomResourceColumnDefinition */
function validateColumn(col: CustomResourceColumnDefinition, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!asString(col.name)) errs.push(fieldErrors.required(path.child('name')));
  const type = asString(col.type);
  if (!type) errs.push(fieldErrors.required(path.child('type'), `must be one of ${printerColumnTypes.join(',')}`));
  else if (!printerColumnTypes.includes(type)) errs.push(fieldErrors.invalid(path.child('type'), type, `must be one of ${printerColumnTypes.join(',')}`));
  const format = asString(col.format);
  if (format && !printerColumnFormats.includes(format)) errs.push(fieldErrors.invalid(path.child('format'), format, `must be one of ${printerColumnFormats.join(',')}`));
  // kube's path keeps the internal field name "JSONPath"
  const jsonPath = asString(col.jsonPath);
  if (!jsonPath) errs.push(fieldErrors.required(path.child('JSONPath')));
  else errs.push(...validateSimpleJSONPath(jsonPath, path.child('JSONPath')));
  return errs;
}

/** ValidateCustomResourceDefinitionVersion: deprecation warning, schema (required in v1), subresources, columns. */
function validateVersion(version: CustomResourceDefinitionVersion, path: FieldPath, deps: CrdValidationDeps, requireStructural: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!version.deprecated && version.deprecationWarning !== undefined) {
    errs.push(fieldErrors.invalid(path.child('deprecationWarning'), version.deprecationWarning, 'can only be set for deprecated versions'));
  } else if (version.deprecationWarning !== undefined && version.deprecationWarning.length > 256) {
    errs.push(fieldErrors.tooLong(path.child('deprecationWarning'), '', 256));
  }
  const schemaPath = path.child('schema', 'openAPIV3Schema');
  const schema = version.schema?.openAPIV3Schema;
  if (!schema) errs.push(fieldErrors.required(schemaPath, 'schemas are required'));
  else {
    const structuralErrs = deps.validateSchema?.(schema, schemaPath, requireStructural ? { isRoot: true } : { isRoot: true, requireStructural: false }) ?? [];
    errs.push(...structuralErrs);
    const structural = structuralErrs.length === 0 && (requireStructural || (deps.isStructural?.(schema) ?? true));
    if (deps.compileRules) errs.push(...deps.compileRules(schema, schemaPath, { structural }));
  }
  errs.push(...validateSubresources(version.subresources, path.child('subresources')));
  (version.additionalPrinterColumns ?? []).forEach((c, i) => errs.push(...validateColumn(c, path.child('additionalPrinterColumns').index(i))));
  return errs;
}

const isProtectedGroup = (group: string): boolean => group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');

/** ValidateCustomResourceDefinitionSpec for apiextensions.k8s.io/v1. */
export function validateSpec(spec: CustomResourceDefinitionSpec | undefined, path: FieldPath, deps: CrdValidationDeps, old?: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const s = (spec ?? {}) as Partial<CustomResourceDefinitionSpec>;
  const group = asString(s.group);
  if (!group) errs.push(fieldErrors.required(path.child('group')));
  else if (isDNS1123Subdomain(group).length) errs.push(fieldErrors.invalid(path.child('group'), group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(fieldErrors.invalid(path.child('group'), group, 'should be a domain with at least one dot'));

  const scope = asString(s.scope);
  if (!scope) errs.push(fieldErrors.required(path.child('scope')));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErrors.notSupported(path.child('scope'), scope, ['Cluster', 'Namespaced']));

  if (s.preserveUnknownFields === true) {
    errs.push(fieldErrors.invalid(path.child('preserveUnknownFields'), true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }

  const versions = Array.isArray(s.versions) ? s.versions : [];
  // requireStructuralSchema: a CRD stored with a non-structural schema (before v1 required them) stays updatable
  const requireStructural = !old || !deps.isStructural || (old.spec?.versions ?? []).every((v) => !v.schema?.openAPIV3Schema || deps.isStructural!(v.schema.openAPIV3Schema));
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const vp = path.child('versions').index(i);
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = isDNS1035Label(asString(v.name));
    if (nameErrs.length) errs.push(fieldErrors.invalid(vp.child('name'), v.name ?? '', nameErrs.join(',')));
    errs.push(...validateVersion(v, vp, deps, requireStructural));
  });
  // kube prints the versions as Go's %#v of the internal type, and has no separate error for an empty list
  const badVersions = goVersions(Array.isArray(s.versions) ? s.versions : undefined);
  if (!unique) errs.push(fieldErrors.invalid(path.child('versions'), badVersions, 'must contain unique version names'));
  if (storageCount !== 1) errs.push(fieldErrors.invalid(path.child('versions'), badVersions, 'must have exactly one version marked as storage version'));

  // some names are required in spec but not in status
  const names = (s.names ?? {}) as Partial<CustomResourceDefinitionNames>;
  if (!asString(names.plural)) errs.push(fieldErrors.required(path.child('names', 'plural')));
  if (!asString(names.singular)) errs.push(fieldErrors.required(path.child('names', 'singular')));
  if (!asString(names.kind)) errs.push(fieldErrors.required(path.child('names', 'kind')));
  if (!asString(names.listKind)) errs.push(fieldErrors.required(path.child('names', 'listKind')));
  errs.push(...validateNames(names, path.child('names')));

  if (deps.validateConversion && s.conversion) errs.push(...deps.validateConversion(s as CustomResourceDefinitionSpec, path.child('conversion'), old));
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions */
export function validateStoredVersions(stored: string[] | undefined, versions: CustomResourceDefinitionVersion[], path: FieldPath): FieldError[] {
  const list = stored ?? [];
  if (list.length === 0) return [fieldErrors.invalid(path, goStrings(stored), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(list.map((v, i) => [v, i]));
  for (const v of versions) {
    const has = remaining.has(v.name);
    if (v.storage && !has) errs.push(fieldErrors.invalid(path, goVersion(v, versions), `must have the storage version ${v.name}`));
    if (has) remaining.delete(v.name);
  }
  for (const [v, i] of remaining) errs.push(fieldErrors.invalid(path.index(i), v, 'must appear in spec.versions'));
  return errs;
}

/** The metadata rules of a CRD beyond ObjectMeta's: the name and the approval annotation of protected groups. */
function validateCrdMeta(crd: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(crd.metadata?.name);
  const required = `${asString(crd.spec?.names?.plural)}.${asString(crd.spec?.group)}`;
  if (name && name !== required) errs.push(fieldErrors.invalid(FieldPath.root('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group'));
  const group = asString(crd.spec?.group);
  if (group && isProtectedGroup(group) && crd.metadata?.annotations?.[approvalAnnotation] === undefined) {
    errs.push(
      fieldErrors.required(
        FieldPath.root('metadata', 'annotations').key(approvalAnnotation),
        `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    );
  }
  return errs;
}

/** ValidateCustomResourceDefinition (metadata is validated by the store). */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition, deps: CrdValidationDeps = {}, old?: CustomResourceDefinition): FieldError[] {
  return [
    ...validateCrdMeta(crd),
    ...validateSpec(crd.spec, FieldPath.root('spec'), deps, old),
    ...validateNames(crd.status?.acceptedNames, FieldPath.root('status', 'acceptedNames')),
    ...validateStoredVersions(crd.status?.storedVersions, crd.spec?.versions ?? [], FieldPath.root('status', 'storedVersions')),
  ];
}

function immutable(newVal: unknown, oldVal: unknown, path: FieldPath): FieldError[] {
  return newVal === oldVal ? [] : [fieldErrors.invalid(path, newVal ?? '', fieldImmutableErrorMsg)];
}

/** ValidateCustomResourceDefinitionUpdate: the create rules, then what may not change (scope and kind once established). */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition, deps: CrdValidationDeps = {}): FieldError[] {
  const errs = validateCustomResourceDefinition(crd, deps, old);
  const spec = FieldPath.root('spec');
  if (isConditionTrue(old, 'Established')) {
    // these affect the storage and cannot be changed therefore
    errs.push(...immutable(crd.spec?.scope, old.spec?.scope, spec.child('scope')));
    errs.push(...immutable(crd.spec?.names?.kind, old.spec?.names?.kind, spec.child('names', 'kind')));
  }
  // these affect the resource name, which is always immutable
  errs.push(...immutable(crd.spec?.group, old.spec?.group, spec.child('group')));
  errs.push(...immutable(crd.spec?.names?.plural, old.spec?.names?.plural, spec.child('names', 'plural')));
  return errs;
}
