// kube's nonstructuralschema controller: a CRD whose served schemas are not structural gets the condition
// NonStructuralSchema=True (reason Violations, the violations as the message); a structural one has none.
// The API rejects such schemas since apiextensions.k8s.io/v1, so only CRDs written to storage some other way
// (an older server, a restored etcd, a direct write) ever carry it.
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, JSONSchemaProps } from '../../api/apiextensions.js';
import { fieldErrors, FieldPath, formatFieldErrors, type FieldError } from '../../api/field.js';

export type StructuralCheck = (schema: JSONSchemaProps, path: FieldPath) => { conversionError?: string; violations: FieldError[] };

/** calculateCondition: the condition the CRD should carry, or undefined when it should carry none. */
export function nonStructuralCondition(crd: CustomResourceDefinition, check: StructuralCheck): CustomResourceDefinitionCondition | undefined {
  const errs: FieldError[] = [];
  if (crd.spec?.preserveUnknownFields === true) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'preserveUnknownFields'), true, 'must be false'));
  for (const [i, v] of (crd.spec?.versions ?? []).entries()) {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) continue;
    const result = check(schema, FieldPath.root('spec', 'versions').index(i).child('schema', 'openAPIV3Schema'));
    if (result.conversionError !== undefined) {
      return { type: 'NonStructuralSchema', status: 'Unknown', reason: 'StructuralError', message: `failed to check validation schema for version ${v.name}: ${result.conversionError}` };
    }
    errs.push(...result.violations);
  }
  if (errs.length === 0) return undefined;
  return { type: 'NonStructuralSchema', status: 'True', reason: 'Violations', message: formatFieldErrors(errs) };
}
