// The CEL environment of x-kubernetes-validations: the engine with kube's libraries (the same base environment
// admission uses) and the variables `self` and `oldSelf` typed by the rule's schema node. `optionalOldSelf` rules see
// `oldSelf` as optional_type(T) (kube's oldSelf environment for CRD validation ratcheting).
import { CelEngineEnv, type CompiledProgram } from '../../admission/cel/engine/env.js';
import { T, type CelType } from '../../admission/cel/engine/types.js';
import { kubernetesLibraries } from '../../admission/cel/library/index.js';
import { KUBERNETES_VALIDATORS } from '../../admission/cel/engine/validators.js';

export const SELF = 'self';
export const OLD_SELF = 'oldSelf';

let shared: CelEngineEnv | undefined;
function engine(): CelEngineEnv {
  shared ??= new CelEngineEnv({ libraries: kubernetesLibraries, validators: KUBERNETES_VALIDATORS });
  return shared;
}

export type RuleCompileResult =
  | { ok: true; program: CompiledProgram; type: CelType; usesOldSelf: boolean }
  /** the issues as cel-go prints them: "ERROR: <input>:1:5: …" */
  | { ok: false; issues: string };

export function compileRuleExpression(expression: string, selfType: CelType, opts: { optionalOldSelf: boolean }): RuleCompileResult {
  const variables = new Map<string, CelType>([
    [SELF, selfType],
    [OLD_SELF, opts.optionalOldSelf ? T.optional(selfType) : selfType],
  ]);
  const out = engine().compile(expression, { variables });
  // apiextensions' compileRule: "program instantiation failed: …" when env.Program fails (a constant bad regex)
  if (!out.ok) return { ok: false, issues: out.stage === 'program' ? `program instantiation failed: ${out.message}` : out.message };
  const checked = out.program.program.checked;
  // kube: a rule whose checked references include oldSelf is a transition rule
  const usesOldSelf = checked ? [...checked.varRefs.values()].includes(OLD_SELF) : /\boldSelf\b/.test(expression);
  return { ok: true, program: out.program, type: out.program.type, usesOldSelf };
}
