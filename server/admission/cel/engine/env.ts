// One CEL environment: the standard library plus registered libraries, declared variables and a container,
// turning expression text into a checked (or parse-only) program, as cel-go's cel.Env.Compile/Parse + Program.
import { formatIssues, type Issue, type ParsedExpr } from './ast.js';
import { check, type CheckedExpr } from './checker.js';
import { estimateCost, type CostEstimatorOptions } from './cost.js';
import { FunctionRegistry, type LibraryRegistration, type ObjectTypeDecl } from './functions.js';
import { evaluate, type Activation, type EvalOptions, type EvalOutcome, type Program } from './interpreter.js';
import { parse } from './parser.js';
import { standardLibrary } from './stdlib.js';
import { T, type CelType } from './types.js';

export interface EnvOptions {
  libraries?: readonly LibraryRegistration[];
  container?: string;
}

export interface DeclarationSet {
  variables: ReadonlyMap<string, CelType>;
  /** object types visible only to this compilation (e.g. the `variables` object of one policy) */
  objectTypes?: readonly ObjectTypeDecl[];
}

export type CompileOutcome =
  | { ok: true; program: CompiledProgram }
  | { ok: false; issues: readonly Issue[]; message: string };

export class CompiledProgram {
  constructor(
    readonly program: Program,
    readonly type: CelType,
    private readonly container: string | undefined,
  ) {}

  evaluate(activation: Activation, opts: Omit<EvalOptions, 'container'> = {}): EvalOutcome {
    return evaluate(this.program, activation, { ...opts, container: this.container });
  }

  estimateCost(opts: CostEstimatorOptions = {}): { min: number; max: number } {
    return estimateCost(this.program, opts);
  }
}

export class CelEngineEnv {
  readonly registry: FunctionRegistry;
  readonly container: string | undefined;

  constructor(opts: EnvOptions = {}) {
    this.registry = new FunctionRegistry([standardLibrary, ...(opts.libraries ?? [])]);
    this.container = opts.container;
  }

  parse(text: string): { ok: true; parsed: ParsedExpr } | { ok: false; issues: readonly Issue[]; message: string } {
    const r = parse(text);
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
