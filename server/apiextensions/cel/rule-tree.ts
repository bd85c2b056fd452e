// The tree of compiled rules parallel to the schema (kube's cel.Validator): a node exists where the schema or
// something below it has x-kubernetes-validations, following properties, items and additionalProperties; rules in
// allOf apply to the node that holds the allOf.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { schemaDeclType } from '../../admission/cel/schema-types.js';
import { compileNodeRules, type CompiledNodeRules, type CompiledRule } from './compiled-rules.js';
import { additionalPropertiesSchema, itemsSchema } from './schema-nodes.js';

export interface RuleNode {
  readonly schema: JSONSchemaProps;
  /** the root of the resource or of an embedded resource: rules see TypeMeta and ObjectMeta.name/generateName */
  readonly isResourceRoot: boolean;
  readonly rules: readonly CompiledRule[];
  /** the node cannot have rules (kube: "rule compiler initialization error") */
  readonly compilationError?: string;
  readonly allOf: readonly RuleNode[];
  readonly properties: ReadonlyMap<string, RuleNode>;
  readonly items?: RuleNode;
  readonly additionalProperties?: RuleNode;
}

export function hasRules(s: JSONSchemaProps | undefined, depth = 0): boolean {
  if (!s || depth > 256) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  if (hasRules(itemsSchema(s), depth + 1) || hasRules(additionalPropertiesSchema(s), depth + 1)) return true;
  if ((s.allOf ?? []).some((a) => hasRules(a, depth + 1))) return true;
  return Object.values(s.properties ?? {}).some((p) => hasRules(p, depth + 1));
}

/**
 * Builds the node for `node`, taking its rules from `rulesOf` (the same schema, or one of its allOf entries).
 * `compiled` lets the CRD-time walk reuse rules it compiled already.
 */
export function buildRuleNode(
  rulesOf: JSONSchemaProps,
  node: JSONSchemaProps,
  isResourceRoot: boolean,
  compiled: (rulesOf: JSONSchemaProps, node: JSONSchemaProps, isResourceRoot: boolean) => CompiledNodeRules = compileNodeRules,
): RuleNode | undefined {
  if (!hasRules(rulesOf)) return undefined;
  const properties = new Map<string, RuleNode>();
  for (const [k, p] of Object.entries(rulesOf.properties ?? {})) {
    // kube only validates fields on the structural spine: the node's own properties
    const nodeProp = node.properties?.[k];
    // fields CEL cannot type are omitted from CEL validation entirely, as in kube
    if (!nodeProp || !schemaDeclType(nodeProp, 'field', !!nodeProp['x-kubernetes-embedded-resource'])) continue;
    const child = buildRuleNode(p, nodeProp, !!nodeProp['x-kubernetes-embedded-resource'], compiled);
    if (child) properties.set(k, child);
  }
  const rulesItems = itemsSchema(rulesOf);
  const nodeItems = itemsSchema(node);
  const items = rulesItems && nodeItems ? buildRuleNode(rulesItems, nodeItems, !!nodeItems['x-kubernetes-embedded-resource'], compiled) : undefined;
  const rulesAdditional = additionalPropertiesSchema(rulesOf);
  const nodeAdditional = additionalPropertiesSchema(node);
  const additionalProperties =
    rulesAdditional && nodeAdditional ? buildRuleNode(rulesAdditional, nodeAdditional, !!nodeAdditional['x-kubernetes-embedded-resource'], compiled) : undefined;
  const allOf = (rulesOf.allOf ?? []).map((a) => buildRuleNode(a, node, isResourceRoot, compiled)).filter((n): n is RuleNode => n !== undefined);
  const own = compiled(rulesOf, node, isResourceRoot);
  return { schema: node, isResourceRoot, rules: own.rules, compilationError: own.error, allOf, properties, items, additionalProperties };
}
