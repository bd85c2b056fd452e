// Compilation of the rules of one schema node (kube's cel.Compile + compileRule): each rule and its
// messageExpression against `self`/`oldSelf` of the node's type, with the transition-rule flag, the normalized
// fieldPath and the static cost estimate kube checks at CRD time.
import type { JSONSchemaProps, ValidationRule } from '../../api/apiextensions.js';
import type { CompiledProgram } from '../../admission/cel/engine/env.js';
import { schemaDeclType } from '../../admission/cel/schema-types.js';
import type { CelType } from '../../admission/cel/engine/types.js';
import { MAX_COST, type CostEstimatorOptions } from '../../admission/cel/engine/cost.js';
import { schemaSizeEstimator } from './schema-sizes.js';
import { compileRuleExpression } from './rule-environment.js';
import { validFieldPath } from './rule-field-path.js';

export interface CompiledRule {
  readonly rule: ValidationRule;
  /** undefined for an empty rule (reported at CRD time; skipped at runtime) or one that failed to compile */
  readonly program?: CompiledProgram;
  /** "compilation failed: ERROR: <input>:…" or "cel expression must evaluate to a bool" */
  readonly error?: string;
  /** the rule references oldSelf: evaluated only where an old value correlates (or with optionalOldSelf) */
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  /** fieldPath as a field path below the node (`spec.replicas`, `[key]`) */
  readonly normalizedFieldPath?: string;
  readonly messageProgram?: CompiledProgram;
  readonly messageError?: string;
  /** estimated worst-case costs of one evaluation (cel-go's estimate with kube's schema-derived sizes) */
  readonly maxCost: number;
  readonly messageMaxCost: number;
}

export interface CompiledNodeRules {
  readonly rules: readonly CompiledRule[];
  /** kube's Compile error: the node has no CEL type (no type, an array without items, …) */
  readonly error?: string;
}

let selfTypeCounter = 0;

/**
 * kube's generateUniqueSelfTypeName: the object type of `self` gets a fresh name on every compilation so rules
 * cannot depend on it (it only shows in type errors).
 */
function uniqueSelfTypeName(): string {
  selfTypeCounter = (selfTypeCounter + 1) % 1_000_000_000;
  return `selfType${selfTypeCounter}`;
}

/** Compiles the x-kubernetes-validations of `rulesOf` as rules on `node` (allOf rules apply to their parent node). */
export function compileNodeRules(rulesOf: JSONSchemaProps, node: JSONSchemaProps, isResourceRoot: boolean): CompiledNodeRules {
  const rules = rulesOf['x-kubernetes-validations'] ?? [];
  if (rules.length === 0) return { rules: [] };
  const selfType = schemaDeclType(node, uniqueSelfTypeName(), isResourceRoot);
  if (!selfType) {
    return {
      rules: [],
      error: `rule declared on schema that does not support validation rules type: '${node.type ?? ''}' x-kubernetes-preserve-unknown-fields: '${node['x-kubernetes-preserve-unknown-fields'] === true}'`,
    };
  }
  // kube: values reached from self/oldSelf are sized by the schema; anything else CEL cannot bound is unbounded
  const costOptions: CostEstimatorOptions = { presenceTestHasCost: false, maxSize: MAX_COST, estimateSize: schemaSizeEstimator(node, isResourceRoot) };
  return { rules: rules.map((rule) => compileRule(rule, node, selfType, costOptions)) };
}

function compileRule(rule: ValidationRule, node: JSONSchemaProps, selfType: CelType, costOptions: CostEstimatorOptions): CompiledRule {
  const optionalOldSelf = rule.optionalOldSelf === true;
  const base = { rule, usesOldSelf: false, optionalOldSelf, maxCost: 0, messageMaxCost: 0 };
  if ((rule.rule ?? '').trim().length === 0) return base;
  const compiled = compileRuleExpression(rule.rule, selfType, { optionalOldSelf });
  if (!compiled.ok) return { ...base, error: `compilation failed: ${compiled.issues}` };
  if (compiled.type.kind !== 'bool' && compiled.type.kind !== 'dyn') return { ...base, error: 'cel expression must evaluate to a bool' };
  const estimate = compiled.program.estimateCost(costOptions);
  let normalizedFieldPath: string | undefined;
  if (rule.fieldPath) {
    const fp = validFieldPath(rule.fieldPath, node);
    if (fp.ok) normalizedFieldPath = fp.path.toString();
  }
  const result = { ...base, program: compiled.program, usesOldSelf: compiled.usesOldSelf, maxCost: estimate.max, normalizedFieldPath };
  if (!rule.messageExpression) return result;
  const message = compileRuleExpression(rule.messageExpression, selfType, { optionalOldSelf });
  if (!message.ok) return { ...result, messageError: `messageExpression compilation failed: ${message.issues}` };
  if (message.type.kind !== 'string' && message.type.kind !== 'dyn') return { ...result, messageError: 'messageExpression must evaluate to a string' };
  return { ...result, messageProgram: message.program, messageMaxCost: message.program.estimateCost(costOptions).max };
}
