// The CRD-time checks of issue #9's other modules, wired into the CRD strategy: structural schema rules
// (schema/), CEL rule compilation (cel/) and conversion settings (conversion/).
import type { CelEnvironment } from '../admission/cel/environment.js';
import { FieldPath } from '../api/field.js';
import { compileSchemaValidations } from './cel/index.js';
import { conversionValidationOptionsForUpdate, validateCustomResourceConversion } from './conversion/index.js';
import type { CrdValidationDeps } from './crd-validation.js';
import { structuralSchemaViolations, validateStructuralSchema } from './schema/index.js';

export function crdValidationDeps(cel: CelEnvironment | undefined): CrdValidationDeps {
  return {
    validateSchema: (schema, fldPath, opts) => validateStructuralSchema(schema, fldPath, opts),
    isStructural: (schema) => {
      const r = structuralSchemaViolations(schema, FieldPath.root('schema'));
      return r.conversionError === undefined && r.violations.length === 0;
    },
    compileRules: (schema, fldPath, opts) => compileSchemaValidations(schema, { fldPath, ...(cel ? { cel } : {}), skipCompilation: !opts.structural }).errors,
    validateConversion: (spec, fldPath, old) =>
      validateCustomResourceConversion(spec, fldPath, old ? conversionValidationOptionsForUpdate(old) : { requireRecognizedVersion: true, allowInvalidCABundle: false }),
  };
}
