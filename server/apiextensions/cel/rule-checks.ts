// The static checks kube's CRD validation makes on every x-kubernetes-validations entry, anywhere in the schema
// (apiextensions validation.go ValidateCustomResourceDefinitionOpenAPISchema): rule present, message and
// messageExpression non-empty and single-line, reason supported, fieldPath a valid path into the node's schema.
import type { JSONSchemaProps, ValidationRule } from '../../api/apiextensions.js';
import { fieldErrors, type FieldError, type FieldPath } from '../../api/field.js';
import { validFieldPath } from './rule-field-path.js';
import { additionalPropertiesSchema } from './schema-nodes.js';

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** kube's newlineMatcher: the newline characters of the CEL grammar. */
export const hasNewlines = (s: string): boolean => /[\n\r]+/.test(s);

export function checkRule(rule: ValidationRule, schema: JSONSchemaProps, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ruleText = rule.rule ?? '';
  const message = rule.message ?? '';
  const messageExpression = rule.messageExpression ?? '';
  const trimmedRule = ruleText.trim();
  const trimmedMsg = message.trim();
  if (trimmedRule.length === 0) errs.push(fieldErrors.required(path.child('rule'), 'rule is not specified'));
  else if (message.length > 0 && trimmedMsg.length === 0) errs.push(fieldErrors.invalid(path.child('message'), message, 'message must be non-empty if specified'));
  else if (hasNewlines(trimmedMsg)) errs.push(fieldErrors.invalid(path.child('message'), message, 'message must not contain line breaks'));
  else if (hasNewlines(trimmedRule) && trimmedMsg.length === 0) {
    errs.push(fieldErrors.required(path.child('message'), 'message must be specified if rule contains line breaks'));
  }
  if (messageExpression.length > 0 && messageExpression.trim().length === 0) {
    errs.push(fieldErrors.required(path.child('messageExpression'), 'messageExpression must be non-empty if specified'));
  }
  if (rule.reason !== undefined && !supportedReasons.includes(rule.reason)) {
    errs.push(fieldErrors.notSupported(path.child('reason'), rule.reason, supportedReasons));
  }
  const fieldPath = rule.fieldPath ?? '';
  if (fieldPath.length > 0 && fieldPath.trim().length === 0) {
    errs.push(fieldErrors.invalid(path.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
  }
  if (hasNewlines(fieldPath)) errs.push(fieldErrors.invalid(path.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  if (fieldPath.length > 0 && !validFieldPath(fieldPath, schema).ok) {
    errs.push(fieldErrors.invalid(path.child('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  }
  return errs;
}

/** The static rule errors of a schema and everything below it (every sub-schema kube's CRD validation visits). */
export function staticRuleErrors(schema: JSONSchemaProps, fldPath: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const additional = additionalPropertiesSchema(schema);
  if (additional && typeof schema.additionalProperties === 'object') errs.push(...staticRuleErrors(additional, fldPath.child('additionalProperties')));
  for (const [k, p] of Object.entries(schema.properties ?? {})) errs.push(...staticRuleErrors(p, fldPath.child('properties').key(k)));
  if (schema.not) errs.push(...staticRuleErrors(schema.not, fldPath.child('not')));
  for (const [key, list] of [['allOf', schema.allOf], ['oneOf', schema.oneOf], ['anyOf', schema.anyOf]] as const) {
    (list ?? []).forEach((s, i) => errs.push(...staticRuleErrors(s, fldPath.child(key).index(i))));
  }
  for (const [k, d] of Object.entries(schema.definitions ?? {})) errs.push(...staticRuleErrors(d, fldPath.child('definitions').key(k)));
  if (Array.isArray(schema.items)) schema.items.forEach((s, i) => errs.push(...staticRuleErrors(s, fldPath.child('items').index(i))));
  else if (schema.items) errs.push(...staticRuleErrors(schema.items, fldPath.child('items')));
  for (const [k, d] of Object.entries(schema.dependencies ?? {})) {
    if (!Array.isArray(d)) errs.push(...staticRuleErrors(d, fldPath.child('dependencies').key(k)));
  }
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    errs.push(...checkRule(rule, schema, fldPath.child('x-kubernetes-validations').index(i)));
  });
  return errs;
}
