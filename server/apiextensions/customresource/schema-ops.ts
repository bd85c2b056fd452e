// What serving a custom resource needs from the schema, CEL, conversion and printer-column modules, as one set of
// functions: the serving code depends on these signatures, the wiring (ops.ts) supplies the implementations.
import type { CustomResourceDefinition, JSONSchemaProps } from '../../api/apiextensions.js';
import type { FieldError, FieldPath } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import type { PrinterColumn } from '../../registry/resource.js';

/** x-kubernetes-validations of one schema, compiled (crdcel's CustomResourceRuleValidator). */
export interface RuleValidator {
  readonly hasRules: boolean;
  validate(obj: unknown, oldObj: unknown | undefined): { errors: FieldError[]; warnings: string[] };
}

/** One CRD's converter (crdconv's CustomResourceConverter): throws a StatusError when conversion fails. */
export interface Converter {
  convert(objects: KubeObject[], desiredAPIVersion: string): Promise<KubeObject[]>;
}

export interface CustomResourceOps {
  /** value validation of a whole object, paths rooted at the object ("spec.replicas") */
  validateValue(obj: unknown, schema: JSONSchemaProps): FieldError[];
  /** prunes in place, returns the pruned paths ("spec.foo") */
  prune(obj: Record<string, unknown>, schema: JSONSchemaProps): string[];
  /** structural defaulting in place */
  applyDefaults(obj: unknown, schema: JSONSchemaProps): void;
  /** the compiled rules of a schema, or undefined when it has none */
  compileRules(schema: JSONSchemaProps, fldPath: FieldPath): RuleValidator | undefined;
  converterFor(crd: CustomResourceDefinition): Converter;
  /** NewStructural's error or ValidateStructural's violations of a stored schema (nonstructuralschema controller) */
  structuralViolations(schema: JSONSchemaProps, path: FieldPath): { conversionError?: string; violations: FieldError[] };
  /** the table cell of an additionalPrinterColumn (kube's CRD tableconvertor) */
  printerCell(column: { type: PrinterColumn['type']; jsonPath: string }, obj: KubeObject, now: Date): string | number | boolean | null;
}
