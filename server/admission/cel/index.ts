// createCelEnvironment(): the CelEnvironment of ./environment.ts on our engine (./engine/), declaring the
// variables kube-apiserver declares for admission expressions (staging/src/k8s.io/apiserver/pkg/admission/plugin/
// cel/compile.go): object, oldObject, request (typed as kubernetes.AdmissionRequest), params, namespaceObject,
// variables, authorizer. Compiled programs are cached by expression and options and shared across requests.
import type {
  CelEnvironment,
  CompileOptions,
  CompileResult,
  CompiledExpression,
  CostBudget,
  ConvertedObjects,
  EvalContext,
  EvalResult,
  TypeCheckResult,
  TypedDeclarations,
} from './environment.js';
import { celLimits } from './environment.js';
import { CelEngineEnv, type CompiledProgram } from './engine/env.js';
import type { LibraryRegistration, LibraryVariable, ObjectTypeDecl } from './engine/functions.js';
import { EvaluationAborted, type Activation, type EvalOutcome } from './engine/interpreter.js';
import type { AstValidatorName } from './engine/validators.js';
import { T, formatType, typeEquals, type CelType } from './engine/types.js';
import { fromJSONLazy } from './engine/json-values.js';
import { CelError, CelHostValue, CelMap, ObjectValue, fromJSON, toJSON, type CelResult, type CelValue } from './engine/values.js';

export type { LibraryRegistration } from './engine/functions.js';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const VARIABLES_TYPE = 'kubernetes.variables';
export const BUDGET_EXCEEDED_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run';
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

const GVK = T.object('kubernetes.GroupVersionKind');
const GVR = T.object('kubernetes.GroupVersionResource');
const USER_INFO = T.object('kubernetes.UserInfo');

/** kube-apiserver's buildRequestType: `request` is typed, so `request.nmae` fails to compile as it does there. */
const REQUEST_TYPES: ObjectTypeDecl[] = [
  { name: 'kubernetes.GroupVersionKind', fields: { group: T.string, version: T.string, kind: T.string } },
  { name: 'kubernetes.GroupVersionResource', fields: { group: T.string, version: T.string, resource: T.string } },
  {
    name: 'kubernetes.UserInfo',
    fields: { username: T.string, uid: T.string, groups: T.list(T.string), extra: T.map(T.string, T.list(T.string)) },
  },
  {
    name: 'kubernetes.AdmissionRequest',
    fields: {
      kind: GVK,
      resource: GVR,
      subResource: T.string,
      requestKind: GVK,
      requestResource: GVR,
      requestSubResource: T.string,
      name: T.string,
      namespace: T.string,
      operation: T.string,
      userInfo: USER_INFO,
      dryRun: T.bool,
      options: T.dyn,
    },
  },
];

const NAMESPACE_TYPE = 'kubernetes.Namespace';
const STRING_MAP = T.map(T.string, T.string);

/** kube's BuildNamespaceType: the type checker's `namespaceObject` (managedFields, ownerReferences left out by design). */
const NAMESPACE_TYPES: ObjectTypeDecl[] = [
  {
    name: 'kubernetes.NamespaceMetadata',
    fields: {
      name: T.string, generateName: T.string, namespace: T.string, labels: STRING_MAP, annotations: STRING_MAP, UID: T.string,
      creationTimestamp: T.timestamp, deletionGracePeriodSeconds: T.int, deletionTimestamp: T.timestamp, generation: T.int,
      resourceVersion: T.string, finalizers: T.list(T.string),
    },
  },
  { name: 'kubernetes.NamespaceSpec', fields: { finalizers: T.list(T.string) } },
  { name: 'kubernetes.NamespaceCondition', fields: { status: T.string, type: T.string, lastTransitionTime: T.timestamp, message: T.string, reason: T.string } },
  { name: 'kubernetes.NamespaceStatus', fields: { conditions: T.list(T.object('kubernetes.NamespaceCondition')), phase: T.string } },
  {
    name: NAMESPACE_TYPE,
    fields: { metadata: T.object('kubernetes.NamespaceMetadata'), spec: T.object('kubernetes.NamespaceSpec'), status: T.object('kubernetes.NamespaceStatus') },
  },
];

/** MutatingAdmissionPolicy's object types: `Object{spec: Object.spec{…}}` (open) and `JSONPatch{op, path, …}`. */
const MUTATION_TYPES: ObjectTypeDecl[] = [
  { name: 'Object', openNested: true },
  { name: 'JSONPatch', fields: { op: T.string, path: T.string, from: T.string, value: T.dyn } },
];

/** The CEL value behind a result handed out, so `variables.x` keeps its CEL type (uint, timestamp, Object{…}). */
const celValueOfResult = new WeakMap<object, CelValue>();

/**
 * The type names of the `Object…` and `JSONPatch` values of a mutation's result, by the JSON object each became:
 * kube checks them against the field path after evaluation (ObjectVal.CheckTypeNamesMatchFieldPathNames), which
 * the plain JSON result would no longer tell.
 */
const objectTypeNames = new WeakMap<object, string>();

/** The CEL object type a JSON value of a mutation's result was built as (`Object.spec`), if it was one. */
export function objectTypeNameOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? objectTypeNames.get(value) : undefined;
}

/** Walks a CEL value and the JSON toJSON made of it together, recording the object types. */
function recordObjectTypeNames(v: CelValue, json: unknown): void {
  if (json === null || typeof json !== 'object') return;
  if (v instanceof ObjectValue) {
    objectTypeNames.set(json, v.typeName);
    for (const [k, x] of v.fields) recordObjectTypeNames(x, (json as Record<string, unknown>)[k]);
  } else if (Array.isArray(v) && Array.isArray(json)) {
    v.forEach((x, i) => recordObjectTypeNames(x as CelValue, json[i]));
  } else if (v instanceof CelMap) {
    for (const [k, x] of v.entries()) if (typeof k === 'string') recordObjectTypeNames(x, (json as Record<string, unknown>)[k]);
  }
}

/**
 * JSON → CEL conversion once per object per evaluation context (shared by every expression evaluated with it), and
 * only of the fields expressions read (kube's lazy unstructured values). The conversions are kept on the context
 * rather than in a process-wide WeakMap keyed by object: with a new object per request, the WeakMap's entries
 * cost about as much as the evaluation (measured with the bench's new-Pod row).
 */
function convert(ctx: EvalContext, field: keyof ConvertedObjects, v: unknown): CelValue {
  if (v === null || v === undefined || typeof v !== 'object') return fromJSON(v);
  const memo = (ctx.celValues ??= {});
  const kept = memo[field];
  if (kept !== undefined && kept.source === v) return kept.value;
  const value = fromJSONLazy(v);
  memo[field] = { source: v, value };
  return value;
}

/** kube evaluates every admission expression with the per-call limit and without a cost for presence tests. */
const admissionEvalOptions = { costLimit: celLimits.perCallLimit, presenceTestHasCost: false } as const;

/** Results whose JSON form converts back to the same CEL value need no record of it (most rules are bool). */
const isSelfDescribing = (v: CelValue): boolean => v === null || typeof v === 'boolean' || typeof v === 'string';

function optionsKey(o: CompileOptions): string {
  return JSON.stringify([o.kind, o.hasParams, o.hasAuthorizer, o.variableNames, o.mutation ?? '', !!o.forWebhookMatchCondition]);
}

/**
 * What kube's patch accessors return from ReturnTypes(): ApplyConfigurationCondition exactly `Object`,
 * JSONPatchCondition exactly `list(JSONPatch)`. The compiler compares with IsExactType, so a `dyn` result (`object`,
 * a variable) or an `Object.spec` is refused as well.
 */
const MUTATION_RESULT_TYPES: Readonly<Record<NonNullable<CompileOptions['mutation']>, CelType>> = {
  ApplyConfiguration: T.object('Object'),
  JSONPatch: T.list(T.object('JSONPatch')),
};

/** cel-go's Type.String() (the null type prints as null_type). */
const celTypeString = (t: CelType): string => (t.kind === 'null' ? 'null_type' : formatType(t));

/** kube's CompileCELExpression return-type check: "must evaluate to Object but got dyn". */
function mutationResultError(mutation: NonNullable<CompileOptions['mutation']>, t: CelType): string | undefined {
  const want = MUTATION_RESULT_TYPES[mutation];
  return typeEquals(t, want) ? undefined : `must evaluate to ${celTypeString(want)} but got ${celTypeString(t)}`;
}

function resultTypeAccepted(kind: CompileOptions['kind'], t: CelType): boolean {
  // our object/params are JSON-derived dyn where kube often knows the schema type, so dyn is accepted
  if (kind === 'any' || t.kind === 'dyn') return true;
  if (kind === 'bool') return t.kind === 'bool';
  return t.kind === 'string' || t.kind === 'null';
}

class CompiledAdmissionExpression implements CompiledExpression {
  constructor(
    readonly expression: string,
    private readonly program: CompiledProgram,
    readonly opts: CompileOptions,
    readonly libraryVariables: readonly LibraryVariable[],
  ) {}

  private estimate: number | undefined;

  /** worked out when first asked: kube's CompileCELExpression estimates nothing, and admission never asks */
  get estimatedCost(): number {
    this.estimate ??= this.program.estimateCost({ presenceTestHasCost: false }).max;
    return this.estimate;
  }

  /**
   * The activation of the last finished evaluation, taken by the next one (undefined while an evaluation holds it,
   * so a nested evaluation of the same expression gets its own): one per evaluation was a sixth of what it allocated.
   */
  private spare: AdmissionActivation | undefined;

  evaluate(ctx: EvalContext, budget: CostBudget): EvalResult {
    let activation = this.spare;
    if (activation === undefined) activation = new AdmissionActivation(this);
    else this.spare = undefined;
    activation.ctx = ctx;
    let out: EvalOutcome;
    try {
      out = this.program.evaluate(activation, admissionEvalOptions);
    } finally {
      activation.release();
      this.spare = activation;
    }
    // kube evaluates with the per-call limit and then charges the request's budget with the actual cost
    budget.remaining -= out.cost;
    if (out.cancelled) return { ok: false, kind: out.cancelled.kind, error: out.cancelled.message };
    if (budget.remaining < 0) return { ok: false, kind: 'budget', error: BUDGET_EXCEEDED_MESSAGE };
    if (out.value instanceof CelError) return { ok: false, kind: 'runtime', error: out.value.message };
    const result = { ok: true as const, value: toJSON(out.value) };
    if (!isSelfDescribing(out.value)) celValueOfResult.set(result, out.value);
    if (this.opts.mutation) recordObjectTypeNames(out.value, result.value);
    return result;
  }

  variable(ctx: EvalContext, name: string): CelResult | undefined {
    if (!this.opts.variableNames.includes(name)) return undefined;
    if (!ctx.variable) return new CelError(`variable ${name} is not available`);
    const r = ctx.variable(name);
    if (r.ok) return celValueOfResult.get(r) ?? fromJSON(r.value);
    if (r.kind === 'cost' || r.kind === 'budget') throw new EvaluationAborted(r.kind, r.error);
    return new CelError(r.error);
  }
}

/** No context: what an activation at rest refers to instead of the last evaluation's (which it must not keep alive). */
const NO_CONTEXT: EvalContext = { object: null, oldObject: null, request: {} };

/** The variables of one evaluation of an admission expression, read from its context. */
class AdmissionActivation implements Activation {
  ctx: EvalContext = NO_CONTEXT;
  /** `variables`, made when first read in an evaluation */
  private variablesObject: ObjectValue | undefined = undefined;

  constructor(private readonly expression: CompiledAdmissionExpression) {}

  release(): void {
    this.ctx = NO_CONTEXT;
    this.variablesObject = undefined;
  }

  resolve(name: string): CelResult | undefined {
    const ctx = this.ctx;
    const opts = this.expression.opts;
    switch (name) {
      case 'object':
        return convert(ctx, 'object', ctx.object);
      case 'oldObject':
        return convert(ctx, 'oldObject', ctx.oldObject);
      case 'request':
        return convert(ctx, 'request', ctx.request);
      case 'params':
        return opts.hasParams ? convert(ctx, 'params', ctx.params ?? null) : undefined;
      case 'namespaceObject':
        return opts.forWebhookMatchCondition ? undefined : convert(ctx, 'namespaceObject', ctx.namespaceObject ?? null);
      case 'variables': {
        if (opts.forWebhookMatchCondition) return undefined;
        const expression = this.expression;
        this.variablesObject ??= new ObjectValue(VARIABLES_TYPE, new Map(), (field) => expression.variable(ctx, field));
        return this.variablesObject;
      }
    }
    const lv = this.expression.libraryVariables.find((v) => v.name === name);
    if (lv) return lv.value(ctx);
    if (name === 'authorizer' && opts.hasAuthorizer && ctx.authorizer) return new CelHostValue(AUTHORIZER_TYPE, ctx.authorizer);
    return undefined;
  }
}

class AdmissionCelEnvironment implements CelEnvironment {
  private readonly engine: CelEngineEnv;
  /** the engine of mutation expressions: the same libraries plus kube's hasPatchTypes ones (jsonpatch) */
  private readonly mutationEngine: CelEngineEnv;
  private readonly cache = new Map<string, CompileResult>();
  private readonly libraryVariables: readonly LibraryVariable[];

  constructor(libraries: readonly LibraryRegistration[], mutationLibraries: readonly LibraryRegistration[], validators: readonly AstValidatorName[]) {
    const base: LibraryRegistration[] = [{ name: 'kubernetes.admission', types: [{ name: AUTHORIZER_TYPE }], objectTypes: REQUEST_TYPES }, ...libraries];
    this.engine = new CelEngineEnv({ libraries: base, validators });
    this.mutationEngine = mutationLibraries.length > 0 ? new CelEngineEnv({ libraries: [...base, ...mutationLibraries], validators }) : this.engine;
    this.libraryVariables = this.engine.registry.variables;
  }

  private engineFor(opts: Pick<CompileOptions, 'mutation'>): CelEngineEnv {
    return opts.mutation ? this.mutationEngine : this.engine;
  }

  compile(expression: string, opts: CompileOptions): CompileResult {
    const key = `${optionsKey(opts)}\u0000${expression}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const result = this.compileUncached(expression, opts);
    // compiled programs are shared across requests; a bounded cache keeps a long-running server's memory flat
    // A compiled program holds ~40 KB (measured by the benchmark): 2,000 bounds the cache near 80 MB.
    if (this.cache.size >= 2_000) this.cache.clear();
    this.cache.set(key, result);
    return result;
  }

  /** untyped compilations' object type lists, one frozen list per option set, so the engine extends its registry once for each */
  private readonly untypedObjectTypes = new Map<string, readonly ObjectTypeDecl[]>();

  /** The declarations of one compilation: kube's createEnvForOpts (typed: the type checker's buildEnvSet). */
  private declarations(opts: CompileOptions, typed?: TypedDeclarations): { variables: Map<string, CelType>; objectTypes: readonly ObjectTypeDecl[]; libVars: LibraryVariable[] } {
    const object = typed?.object ?? T.dyn;
    const variables = new Map<string, CelType>([
      ['object', object],
      ['oldObject', object],
      ['request', T.object('kubernetes.AdmissionRequest')],
    ]);
    const objectTypes: ObjectTypeDecl[] = [];
    const hasParams = typed ? typed.params !== undefined : opts.hasParams;
    if (hasParams) variables.set('params', typed?.params ?? T.dyn);
    if (!opts.forWebhookMatchCondition) {
      // admission keeps namespaceObject dyn (unchanged behaviour); the type checker uses kube's BuildNamespaceType
      variables.set('namespaceObject', typed ? T.object(NAMESPACE_TYPE) : T.dyn);
      variables.set('variables', T.object(VARIABLES_TYPE));
      const fields = typed ? Object.fromEntries(typed.variables) : Object.fromEntries(opts.variableNames.map((n) => [n, T.dyn]));
      objectTypes.push({ name: VARIABLES_TYPE, fields });
      if (typed) objectTypes.push(...NAMESPACE_TYPES);
    }
    const libVars: LibraryVariable[] = [];
    for (const v of this.libraryVariables) {
      if (v.requires === 'authorizer' && !opts.hasAuthorizer) continue;
      if (v.requires === 'params' && !hasParams) continue;
      variables.set(v.name, v.type);
      libVars.push(v);
    }
    if (opts.hasAuthorizer && !variables.has('authorizer')) variables.set('authorizer', T.opaque(AUTHORIZER_TYPE));
    if (opts.mutation) objectTypes.push(...MUTATION_TYPES);
    if (typed) return { variables, objectTypes, libVars };
    // untyped, the list depends only on these options
    const key = `${opts.forWebhookMatchCondition ? 'w' : ''}${opts.mutation ? 'm' : ''}\u0000${opts.variableNames.join('\u0000')}`;
    let shared = this.untypedObjectTypes.get(key);
    if (!shared) {
      if (this.untypedObjectTypes.size >= 1_000) this.untypedObjectTypes.clear();
      this.untypedObjectTypes.set(key, (shared = Object.freeze(objectTypes)));
    }
    return { variables, objectTypes: shared, libVars };
  }

  typeCheck(expression: string, opts: Omit<CompileOptions, 'hasParams' | 'variableNames' | 'kind'>, types: TypedDeclarations): TypeCheckResult {
    const full: CompileOptions = { ...opts, kind: 'any', hasParams: types.params !== undefined, variableNames: [...types.variables.keys()] };
    const { variables, objectTypes } = this.declarations(full, types);
    const compiled = this.engineFor(opts).compile(expression, { variables, objectTypes });
    if (!compiled.ok) return { ok: false, message: compiled.message };
    return { ok: true, type: compiled.program.type };
  }

  private compileUncached(expression: string, opts: CompileOptions): CompileResult {
    const { variables, objectTypes, libVars } = this.declarations(opts);
    const compiled = this.engineFor(opts).compile(expression, { variables, objectTypes });
    if (!compiled.ok) {
      // kube's CompileCELExpression: checker and validator issues, then env.Program failures
      if (compiled.stage === 'program') return { ok: false, error: `program instantiation failed: ${compiled.message}`, internal: true };
      return { ok: false, error: `compilation failed: ${compiled.message}` };
    }
    const t = compiled.program.type;
    if (!resultTypeAccepted(opts.kind, t)) {
      return { ok: false, error: `must evaluate to ${opts.kind}` };
    }
    const mismatch = opts.mutation ? mutationResultError(opts.mutation, t) : undefined;
    if (mismatch !== undefined) return { ok: false, error: mismatch };
    const warnings: string[] = [];
    const program = new CompiledAdmissionExpression(expression, compiled.program, opts, libVars);
    return { ok: true, program, warnings };
  }
}

/**
 * `mutationLibraries` are declared for MutatingAdmissionPolicy mutation expressions only (kube's hasPatchTypes
 * environment adds library.JSONPatch there and nowhere else).
 */
export function createCelEnvironment(
  opts: { libraries?: LibraryRegistration[]; mutationLibraries?: LibraryRegistration[]; validators?: readonly AstValidatorName[] } = {},
): CelEnvironment {
  return new AdmissionCelEnvironment(opts.libraries ?? [], opts.mutationLibraries ?? [], opts.validators ?? []);
}
