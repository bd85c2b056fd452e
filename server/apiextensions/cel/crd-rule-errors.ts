// CRD-time errors of x-kubernetes-validations (apiextensions validation.go): compile errors of rules and
// messageExpressions at `…x-kubernetes-validations[i].rule` / `.messageExpression`, oldSelf on uncorrelatable parts
// of the schema, optionalOldSelf without oldSelf, and the estimated cost limits (per expression, times the number of
// times its node can occur, and for the whole schema). Rules are only compiled where no static error was found at
// or below their node, as kube skips CEL checks on schemas it cannot type.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { fieldErrors, type FieldError, type FieldPath } from '../../api/field.js';
import type { CompiledNodeRules } from './compiled-rules.js';
import {
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  childCardinality,
  costErrorMessage,
  effectiveCardinality,
  multiplyCost,
  type Cardinality,
} from './cost-bounds.js';
import { goValidationRule } from './go-rendering.js';
import { staticRuleErrors } from './rule-checks.js';
import { additionalPropertiesSchema, itemsSchema } from './schema-nodes.js';

interface ExpressionCost {
  path: FieldPath;
  cost: number;
}

/** kube's TotalCost: the sum, and the (at most 4) most expensive expressions above 1% of the limit. */
class TotalCost {
  total = 0;
  readonly mostExpensive: ExpressionCost[] = [];
  observe(path: FieldPath, cost: number): void {
    this.total = Math.min(18446744073709551615, this.total + cost);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }
}

interface WalkContext {
  readonly compile: (schema: JSONSchemaProps, isResourceRoot: boolean) => CompiledNodeRules;
  readonly totalCost: TotalCost;
  readonly errors: FieldError[];
}

export function crdRuleErrors(
  root: JSONSchemaProps,
  fldPath: FieldPath,
  compile: (schema: JSONSchemaProps, isResourceRoot: boolean) => CompiledNodeRules,
): FieldError[] {
  const ctx: WalkContext = { compile, totalCost: new TotalCost(), errors: [] };
  walk(root, fldPath, { isResourceRoot: true, cardinality: 1, uncorrelatable: undefined }, ctx);
  if (ctx.totalCost.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of ctx.totalCost.mostExpensive) {
      ctx.errors.push(fieldErrors.forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    ctx.errors.push(
      fieldErrors.forbidden(
        fldPath,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', ctx.totalCost.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return ctx.errors;
}

interface NodeState {
  isResourceRoot: boolean;
  cardinality: Cardinality;
  /** the list whose items cannot be correlated with their old values (kube's forbidOldSelfValidations) */
  uncorrelatable: FieldPath | undefined;
}

function walk(schema: JSONSchemaProps, path: FieldPath, st: NodeState, ctx: WalkContext): void {
  const additional = additionalPropertiesSchema(schema);
  if (additional) {
    walk(additional, path.child('additionalProperties'), {
      isResourceRoot: !!additional['x-kubernetes-embedded-resource'],
      cardinality: childCardinality(st.cardinality, schema.maxProperties),
      uncorrelatable: st.uncorrelatable,
    }, ctx);
  }
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    walk(p, path.child('properties').key(k), { isResourceRoot: !!p['x-kubernetes-embedded-resource'], cardinality: st.cardinality, uncorrelatable: st.uncorrelatable }, ctx);
  }
  const items = itemsSchema(schema);
  if (items) {
    // only list-type=map items correlate with old items; oldSelf is forbidden below atomic lists and sets
    const uncorrelatable = st.uncorrelatable ?? (schema['x-kubernetes-list-type'] === 'map' ? undefined : path);
    walk(items, path.child('items'), {
      isResourceRoot: !!items['x-kubernetes-embedded-resource'],
      cardinality: childCardinality(st.cardinality, schema.maxItems),
      uncorrelatable,
    }, ctx);
  }
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (rules.length === 0 || staticRuleErrors(schema, path).length > 0) return;
  const cardinality = effectiveCardinality(st.cardinality, schema, st.isResourceRoot);
  const compiled = ctx.compile(schema, st.isResourceRoot);
  if (compiled.error) {
    ctx.errors.push(fieldErrors.internal(path.child('x-kubernetes-validations'), compiled.error));
    return;
  }
  compiled.rules.forEach((cr, i) => {
    const rulePath = path.child('x-kubernetes-validations').index(i);
    const rule = rules[i]!;
    const cost = multiplyCost(cr.maxCost, cardinality);
    if (cost > STATIC_ESTIMATED_COST_LIMIT) {
      ctx.errors.push(fieldErrors.forbidden(rulePath.child('rule'), costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    }
    ctx.totalCost.observe(rulePath.child('rule'), cost);
    if (cr.error) ctx.errors.push(fieldErrors.invalid(rulePath.child('rule'), goValidationRule(rule), cr.error));
    if (cr.messageError) {
      ctx.errors.push(fieldErrors.invalid(rulePath.child('messageExpression'), goValidationRule(rule), cr.messageError));
    } else if (cr.messageProgram) {
      if (cr.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT) {
        ctx.errors.push(
          fieldErrors.forbidden(rulePath.child('messageExpression'), costErrorMessage('estimated messageExpression cost', cr.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT)),
        );
      }
      ctx.totalCost.observe(rulePath.child('messageExpression'), cr.messageMaxCost);
    }
    if (cr.usesOldSelf) {
      if (st.uncorrelatable) {
        ctx.errors.push(
          fieldErrors.invalid(rulePath.child('rule'), rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${st.uncorrelatable.toString()}`),
        );
      }
    } else if (rule.optionalOldSelf !== undefined) {
      ctx.errors.push(fieldErrors.invalid(rulePath.child('optionalOldSelf'), rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
}
