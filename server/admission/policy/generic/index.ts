// What ValidatingAdmissionPolicy and MutatingAdmissionPolicy share (kube's admission/plugin/policy/generic).
export * from './types.js';
export { buildPolicyHooks, gvkString, parseGroupVersion, PolicyHookSource, type PolicyHookOptions } from './hooks.js';
export { bindingMatches, definitionMatches, matchesMatchResources, matchesResourceRules, type PolicyMatch, type PolicyMatchContext, type PolicyMatchError } from './matching.js';
export { collectParams, paramsNotFoundMessage, type CollectedParams } from './params.js';
export { admissionRequestFor, namespaceNameFor, namespaceObjectFor } from './request.js';
export {
  aggregateMessage,
  celTypeName,
  compileSlot,
  compileVariables,
  evaluatePass,
  maxEvaluatedMessageExpressionSizeBytes,
  outOfBudgetMessage,
  runtimeCostBudget,
  runtimeCostBudgetMatchConditions,
  type Activation,
  type CompiledSlot,
  type CompiledVariable,
  type EvaluationPass,
  type ExpressionEvaluation,
  type PolicyCompileBase,
} from './expressions.js';
export { evaluateMatchConditions, type CompiledMatchCondition, type MatchConditionObserver, type MatchConditionsResult } from './match-conditions.js';
export { forbiddenFor, isPolicyConfigurationResource, policyConfigurationResources, policyScopeOf, RequestNamespace, waitUntilSynced, type PolicyScope } from './scope.js';
export { storeParamLookup } from './store-params.js';
export { requestAuthorizer } from './authorizer.js';
export { MutatingVersionedObjects, VersionedObjectsByKind, type VersionedObjects, type VersionedObjectsResult } from './versioned-attributes.js';
export type { PolicyPluginOptions } from './plugin-options.js';
export { PolicyHookSet } from './policy-hook-set.js';
