// One CEL environment: the standard library plus registered libraries, declared variables and a container,
// turning expression text into a checked (or parse-only) program, as cel-go's cel.Env.Compile/Parse + Program.
import { formatIssues, type Expr, type Issue, type ParsedExpr } from './ast.js';
import { check, type CheckedExpr } from './checker.js';
import { estimateCost, type CostEstimatorOptions } from './cost.js';
import { FunctionRegistry, type LibraryRegistration, type ObjectTypeDecl } from './functions.js';
import { compileClosures, evaluateClosures, type ClosureProgram } from './compile-closures.js';
import { evaluate, type Activation, type EvalOptions, type EvalOutcome, type Program } from './interpreter.js';
import { parse } from './parser.js';
import { compileRegex, standardLibrary } from './stdlib.js';
import { validateAst, type AstValidatorName } from './validators.js';
import { T, type CelType } from './types.js';
import { CelError } from './values.js';

export interface EnvOptions {
  libraries?: readonly LibraryRegistration[];
  container?: string;
  /** cel-go AST validators run after a successful check (kube: KUBERNETES_VALIDATORS) */
  validators?: readonly AstValidatorName[];
}

export interface DeclarationSet {
  variables: ReadonlyMap<string, CelType>;
  /** object types visible only to this compilation (e.g. the `variables` object of one policy) */
  objectTypes?: readonly ObjectTypeDecl[];
}

export type CompileOutcome =
  | { ok: true; program: CompiledProgram }
  /**
   * stage 'program': the expression checked but building the program failed (cel-go's env.Program error, e.g. a
   * constant regex of `find` that does not compile); kube reports it as "program instantiation failed: …".
   */
  | { ok: false; issues: readonly Issue[]; message: string; stage?: 'program' };

export class CompiledProgram {
  constructor(
    readonly program: Program,
    readonly type: CelType,
    private readonly container: string | undefined,
  ) {}

  /**
   * The options of the last evaluation with the container added: callers evaluate with the same options each time,
   * and copying them per evaluation showed in profiles. Every option is listed (a new one fails to compile here).
   */
  private lastOptions: { [K in keyof Required<EvalOptions>]: EvalOptions[K] } | undefined;

  evaluate(activation: Activation, opts: Omit<EvalOptions, 'container'> = {}): EvalOutcome {
    let full = this.lastOptions;
    if (full === undefined || full.costLimit !== opts.costLimit || full.presenceTestHasCost !== opts.presenceTestHasCost) {
      this.lastOptions = full = { costLimit: opts.costLimit, presenceTestHasCost: opts.presenceTestHasCost, container: this.container };
    }
    const closures = this.closures === undefined ? this.compileClosures() : this.closures;
    return closures === null ? evaluate(this.program, activation, full) : evaluateClosures(closures, activation, full);
  }

  /**
   * The program compiled to closures on its first evaluation (a compile that is never evaluated pays nothing);
   * null when it is evaluated by the interpreter: unchecked, or too deep to compile.
   */
  private closures: ClosureProgram | null | undefined;

  private compileClosures(): ClosureProgram | null {
    try {
      this.closures = compileClosures(this.program, this.container) ?? null;
    } catch (e) {
      // a tree too deep for the compiler's recursion is left to the interpreter, which reports it per evaluation
      if (!(e instanceof RangeError)) throw e;
      this.closures = null;
    }
    return this.closures;
  }

  estimateCost(opts: CostEstimatorOptions = {}): { min: number; max: number } {
    return estimateCost(this.program, opts);
  }
}

export class CelEngineEnv {
  readonly registry: FunctionRegistry;
  readonly container: string | undefined;
  private readonly validators: readonly AstValidatorName[];

  constructor(opts: EnvOptions = {}) {
    this.registry = new FunctionRegistry([standardLibrary, ...(opts.libraries ?? [])]);
    this.container = opts.container;
    this.validators = opts.validators ?? [];
  }

  parse(text: string): { ok: true; parsed: ParsedExpr } | { ok: false; issues: readonly Issue[]; message: string } {
    const r = parse(text, { macros: this.registry.macros });
    if (!r.ok) return { ok: false, issues: r.issues, message: formatIssues(r.source, r.issues) };
    return r;
  }

  /** Parse and type-check; the program dispatches on the checked overloads. */
  /** registries extended with a frozen objectTypes list, by that list */
  private readonly extended = new WeakMap<readonly ObjectTypeDecl[], FunctionRegistry>();

  compile(text: string, decls: DeclarationSet): CompileOutcome {
    const p = this.parse(text);
    if (!p.ok) return p;
    let registry = this.registry;
    if (decls.objectTypes?.length) {
      // Extending copies the whole function registry: callers that pass the same (frozen) list again share one copy.
      registry = this.extended.get(decls.objectTypes) ?? this.registry.extend({ name: 'compilation', objectTypes: decls.objectTypes });
      if (Object.isFrozen(decls.objectTypes)) this.extended.set(decls.objectTypes, registry);
    }
    const c = check(p.parsed, { registry, variables: decls.variables, container: this.container });
    if (!c.ok) return { ok: false, issues: c.issues, message: formatIssues(p.parsed.source, c.issues) };
    const invalid = validateAst(c.checked, this.validators);
    if (invalid.length) return { ok: false, issues: invalid, message: formatIssues(p.parsed.source, invalid) };
    const regexError = constantRegexError(p.parsed.expr, registry);
    if (regexError !== undefined) return { ok: false, issues: [], message: regexError, stage: 'program' };
    return { ok: true, program: this.programOf(p.parsed, registry, c.checked) };
  }

  /** Parse only (cel-go's env.Parse + Program): every call is dispatched dynamically. */
  compileUnchecked(text: string): CompileOutcome {
    const p = this.parse(text);
    if (!p.ok) return p;
    return { ok: true, program: this.programOf(p.parsed, this.registry, undefined) };
  }

  private programOf(parsed: ParsedExpr, registry: FunctionRegistry, checked: CheckedExpr | undefined): CompiledProgram {
    const program: Program = checked ? { parsed, checked, registry } : { parsed, registry };
    return new CompiledProgram(program, checked?.type ?? T.dyn, this.container);
  }
}

/**
 * cel-go's CompileRegexConstants decorator (enabled by kube's OptOptimize and the Regex library's OptimizeRegex):
 * a call whose regex argument is a string literal compiles it when the program is built, and fails there.
 */
function constantRegexError(root: Expr, registry: FunctionRegistry): string | undefined {
  const stdlibMatches = { function: 'matches', regexIndex: 1 };
  const rules = [stdlibMatches, ...registry.regexArguments];
  const visit = (e: Expr): string | undefined => {
    if (e.kind === 'call') {
      const args = e.target ? [e.target, ...e.args] : e.args;
      for (const r of rules) {
        const a = r.function === e.fn ? args[r.regexIndex] : undefined;
        if (a?.kind === 'const' && typeof a.value === 'string') {
          const re = compileRegex(a.value);
          if (re instanceof CelError) return re.message;
        }
      }
    }
    for (const c of children(e)) {
      const m = visit(c);
      if (m !== undefined) return m;
    }
    return undefined;
  };
  return visit(root);
}

function children(e: Expr): Expr[] {
  switch (e.kind) {
    case 'select':
      return [e.operand];
    case 'call':
      return e.target ? [e.target, ...e.args] : [...e.args];
    case 'list':
      return [...e.elems];
    case 'map':
      return e.entries.flatMap((x) => [x.key, x.value]);
    case 'struct':
      return e.fields.map((f) => f.value);
    case 'comprehension':
      return [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result];
    default:
      return [];
  }
}
