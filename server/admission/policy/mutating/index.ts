// The MutatingAdmissionPolicy admission plugin (kube's admission/plugin/policy/mutating).
export { compileMutatingPolicy, type CompiledMutation, type MutatingPolicyEvaluator } from './compile.js';
export { applySchemaFor, loadApplySchema, typedApplySchema, type ApplyNode, type ApplySchema, type ListMapKey } from './apply-schema.js';
export { applyStructuredMergeDiff, findAtomics, pruneNulls, type ApplyConfigurationResult } from './apply-configuration.js';
export { applyJsonPatchMutation, jsonPatchOperationsOf, strictDecodingError, type JsonPatchMutationResult, type JsonPatchOperationsResult } from './json-patch.js';
export { applyMutation, type MutationInput, type MutationOutcome } from './mutate.js';
export { invocationKey, PolicyReinvokeContext } from './reinvocation.js';
export {
  dispatchMutatingPolicies,
  mutatingAdmissionPolicyPluginName,
  mutatingDenialError,
  policyErrorMessage,
  type MutatingDispatchDeps,
  type MutatingPolicyError,
  type MutatingPolicyHook,
} from './dispatcher.js';
export { MutatingAdmissionPolicyPlugin, type MutatingAdmissionPolicyPluginOptions } from './plugin.js';
export { mutationErrorTypeOf, newMutatingAdmissionPolicyMetrics, type MutatingAdmissionPolicyMetrics, type MutationErrorType } from './metrics.js';
