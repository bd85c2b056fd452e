// The ValidatingAdmissionPolicy admission plugin (kube's admission/plugin/policy/validating).
export { compileValidatingPolicy, type CompiledAuditAnnotation, type CompiledValidation, type ValidatingPolicyEvaluator } from './compile.js';
export { validatePolicy, type PolicyAuditAnnotation, type PolicyDecision, type ValidateInput, type ValidateOptions, type ValidateResult } from './validator.js';
export { denialError, dispatchValidatingPolicies, errorTypeOf, maxAuditAnnotationValueLength, validationFailureAnnotationKey, type ValidatingDispatchDeps, type ValidatingPolicyHook } from './dispatcher.js';
export { ValidatingAdmissionPolicyPlugin, validatingAdmissionPolicyPluginName, type ValidatingAdmissionPolicyPluginOptions } from './plugin.js';
export { needsTypeChecking, typeCheckedStatus, ValidatingAdmissionPolicyStatusController, type PolicyStatusControllerDeps, type PolicyTypeChecker } from './status.js';
export { builtinPolicyTypeChecker, checkPolicy, createPolicyTypeChecker, maxTypesToCheck, paramsKind, typesToCheck, type PolicyTypeCheckerDeps } from './typechecking.js';
