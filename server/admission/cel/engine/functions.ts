// The function-registration API of the engine: the standard library (./stdlib.ts) and the Kubernetes libraries
// (../library/) declare their functions, types and variables through it, and the checker and interpreter read
// the same declarations, as cel-go's `cel.Function(name, cel.Overload(...), cel.MemberOverload(...))` does.
//
// Example (see engine/functions.test.ts for a running one):
//
//   export const greetLibrary: LibraryRegistration = {
//     name: 'greet',
//     types: [{ name: 'example.Greeting' }],
//     functions: [
//       { id: 'string_greet', name: 'greet', receiver: T.string, args: [], result: T.opaque('example.Greeting'),
//         impl: (s: string) => new Greeting(s),
//         cost: ([s]) => Math.ceil((s as string).length * 0.1) },
//       { id: 'greeting_text', name: 'text', receiver: T.opaque('example.Greeting'), args: [], result: T.string,
//         impl: (g: Greeting) => `hello ${g.who}` },
//     ],
//   };
//
// `'bob'.greet().text()` then type-checks to string and evaluates to "hello bob".
import type { EvalContext } from '../environment.js';
import { CelError, CelDuration, CelMap, CelOpaque, CelOptional, CelTimestamp, CelTypeValue, CelUint, ObjectValue, type CelResult, type CelValue } from './values.js';
import { T, type CelType } from './types.js';

export { T };
export type { CelType, TypeSpec } from './types.js';

/** An estimated size (string/bytes length, list/map element count), as checker/cost.go's SizeEstimate. */
export interface SizeEstimate {
  min: number;
  max: number;
}

/** An estimated cost range, as checker/cost.go's CostEstimate. */
export interface CostEstimate {
  min: number;
  max: number;
}

export interface CallEstimateInput {
  /** size of the receiver of a member call */
  receiver?: SizeEstimate;
  /** sizes of the arguments (excluding the receiver) */
  args: readonly SizeEstimate[];
  /** the arguments' values where they are literals (cel-go estimators read int literals: `slice(0, 2)`) */
  argLiterals?: readonly (CelValue | undefined)[];
}

export interface CallEstimate {
  cost: CostEstimate;
  /** size of the result when it is a string, bytes, list or map */
  resultSize?: SizeEstimate;
}

/**
 * One overload of a function. Member overloads (`receiver` set) are called as `recv.name(args)` and receive the
 * receiver as their first implementation argument; global overloads are called as `name(args)`.
 * Arguments are already evaluated and never errors: errors propagate before the call, as in cel-go's strict
 * functions.
 */
export interface OverloadDecl {
  /** unique across the environment, cel-go style: 'string_lower_ascii', 'list_sum_int' */
  id: string;
  name: string;
  receiver?: CelType;
  args: readonly CelType[];
  result: CelType;
  /**
   * Declared as a method so implementations may narrow their parameters (`impl(s: string)`): the checker and the
   * runtime dispatch guarantee the declared types. Return a CelError for a runtime error ("no such key", …).
   */
  impl(...args: CelValue[]): CelResult;
  /**
   * Runtime cost of one call (cel-go's ActualCostEstimator.CallCost), given the receiver-first arguments and the
   * result. Default: 1, cel-go's cost of a call without an estimate.
   */
  cost?: (args: readonly CelValue[], result: CelResult) => number;
  /** Static estimate (checker/cost.go's EstimateCallCost). Default: cost 1, unknown result size. */
  estimate?: (input: CallEstimateInput) => CallEstimate;
  /** only for dynamic dispatch: invisible to the checker (cel-go's runtime accepts `list[dyn(0u)]`) */
  runtimeOnly?: boolean;
}

/** An opaque type a library adds (`net.IP`, `Quantity`, `kubernetes.authorization.Authorizer`). */
export interface OpaqueTypeDecl {
  name: string;
  /** number of type parameters (0 for all Kubernetes types) */
  params?: number;
}

/**
 * A struct type usable in `Name{field: value}` literals. Without `fields` the type is open: any field name, dyn
 * values (what kube's ApplyConfiguration `Object{…}` needs, where the schema lives outside CEL).
 */
export interface ObjectTypeDecl {
  name: string;
  fields?: Readonly<Record<string, CelType>>;
  /** also accept `Name.a.b{…}` literals of open nested types (ApplyConfiguration's `Object.spec{…}`) */
  openNested?: boolean;
}

export type CallCostHook = NonNullable<LibraryRegistration['callCost']>;

/** A variable a library binds (e.g. `authorizer.requestResource`; qualified names are allowed). */
export interface LibraryVariable {
  name: string;
  type: CelType;
  /** declared only when the compile options enable it */
  requires?: 'authorizer' | 'params';
  value(ctx: EvalContext): CelValue;
}

export interface LibraryRegistration {
  name: string;
  types?: readonly OpaqueTypeDecl[];
  objectTypes?: readonly ObjectTypeDecl[];
  functions?: readonly OverloadDecl[];
  variables?: readonly LibraryVariable[];
  /**
   * Runtime cost for any call, including standard-library overloads (kube's library.CostEstimator overrides a few
   * of those). Return undefined to fall back to the overload's `cost` or cel-go's default.
   */
  callCost?: (fn: string, overloadId: string, args: readonly CelValue[], result: CelResult) => number | undefined;
  /**
   * The functions `callCost` can price (it returns undefined for every other): a call of another function skips the
   * hook. Without it the hook is asked about every call.
   */
  callCostFunctions?: readonly string[];
  /**
   * `callCost` prices only calls whose first argument is a library value (a CelOpaque, e.g. an IP compared with
   * `==`) and returns undefined for every other: a call whose first argument is another value skips the hook.
   */
  callCostOpaqueOnly?: boolean;
  /** static counterpart of `callCost` */
  estimateCallCost?: (fn: string, overloadId: string, input: CallEstimateInput) => CallEstimate | undefined;
  /** receiver macros the library adds to the parser (cel-go's cel.Macros), e.g. the lists extension's `sortBy` */
  macros?: readonly string[];
  /**
   * Functions whose constant regex argument is compiled when the program is built (cel-go's
   * interpreter.RegexOptimization): an invalid pattern fails program creation. `regexIndex` counts a member
   * call's receiver as argument 0.
   */
  regexArguments?: readonly { function: string; regexIndex: number }[];
}

/** Does a runtime value belong to a declared type? Used for dispatch on dyn arguments. */
export function valueHasType(v: CelValue, t: CelType): boolean {
  switch (t.kind) {
    case 'dyn':
    case 'param':
      return true;
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return v instanceof CelUint;
    case 'double':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null':
      return v === null;
    case 'timestamp':
      return v instanceof CelTimestamp;
    case 'duration':
      return v instanceof CelDuration;
    case 'list':
      return Array.isArray(v);
    case 'map':
      return v instanceof CelMap;
    case 'type':
      return v instanceof CelTypeValue;
    case 'opaque':
      if (t.name === 'optional_type') return v instanceof CelOptional;
      return v instanceof CelOpaque && v.typeName === t.name;
    case 'object':
      return v instanceof ObjectValue && v.typeName === t.name;
    case 'error':
      return false;
  }
}

/** All declarations of one environment: the standard library plus the registered libraries. */
export class FunctionRegistry {
  private readonly byName = new Map<string, OverloadDecl[]>();
  private readonly byId = new Map<string, OverloadDecl>();
  readonly opaqueTypes = new Map<string, OpaqueTypeDecl>();
  readonly objectTypes = new Map<string, ObjectTypeDecl>();
  readonly variables: LibraryVariable[] = [];
  readonly callCosts: NonNullable<LibraryRegistration['callCost']>[] = [];
  /** each callCost hook with the functions it is limited to (callCostFunctions), for callCostsFor */
  private readonly callCostScopes: { hook: CallCostHook; functions: ReadonlySet<string> | undefined; opaqueOnly: boolean }[] = [];
  private readonly callCostsByFunction = new Map<string, readonly CallCostHook[]>();
  readonly callEstimates: NonNullable<LibraryRegistration['estimateCallCost']>[] = [];
  readonly macros = new Set<string>();
  readonly regexArguments: { function: string; regexIndex: number }[] = [];

  constructor(libraries: readonly LibraryRegistration[] = []) {
    for (const lib of libraries) this.add(lib);
  }

  add(lib: LibraryRegistration): void {
    for (const t of lib.types ?? []) this.opaqueTypes.set(t.name, t);
    for (const t of lib.objectTypes ?? []) this.objectTypes.set(t.name, t);
    for (const o of lib.functions ?? []) {
      if (this.byId.has(o.id)) throw new Error(`CEL library ${lib.name}: duplicate overload id ${o.id}`);
      this.byId.set(o.id, o);
      const list = this.byName.get(o.name) ?? [];
      list.push(o);
      this.byName.set(o.name, list);
    }
    this.variables.push(...(lib.variables ?? []));
    if (lib.callCost) {
      this.callCosts.push(lib.callCost);
      this.callCostScopes.push({ hook: lib.callCost, functions: lib.callCostFunctions && new Set(lib.callCostFunctions), opaqueOnly: !!lib.callCostOpaqueOnly });
      this.callCostsByFunction.clear();
    }
    if (lib.estimateCallCost) this.callEstimates.push(lib.estimateCallCost);
    for (const m of lib.macros ?? []) this.macros.add(m);
    this.regexArguments.push(...(lib.regexArguments ?? []));
  }

  /**
   * The callCost hooks that may price a call of `fn`, in registration order (a subsequence of callCosts); with
   * `firstArgument` 'other', only those that may price a call whose first argument is not a library value.
   */
  callCostsFor(fn: string, firstArgument: 'opaque' | 'other' = 'opaque'): readonly CallCostHook[] {
    const key = firstArgument === 'opaque' ? fn : '\u0000' + fn;
    let hooks = this.callCostsByFunction.get(key);
    if (hooks === undefined) {
      hooks = this.callCostScopes
        .filter((s) => (s.functions === undefined || s.functions.has(fn)) && (firstArgument === 'opaque' || !s.opaqueOnly))
        .map((s) => s.hook);
      this.callCostsByFunction.set(key, hooks);
    }
    return hooks;
  }

  overloads(name: string): readonly OverloadDecl[] {
    return this.byName.get(name) ?? [];
  }

  overload(id: string): OverloadDecl | undefined {
    return this.byId.get(id);
  }

  /** A copy with one more library, sharing nothing mutable with this registry. */
  extend(lib: LibraryRegistration): FunctionRegistry {
    const r = new FunctionRegistry();
    for (const [k, v] of this.byName) r.byName.set(k, [...v]);
    for (const [k, v] of this.byId) r.byId.set(k, v);
    for (const [k, v] of this.opaqueTypes) r.opaqueTypes.set(k, v);
    for (const [k, v] of this.objectTypes) r.objectTypes.set(k, v);
    r.variables.push(...this.variables);
    r.callCosts.push(...this.callCosts);
    r.callCostScopes.push(...this.callCostScopes);
    r.callEstimates.push(...this.callEstimates);
    for (const m of this.macros) r.macros.add(m);
    r.regexArguments.push(...this.regexArguments);
    r.add(lib);
    return r;
  }

  /** The object type a struct literal or type name refers to, including open nested types. */
  objectType(name: string): ObjectTypeDecl | undefined {
    const d = this.objectTypes.get(name);
    if (d) return d;
    for (let i = name.lastIndexOf('.'); i > 0; i = name.lastIndexOf('.', i - 1)) {
      const parent = this.objectTypes.get(name.slice(0, i));
      if (parent?.openNested) return { name };
    }
    return undefined;
  }

  hasFunction(name: string): boolean {
    return this.byName.has(name);
  }
}

/** Shorthand for implementations: a CEL runtime error value. */
export const celError = (message: string): CelError => new CelError(message);
