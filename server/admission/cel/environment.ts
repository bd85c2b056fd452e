// The CEL facade admission plugins program against (ValidatingAdmissionPolicy, MutatingAdmissionPolicy, webhook
// matchConditions): compile once (cached by expression and options), evaluate per request against a shared cost
// budget. The engine behind it lives in ./engine/ and the Kubernetes libraries in ./library/.
import type { KubeObject } from '../../api/types.js';
import type { CelType } from './engine/types.js';
import type { CelValue } from './engine/values.js';

/** kube-apiserver's limits (staging/src/k8s.io/apiserver/pkg/apis/cel/config.go). */
export const celLimits = {
  /** PerCallLimit: the runtime cost one expression may spend */
  perCallLimit: 1_000_000,
  /** RuntimeCELCostBudget: what all expressions of one admission request may spend together */
  runtimeCostBudget: 10_000_000,
  /** MaxRequestSizeBytes-derived estimate limit used at compile time for static cost checks */
  estimatedCostLimit: 1_000_000_000,
} as const;

export type ExpressionKind =
  /** validations[].expression, matchConditions[].expression: must be bool */
  | 'bool'
  /** messageExpression, auditAnnotations[].valueExpression: must be string */
  | 'string'
  /** variables[].expression and mutations: any type */
  | 'any';

export interface CompileOptions {
  kind: ExpressionKind;
  /** `params` is declared (policy has paramKind) */
  hasParams: boolean;
  /** `authorizer` and `authorizer.requestResource` are declared */
  hasAuthorizer: boolean;
  /** names usable as `variables.<name>` (earlier variables of the same policy) */
  variableNames: readonly string[];
  /** mutation expressions may build `Object{…}` (ApplyConfiguration) or `JSONPatch{…}` values */
  mutation?: 'ApplyConfiguration' | 'JSONPatch';
  /** webhook matchConditions do not declare `namespaceObject` or `variables` */
  forWebhookMatchCondition?: boolean;
}

export type CompileResult =
  | { ok: true; program: CompiledExpression; warnings: string[] }
  /**
   * error reads as kube-apiserver prints it: "compilation failed: ERROR: <input>:1:5: …". `internal` marks kube's
   * ErrorTypeInternal ("program instantiation failed: …"), which write validation reports as an InternalError field
   * error rather than Invalid (convertCELErrorToValidationError).
   */
  | { ok: false; error: string; internal?: true };

/** What an `authorizer` check asks (authorizer.group(g).resource(r).namespace(n).name(x).check(verb)). */
export interface AuthorizerCheck {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  verb: string;
  /** set for authorizer.path(p).check(verb) */
  path?: string;
}

export interface AuthorizerDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason: string;
  error?: string;
}

export interface CelAuthorizer {
  check(c: AuthorizerCheck): AuthorizerDecision;
  /** authorizer.requestResource: the request's resource */
  requestResource: { group: string; version: string; resource: string; subresource: string; namespace: string; name: string };
}

/** The admission request's variables, as plain JSON (converted to CEL values by the engine). */
export interface EvalContext {
  object: KubeObject | null;
  oldObject: KubeObject | null;
  /** the AdmissionRequest fields (kind, resource, subResource, requestKind, …, userInfo, operation, options, dryRun) */
  request: Record<string, unknown>;
  params?: unknown;
  namespaceObject?: KubeObject | null;
  authorizer?: CelAuthorizer;
  /** variables.<name>: evaluated lazily and at most once per request by the caller's memo */
  variable?: (name: string) => EvalResult;
  /**
   * Filled by the CEL facade, left unset by callers: this context's objects converted to CEL values, so every
   * expression evaluated with the context shares one (lazy) conversion of each.
   */
  celValues?: ConvertedObjects;
}

/** One context's converted objects, by the field they came from, each with its source object (it may be replaced). */
export type ConvertedObjects = { [F in 'object' | 'oldObject' | 'request' | 'params' | 'namespaceObject']?: { readonly source: object; readonly value: CelValue } };

/** Shared across every expression of one admission request. */
export interface CostBudget {
  remaining: number;
}

export type EvalResult =
  | { ok: true; value: unknown }
  /**
   * kind 'cost': "operation cancelled: actual cost limit exceeded" (per call) or
   * "validation failed due to running out of cost budget, no further validation rules will be run" (budget);
   * kind 'runtime': the evaluation error, e.g. "no such key: foo".
   */
  | { ok: false; kind: 'cost' | 'budget' | 'runtime'; error: string };

export interface CompiledExpression {
  readonly expression: string;
  /**
   * the static cost estimate, worked out when asked (kube's admission compiler, CompileCELExpression, estimates no
   * cost: only CRD validation rules are held to an estimated limit at write time)
   */
  readonly estimatedCost: number;
  evaluate(ctx: EvalContext, budget: CostBudget): EvalResult;
}

/**
 * Declarations for type checking only (kube's typeCheckingCompiler): `object`/`oldObject` and `params` typed from
 * schemas instead of dyn, `variables.<name>` typed by what each variable's expression checked to.
 */
export interface TypedDeclarations {
  object: CelType;
  /** the paramKind's type; undefined declares no `params` at all (kube: hasParams = paramDeclType != nil) */
  params?: CelType;
  /** the policy's variables, in order, with their checked types */
  variables: ReadonlyMap<string, CelType>;
}

export type TypeCheckResult =
  | { ok: true; type: CelType }
  /** message reads as cel-go's issues.String(): "ERROR: <input>:1:5: …\n | expr\n | ....^" */
  | { ok: false; message: string };

export interface CelEnvironment {
  compile(expression: string, opts: CompileOptions): CompileResult;
  /** Parse and check against typed declarations, without building a program or enforcing a result type. */
  typeCheck(expression: string, opts: Omit<CompileOptions, 'hasParams' | 'variableNames' | 'kind'>, types: TypedDeclarations): TypeCheckResult;
}
