// The registry strategy of one served version of a custom resource (apiextensions-apiserver's
// registry/customresource/strategy.go and validator.go): pruning then defaults on every decode of a write (the
// request body and each mutating webhook's result), schema validation, the scale replicas checks, and
// x-kubernetes-validations with oldSelf on update — skipped, as kube skips them, while the object has
// type or required errors.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { errors } from '../../api/errors.js';
import { fieldErrors, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import type { ScaleSubresource, Strategy } from '../../registry/resource.js';
import type { CustomResourceOps, RuleValidator } from './schema-ops.js';

export interface CustomResourceStrategyOptions {
  schema: JSONSchemaProps | undefined;
  rules: RuleValidator | undefined;
  scale: ScaleSubresource | undefined;
  ops: CustomResourceOps;
  /** kube refuses creates while the CRD is terminating */
  terminating: boolean;
  group: string;
  resource: string;
}

const maxInt32 = 2147483647;

function readPath(obj: unknown, path: string): { found: boolean; value: unknown } {
  let cur: unknown = obj;
  for (const k of path.split('.').filter(Boolean)) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur) || !(k in (cur as object))) return { found: false, value: undefined };
    cur = (cur as Record<string, unknown>)[k];
  }
  return { found: true, value: cur };
}

/** unstructured.NestedInt64's complaint about a value, as kube's ValidateScaleSpec/ValidateScaleStatus report it. */
function replicasErrors(obj: KubeObject, path: string): FieldError[] {
  const field = path.replace(/^\./, '');
  const { found, value } = readPath(obj, path);
  if (!found) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return [fieldErrors.invalid(field, 0, `${field} accessor error: ${JSON.stringify(value)} is of the type ${goTypeOf(value)}, expected int64`)];
  }
  if (value < 0) return [fieldErrors.invalid(field, value, 'should be a non-negative integer')];
  if (value > maxInt32) return [fieldErrors.invalid(field, value, `should be less than or equal to ${maxInt32}`)];
  return [];
}

function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/** hasBlockingErr: type and required errors mean the CEL rules are not run. */
const blocking = (errs: FieldError[]): boolean => errs.some((e) => e.type === 'TypeInvalid' || e.type === 'Required');
const rulesSkipped: FieldError = fieldErrors.invalid('', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');

export function customResourceStrategy(opts: CustomResourceStrategyOptions): Strategy {
  const { schema, ops } = opts;
  // The rules' warnings (a failing rule without oldSelf on a value the update did not change: validation
  // ratcheting) of the object last validated; kube adds them to the request's warnings as the rules run, and the
  // store asks for them right after validateUpdate.
  const ruleWarnings = new WeakMap<KubeObject, string[]>();
  const validate = (obj: KubeObject, old: KubeObject | undefined): FieldError[] => {
    const errs: FieldError[] = [];
    if (schema) errs.push(...ops.validateValue(obj, schema));
    if (opts.scale) {
      errs.push(...replicasErrors(obj, opts.scale.specReplicasPath));
      errs.push(...replicasErrors(obj, opts.scale.statusReplicasPath));
    }
    if (opts.rules?.hasRules) {
      if (blocking(errs)) errs.push(rulesSkipped);
      else {
        const result = opts.rules.validate(obj, old);
        errs.push(...result.errors);
        if (result.warnings.length > 0) ruleWarnings.set(obj, result.warnings);
      }
    }
    return errs;
  };
  return {
    applyDefaults(obj) {
      if (!schema) return;
      // kube's decoder prunes (schemaCoercingDecoder), then the versioning codec defaults
      ops.prune(obj as Record<string, unknown>, schema);
      ops.applyDefaults(obj, schema);
    },
    validate: (obj) => validate(obj, undefined),
    validateUpdate: (obj, old) => validate(obj, old),
    warningsOnUpdate: (obj) => ruleWarnings.get(obj) ?? [],
    unknownFields(obj) {
      if (!schema) return [];
      return ops.prune(structuredClone(obj) as Record<string, unknown>, schema);
    },
    refuseCreate() {
      if (!opts.terminating) return undefined;
      const err = errors.methodNotSupported({ group: opts.group, resource: opts.resource }, 'create');
      err.status.message = 'create not allowed while custom resource definition is terminating';
      err.message = err.status.message;
      return err;
    },
  };
}
