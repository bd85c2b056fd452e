// x-kubernetes-validations of CustomResourceDefinitions: CRD-time checks and compilation of every rule in a version's
// schema, and the runtime validator the custom resource strategy runs on create and update.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import type { FieldError, FieldPath } from '../../api/field.js';
import type { CelEnvironment } from '../../admission/cel/environment.js';
import { compileNodeRules, type CompiledNodeRules } from './compiled-rules.js';
import { crdRuleErrors } from './crd-rule-errors.js';
import { staticRuleErrors } from './rule-checks.js';
import { buildRuleNode } from './rule-tree.js';
import { RuleTreeValidator, type CustomResourceRuleValidator } from './rule-validator.js';

export type { CustomResourceRuleValidator, RuleValidationResult } from './rule-validator.js';
export { BUDGET_EXCEEDED } from './rule-validator.js';

export interface CompileSchemaValidationsOptions {
  /** the path of the schema in the CRD: `spec.versions[0].schema.openAPIV3Schema` */
  fldPath: FieldPath;
  /**
   * Accepted for the shared contract. Rules compile on the x-kubernetes-validations environment of
   * ./rule-environment.ts (kube's base libraries with `self`/`oldSelf`), which CelEnvironment cannot declare.
   */
  cel?: CelEnvironment;
  /**
   * Set when the schema is not structural: kube then builds no CEL context, so only the static checks of
   * x-kubernetes-validations entries are reported and no rule is compiled.
   */
  skipCompilation?: boolean;
}

export interface CompiledSchemaValidations {
  /** kube's order: the static checks of all entries, then compile, oldSelf and cost errors */
  errors: FieldError[];
  validator: CustomResourceRuleValidator;
}

/** Compiles the rules of one version's openAPIV3Schema (the root of a custom resource). */
export function compileSchemaValidations(schema: JSONSchemaProps, opts: CompileSchemaValidationsOptions): CompiledSchemaValidations {
  const errors = staticRuleErrors(schema, opts.fldPath);
  if (opts.skipCompilation) return { errors, validator: new RuleTreeValidator(undefined) };
  // one compilation per node serves the CRD-time errors and the runtime tree
  const cache = new Map<JSONSchemaProps, CompiledNodeRules>();
  const compiled = (rulesOf: JSONSchemaProps, node: JSONSchemaProps, isResourceRoot: boolean): CompiledNodeRules => {
    if (rulesOf !== node) return compileNodeRules(rulesOf, node, isResourceRoot);
    let c = cache.get(node);
    if (!c) {
      c = compileNodeRules(node, node, isResourceRoot);
      cache.set(node, c);
    }
    return c;
  };
  errors.push(...crdRuleErrors(schema, opts.fldPath, (s, isResourceRoot) => compiled(s, s, isResourceRoot)));
  return { errors, validator: new RuleTreeValidator(buildRuleNode(schema, schema, true, compiled)) };
}

/** The runtime validator of a stored CRD version's schema (no CRD-time checks). */
export function customResourceRuleValidator(schema: JSONSchemaProps | undefined): CustomResourceRuleValidator {
  return new RuleTreeValidator(schema ? buildRuleNode(schema, schema, true) : undefined);
}
