// kube's validating.TypeChecker (staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/
// typechecking.go): the status controller's check of a ValidatingAdmissionPolicy's validations against the schemas
// of the kinds its matchConstraints name. Each validation's expression and messageExpression is compiled once per
// kind with `object`/`oldObject` typed from that kind's schema and `params` from the paramKind's; every kind whose
// compilation fails contributes "<group>/<version>, Kind=<kind>: ERROR: <input>:…" to the expression's warning.
//
// As in kube: rules with a wildcard group or version are skipped, wildcard and subresource resources are
// ignored, at most 10 kinds are checked, kinds without a schema are skipped, and a paramKind without a schema
// leaves `params` undeclared. Admission itself keeps compiling with dyn `object` (kube's plugin/cel/compile.go),
// so warnings never change what a policy does.
import type { ExpressionWarning, ValidatingAdmissionPolicy } from '../../../api/admissionregistration.js';
import { builtinSchemaResolver } from '../../../api/openapi/builtin-schemas.js';
import type { JSONSchemaProps } from '../../../api/apiextensions.js';
import { chainSchemaResolvers, formatGroupVersionKind, type GroupVersionKind, type SchemaResolver } from '../../../api/openapi/resolver.js';
import type { CelEnvironment, TypedDeclarations } from '../../cel/environment.js';
import { T, type CelType } from '../../cel/engine/types.js';
import { celTypeOfSchema } from '../../cel/schema-types.js';
import type { PolicyTypeChecker } from './status.js';

/** kube's maxTypesToCheck */
export const maxTypesToCheck = 10;

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface PolicyTypeCheckerDeps {
  cel: CelEnvironment;
  schemas: SchemaResolver;
  /** the RESTMapper's KindsFor: the kinds served at a resource (none when it is not served) */
  kindsFor(gvr: GroupVersionResource): readonly GroupVersionKind[];
  /** makes the schemas of these kinds available to `schemas` (the built-in models load on demand) */
  prepare?(gvks: readonly GroupVersionKind[]): Promise<void>;
}

const gvkKey = (g: GroupVersionKind) => `${g.group}/${g.version}/${g.kind}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** typesToCheck: the kinds the policy's resource rules resolve to, sorted by group, version, kind. */
export function typesToCheck(policy: ValidatingAdmissionPolicy, kindsFor: PolicyTypeCheckerDeps['kindsFor']): GroupVersionKind[] {
  const found = new Map<string, GroupVersionKind>();
  const sorted = () => [...found.values()].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version) || compare(a.kind, b.kind));
  for (const rule of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    // a wildcard group or version gives up on the whole rule; wildcard resources and subresources are skipped
    if (!groups.length || groups.some((g) => g.includes('*'))) continue;
    if (!versions.length || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (!resources.length) continue;
    let count = 0;
    for (const group of [...groups].sort(compare)) {
      for (const version of [...versions].sort(compare)) {
        for (const resource of [...resources].sort(compare)) {
          for (const gvk of kindsFor({ group, version, resource })) {
            found.set(gvkKey(gvk), gvk);
            if (++count === maxTypesToCheck) return sorted();
          }
        }
      }
    }
  }
  return sorted();
}

/** paramsGVK: the paramKind as a kind, or undefined when there is none or its apiVersion does not parse. */
export function paramsKind(policy: ValidatingAdmissionPolicy): GroupVersionKind | undefined {
  const pk = policy.spec?.paramKind;
  if (!pk?.apiVersion || !pk.kind) return undefined;
  const parts = pk.apiVersion.split('/');
  if (parts.length > 2) return undefined;
  const [group, version] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  return { group, version, kind: pk.kind };
}

/** generateUniqueTypeName: kube names each check's root type after the kind and the clock's nanoseconds. */
function uniqueTypeName(kind: string): string {
  return `${kind}${process.hrtime.bigint() % 1_000_000_000n}`;
}

function declType(schemas: SchemaResolver, gvk: GroupVersionKind | undefined): CelType | undefined {
  if (!gvk) return undefined;
  const schema = schemas.schemaFor(gvk);
  return schema ? celTypeOfSchema(schema, uniqueTypeName(gvk.kind)) : undefined;
}

/** The checker the status controller runs. */
export function createPolicyTypeChecker(deps: PolicyTypeCheckerDeps): PolicyTypeChecker {
  return async (policy) => {
    const allKinds = typesToCheck(policy, deps.kindsFor);
    const paramKind = paramsKind(policy);
    await deps.prepare?.(paramKind ? [...allKinds, paramKind] : allKinds);
    return checkPolicy(policy, deps.cel, deps.schemas, allKinds, paramKind);
  };
}

/** TypeChecker.Check over resolved kinds: one warning per failing expression, naming every kind it failed for. */
export function checkPolicy(
  policy: ValidatingAdmissionPolicy,
  cel: CelEnvironment,
  schemas: SchemaResolver,
  kinds: readonly GroupVersionKind[],
  paramKind: GroupVersionKind | undefined,
): ExpressionWarning[] {
  const params = declType(schemas, paramKind);
  const typed: Array<{ gvk: GroupVersionKind; types: TypedDeclarations }> = [];
  for (const gvk of kinds) {
    const object = declType(schemas, gvk);
    if (!object) continue; // no schema: skipped, as kube skips ErrSchemaNotFound
    typed.push({ gvk, types: { object, ...(params ? { params } : {}), variables: variableTypes(policy, cel, object, params) } });
  }
  const check = (expression: string): string | undefined => {
    const failures: string[] = [];
    for (const { gvk, types } of typed) {
      const r = cel.typeCheck(expression, { hasAuthorizer: true }, types);
      if (!r.ok) failures.push(`${formatGroupVersionKind(gvk)}: ${r.message}\n`);
    }
    return failures.length ? failures.join('\n') : undefined;
  };
  const warnings: ExpressionWarning[] = [];
  (policy.spec?.validations ?? []).forEach((v, i) => {
    const w = check(v.expression ?? '');
    if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}

/** CompileAndStoreVariables with typed declarations: each variable typed by its expression, dyn if it fails. */
function variableTypes(policy: ValidatingAdmissionPolicy, cel: CelEnvironment, object: CelType, params: CelType | undefined): Map<string, CelType> {
  const variables = new Map<string, CelType>();
  for (const v of policy.spec?.variables ?? []) {
    const r = cel.typeCheck(v.expression ?? '', { hasAuthorizer: true }, { object, ...(params ? { params } : {}), variables: new Map(variables) });
    variables.set(v.name ?? '', r.ok ? r.type : T.dyn);
  }
  return variables;
}

/** A served kind and, for custom resources, its version's openAPIV3Schema (a ResourceInfo). */
export interface ServedKindSchema {
  group: string;
  version: string;
  kind: string;
  openAPIV3Schema?: Record<string, unknown>;
}

/**
 * The schemas of the served custom resources, as kube's OpenAPI publishes them for the type checker: the CRD
 * version's openAPIV3Schema with apiVersion, kind and metadata added when the CRD leaves them out (metadata is
 * open here: the checker must not warn about ObjectMeta fields the CRD schema does not spell out).
 */
export function servedSchemaResolver(served: () => readonly ServedKindSchema[]): SchemaResolver {
  return {
    schemaFor(gvk) {
      const info = served().find((i) => i.group === gvk.group && i.version === gvk.version && i.kind === gvk.kind && i.openAPIV3Schema);
      if (!info) return undefined;
      const schema = structuredClone(info.openAPIV3Schema) as JSONSchemaProps;
      const properties = { ...(schema.properties ?? {}) };
      properties['apiVersion'] ??= { type: 'string' };
      properties['kind'] ??= { type: 'string' };
      properties['metadata'] ??= { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      return { ...schema, type: schema.type ?? 'object', properties };
    },
  };
}

/**
 * The checker over the built-in kinds' schemas (client-node's models, imported on first use), and those of
 * `served` custom resources when given.
 */
export function builtinPolicyTypeChecker(cel: CelEnvironment, kindsFor: PolicyTypeCheckerDeps['kindsFor'], served?: SchemaResolver): PolicyTypeChecker {
  const builtin = builtinSchemaResolver();
  const schemas = served ? chainSchemaResolvers(served, builtin) : builtin;
  return createPolicyTypeChecker({ cel, schemas, kindsFor, prepare: (gvks) => builtin.load(gvks) });
}
