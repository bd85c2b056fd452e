// The type checker (cel-go checker/checker.go): resolves identifiers against declared variables, picks function
// overloads by argument types (with type parameters unified across the whole expression), and reports cel-go's
// messages ("undeclared reference to 'foo' (in container '')", "found no matching overload for '_+_' applied
// to '(int, string)'"). JSON-derived variables are `dyn`, which is assignable both ways, as in cel-go.
import type { Expr, Issue, ParsedExpr } from './ast.js';
import type { FunctionRegistry, OverloadDecl } from './functions.js';
import { T, formatType, isOptionalType, typeEquals, type CelType, type ObjectFields } from './types.js';
import { CelUint, CelTimestamp, CelDuration, type CelValue } from './values.js';

export interface CheckEnv {
  registry: FunctionRegistry;
  /** declared variables; names may be qualified ('authorizer.requestResource') */
  variables: ReadonlyMap<string, CelType>;
  container?: string;
}

export interface CheckedExpr {
  readonly parsed: ParsedExpr;
  readonly type: CelType;
  readonly types: ReadonlyMap<number, CelType>;
  /** ident and select nodes that name a declared variable (the select chain `a.b` may name variable 'a.b') */
  readonly varRefs: ReadonlyMap<number, string>;
  /** ident/select nodes that name a type (`int`, `google.protobuf.Timestamp`) */
  readonly typeRefs: ReadonlyMap<number, string>;
  /** call nodes: the overload ids that may apply */
  readonly overloads: ReadonlyMap<number, readonly string[]>;
  /** member-style calls that name a qualified global function (`optional.none()`), and struct type names */
  readonly fnNames: ReadonlyMap<number, string>;
}

export type CheckResult = { ok: true; checked: CheckedExpr } | { ok: false; issues: Issue[] };

/** Type names usable as identifiers, with the type they denote. */
const BUILTIN_TYPE_NAMES: Record<string, CelType> = {
  int: T.int,
  uint: T.uint,
  double: T.double,
  bool: T.bool,
  string: T.string,
  bytes: T.bytes,
  null_type: T.null,
  list: T.list(T.dyn),
  map: T.map(T.dyn, T.dyn),
  type: T.type(),
  dyn: T.dyn,
  'google.protobuf.Timestamp': T.timestamp,
  'google.protobuf.Duration': T.duration,
  optional_type: T.optional(T.dyn),
};

export function typeNameCandidates(name: string, container = ''): string[] {
  if (name.startsWith('.')) return [name.slice(1)];
  const out: string[] = [];
  let c = container;
  while (c) {
    out.push(`${c}.${name}`);
    const i = c.lastIndexOf('.');
    c = i < 0 ? '' : c.slice(0, i);
  }
  out.push(name);
  return out;
}

export function check(parsed: ParsedExpr, env: CheckEnv): CheckResult {
  const c = new Checker(parsed, env);
  const t = c.check(parsed.expr);
  if (c.issues.length) return { ok: false, issues: c.issues };
  const types = new Map<number, CelType>();
  for (const [id, ty] of c.types) types.set(id, c.substitute(ty, true));
  return {
    ok: true,
    checked: {
      parsed,
      type: c.substitute(t, true),
      types,
      varRefs: c.varRefs,
      typeRefs: c.typeRefs,
      overloads: c.overloads,
      fnNames: c.fnNames,
    },
  };
}

function literalType(v: CelValue): CelType {
  if (v === null) return T.null;
  switch (typeof v) {
    case 'bigint':
      return T.int;
    case 'number':
      return T.double;
    case 'boolean':
      return T.bool;
    case 'string':
      return T.string;
  }
  if (v instanceof CelUint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (v instanceof CelTimestamp) return T.timestamp;
  if (v instanceof CelDuration) return T.duration;
  return T.dyn;
}

const isDynOrError = (t: CelType) => t.kind === 'dyn' || t.kind === 'error';

function fieldOf(declared: ObjectFields | Readonly<Record<string, CelType>>, name: string): CelType | undefined {
  if (isObjectFields(declared)) return declared.field(name);
  return Object.hasOwn(declared, name) ? declared[name] : undefined;
}

function isObjectFields(d: ObjectFields | Readonly<Record<string, CelType>>): d is ObjectFields {
  return typeof d.field === 'function';
}

class Checker {
  readonly issues: Issue[] = [];
  readonly types = new Map<number, CelType>();
  readonly varRefs = new Map<number, string>();
  readonly typeRefs = new Map<number, string>();
  readonly overloads = new Map<number, string[]>();
  readonly fnNames = new Map<number, string>();
  private mapping = new Map<string, CelType>();
  private fresh = 0;
  private scopes: Map<string, CelType>[] = [];

  constructor(
    private readonly parsed: ParsedExpr,
    private readonly env: CheckEnv,
  ) {}

  private offset(e: Expr | number): number {
    return this.parsed.positions.get(typeof e === 'number' ? e : e.id) ?? -1;
  }

  private error(e: Expr | number, message: string): CelType {
    this.issues.push({ offset: this.offset(e), message });
    return T.error;
  }

  private set(e: Expr, t: CelType): CelType {
    this.types.set(e.id, t);
    return t;
  }

  // ---- type parameters

  private newTypeVar(): CelType {
    return T.param(`_var${this.fresh++}`);
  }

  substitute(t: CelType, paramToDyn: boolean, m: Map<string, CelType> = this.mapping): CelType {
    switch (t.kind) {
      case 'param': {
        const b = m.get(t.name);
        if (b) return this.substitute(b, paramToDyn, m);
        return paramToDyn ? T.dyn : t;
      }
      case 'list':
        return T.list(this.substitute(t.elem, paramToDyn, m));
      case 'map':
        return T.map(this.substitute(t.key, paramToDyn, m), this.substitute(t.value, paramToDyn, m));
      case 'type':
        return t.param ? T.type(this.substitute(t.param, paramToDyn, m)) : t;
      case 'opaque':
        return t.params.length ? T.opaque(t.name, ...t.params.map((p) => this.substitute(p, paramToDyn, m))) : t;
      default:
        return t;
    }
  }

  private occurs(name: string, t: CelType, m: Map<string, CelType>): boolean {
    const s = this.substitute(t, false, m);
    switch (s.kind) {
      case 'param':
        return s.name === name;
      case 'list':
        return this.occurs(name, s.elem, m);
      case 'map':
        return this.occurs(name, s.key, m) || this.occurs(name, s.value, m);
      case 'type':
        return !!s.param && this.occurs(name, s.param, m);
      case 'opaque':
        return s.params.some((p) => this.occurs(name, p, m));
      default:
        return false;
    }
  }

  /** Is a value of type `actual` acceptable where `expected` is declared? Binds type parameters in `m`. */
  private assignableIn(m: Map<string, CelType>, expected: CelType, actual: CelType): boolean {
    if (expected.kind === 'param' && m.has(expected.name)) return this.assignableIn(m, m.get(expected.name)!, actual);
    if (actual.kind === 'param' && m.has(actual.name)) return this.assignableIn(m, expected, m.get(actual.name)!);
    if (expected.kind === 'param') {
      if (actual.kind === 'param' && actual.name === expected.name) return true;
      if (this.occurs(expected.name, actual, m)) return false;
      m.set(expected.name, actual);
      return true;
    }
    if (actual.kind === 'param') {
      if (this.occurs(actual.name, expected, m)) return false;
      m.set(actual.name, expected);
      return true;
    }
    if (isDynOrError(expected) || isDynOrError(actual)) return true;
    // null is assignable to message-like types (cel-go's legacy nullable types)
    if (actual.kind === 'null') return ['null', 'object', 'opaque', 'timestamp', 'duration'].includes(expected.kind);
    if (expected.kind !== actual.kind) return false;
    switch (expected.kind) {
      case 'list':
        return this.assignableIn(m, expected.elem, (actual as typeof expected).elem);
      case 'map': {
        const a = actual as typeof expected;
        return this.assignableIn(m, expected.key, a.key) && this.assignableIn(m, expected.value, a.value);
      }
      case 'type':
        // type values compare across parameterisations: type([1]) == type(['a']) checks in cel-go
        return true;
      case 'opaque': {
        const a = actual as typeof expected;
        if (a.name !== expected.name || a.params.length !== expected.params.length) return false;
        return expected.params.every((p, i) => this.assignableIn(m, p, a.params[i]!));
      }
      case 'object':
        return expected.name === (actual as typeof expected).name;
      default:
        return true;
    }
  }

  private isAssignable(expected: CelType, actual: CelType): boolean {
    const m = new Map(this.mapping);
    if (!this.assignableIn(m, expected, actual)) return false;
    this.mapping = m;
    return true;
  }

  /** cel-go's isEqualOrLessSpecific: dyn and type parameters are less specific than anything */
  private lessSpecific(a: CelType, b: CelType): boolean {
    a = this.substitute(a, false);
    b = this.substitute(b, false);
    if (a.kind === 'dyn' || a.kind === 'param') return true;
    if (b.kind === 'dyn' || b.kind === 'param') return false;
    if (a.kind !== b.kind) return false;
    switch (a.kind) {
      case 'list':
        return this.lessSpecific(a.elem, (b as typeof a).elem);
      case 'map':
        return this.lessSpecific(a.key, (b as typeof a).key) && this.lessSpecific(a.value, (b as typeof a).value);
      case 'opaque': {
        const bo = b as typeof a;
        return a.name === bo.name && a.params.length === bo.params.length && a.params.every((p, i) => this.lessSpecific(p, bo.params[i]!));
      }
      case 'type':
        return true;
      default:
        return typeEquals(a, b);
    }
  }

  /** cel-go's joinTypes for aggregate literals: the most general type, or dyn when they do not agree */
  private join(prev: CelType | undefined, cur: CelType): CelType {
    if (!prev) return cur;
    if (this.isAssignable(prev, cur)) {
      if (this.substitute(cur, false).kind === 'null') return prev;
      return this.lessSpecific(prev, cur) ? prev : cur;
    }
    return T.dyn;
  }

  // ---- expressions

  private lookupVariable(name: string): { name: string; type: CelType } | undefined {
    if (!name.startsWith('.')) {
      for (let i = this.scopes.length - 1; i >= 0; i--) {
        const t = this.scopes[i]!.get(name);
        if (t) return { name, type: t };
      }
    }
    for (const cand of typeNameCandidates(name, this.env.container)) {
      const t = this.env.variables.get(cand);
      if (t) return { name: cand, type: t };
    }
    return undefined;
  }

  private lookupTypeName(name: string): { name: string; type: CelType } | undefined {
    for (const cand of typeNameCandidates(name, this.env.container)) {
      const b = BUILTIN_TYPE_NAMES[cand];
      if (b) return { name: cand, type: b };
      if (this.env.registry.opaqueTypes.has(cand)) {
        const d = this.env.registry.opaqueTypes.get(cand)!;
        return { name: cand, type: T.opaque(cand, ...Array.from({ length: d.params ?? 0 }, () => T.dyn)) };
      }
      if (this.env.registry.objectTypes.has(cand)) return { name: cand, type: T.object(cand) };
    }
    return undefined;
  }

  private qualifiedName(e: Expr): string | undefined {
    if (e.kind === 'ident') return e.name;
    if (e.kind === 'select' && !e.testOnly) {
      const p = this.qualifiedName(e.operand);
      return p === undefined ? undefined : `${p}.${e.field}`;
    }
    return undefined;
  }

  check(e: Expr): CelType {
    switch (e.kind) {
      case 'const':
        return this.set(e, literalType(e.value));
      case 'ident': {
        const v = this.lookupVariable(e.name);
        if (v) {
          this.varRefs.set(e.id, v.name);
          return this.set(e, v.type);
        }
        const t = this.lookupTypeName(e.name);
        if (t) {
          this.typeRefs.set(e.id, t.name);
          return this.set(e, T.type(t.type));
        }
        return this.set(e, this.error(e, `undeclared reference to '${e.name}' (in container '${this.env.container ?? ''}')`));
      }
      case 'select': {
        if (!e.testOnly) {
          const q = this.qualifiedName(e);
          if (q !== undefined && q.includes('.') && !this.shadowedRoot(q)) {
            const v = this.lookupVariable(q);
            if (v) {
              this.varRefs.set(e.id, v.name);
              return this.set(e, v.type);
            }
            const t = this.lookupTypeName(q);
            if (t && !this.lookupVariable(q.split('.')[0]!)) {
              this.typeRefs.set(e.id, t.name);
              return this.set(e, T.type(t.type));
            }
          }
        }
        let r = this.selectField(e, e.operand, e.field, false);
        if (e.testOnly) r = T.bool;
        return this.set(e, r);
      }
      case 'call':
        return this.set(e, this.checkCall(e));
      case 'list': {
        let elem: CelType | undefined;
        e.elems.forEach((x, i) => {
          let t = this.check(x);
          if (e.optionalIndices.includes(i)) {
            const s = this.substitute(t, false);
            if (isOptionalType(s)) t = s.params[0]!;
            else if (!isDynOrError(s)) this.error(x, `expected type 'optional_type' but found '${formatType(s)}'`);
            else t = T.dyn;
          }
          elem = this.join(elem, t);
        });
        return this.set(e, T.list(elem ?? this.newTypeVar()));
      }
      case 'map': {
        let key: CelType | undefined;
        let val: CelType | undefined;
        for (const ent of e.entries) {
          const kt = this.check(ent.key);
          key = this.join(key, kt);
          let vt = this.check(ent.value);
          if (ent.optional) {
            const s = this.substitute(vt, false);
            if (isOptionalType(s)) vt = s.params[0]!;
            else if (!isDynOrError(s)) this.error(ent.value, `expected type 'optional_type' but found '${formatType(s)}'`);
            else vt = T.dyn;
          }
          val = this.join(val, vt);
        }
        return this.set(e, T.map(key ?? this.newTypeVar(), val ?? this.newTypeVar()));
      }
      case 'struct': {
        let decl;
        for (const cand of typeNameCandidates(e.typeName, this.env.container)) {
          decl = this.env.registry.objectType(cand);
          if (decl) break;
        }
        for (const f of e.fields) this.check(f.value);
        if (!decl) return this.set(e, this.error(e, `undeclared reference to '${e.typeName}' (in container '${this.env.container ?? ''}')`));
        this.fnNames.set(e.id, decl.name);
        for (const f of e.fields) {
          if (!decl.fields) continue;
          const ft = decl.fields[f.field];
          if (!ft) {
            this.error(f.id, `undefined field '${f.field}'`);
            continue;
          }
          let vt = this.substitute(this.types.get(f.value.id)!, false);
          if (f.optional && isOptionalType(vt)) vt = vt.params[0]!;
          if (!this.isAssignable(ft, vt)) {
            this.error(f.id, `expected type of field '${f.field}' is '${formatType(ft)}' but provided type is '${formatType(vt)}'`);
          }
        }
        return this.set(e, T.object(decl.name));
      }
      case 'comprehension': {
        const rangeType = this.substitute(this.check(e.iterRange), false);
        const accuType = this.check(e.accuInit);
        let v1: CelType = T.dyn;
        let v2: CelType = T.dyn;
        switch (rangeType.kind) {
          case 'list':
            if (e.iterVar2 !== undefined) {
              v1 = T.int;
              v2 = rangeType.elem;
            } else v1 = rangeType.elem;
            break;
          case 'map':
            v1 = rangeType.key;
            v2 = rangeType.value;
            break;
          case 'dyn':
          case 'error':
            break;
          case 'param':
            this.isAssignable(T.dyn, rangeType);
            break;
          default:
            this.error(
              e.iterRange,
              `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
            );
        }
        this.scopes.push(new Map([[e.accuVar, accuType]]));
        const iter = new Map<string, CelType>([[e.iterVar, v1]]);
        if (e.iterVar2 !== undefined) iter.set(e.iterVar2, v2);
        this.scopes.push(iter);
        const condType = this.check(e.loopCondition);
        if (!this.isAssignable(T.bool, condType)) this.typeMismatch(e.loopCondition, T.bool, condType);
        const stepType = this.check(e.loopStep);
        if (!this.isAssignable(accuType, stepType)) this.typeMismatch(e.loopStep, accuType, stepType);
        this.scopes.pop();
        const resultType = this.check(e.result);
        this.scopes.pop();
        return this.set(e, this.substitute(resultType, false));
      }
    }
  }

  /** a local comprehension variable shadows qualified-name resolution of `x.y` */
  private shadowedRoot(q: string): boolean {
    const root = q.split('.')[0]!;
    return this.scopes.some((s) => s.has(root));
  }

  private typeMismatch(e: Expr, expected: CelType, actual: CelType): void {
    this.error(e, `expected type '${formatType(this.substitute(expected, true))}' but found '${formatType(this.substitute(actual, true))}'`);
  }

  private selectField(e: Expr, operand: Expr, field: string, optional: boolean): CelType {
    const operandType = this.substitute(this.check(operand), false);
    let target = operandType;
    let isOpt = false;
    if (isOptionalType(target)) {
      target = target.params[0]!;
      isOpt = true;
    }
    let result: CelType;
    switch (target.kind) {
      case 'map':
        result = target.value;
        break;
      case 'object': {
        // schema-derived types carry their fields; library types are declared in the registry; neither → open
        const declared = target.fields ?? this.env.registry.objectType(target.name)?.fields;
        if (declared) result = fieldOf(declared, field) ?? this.error(e, `undefined field '${field}'`);
        else result = T.dyn;
        break;
      }
      case 'param':
        this.isAssignable(T.dyn, target);
        result = T.dyn;
        break;
      default:
        if (!isDynOrError(target)) this.error(e, `type '${formatType(target)}' does not support field selection`);
        result = T.dyn;
    }
    return isOpt || optional ? T.optional(result) : result;
  }

  private functionCandidates(name: string): { name: string; overloads: readonly OverloadDecl[] } | undefined {
    for (const cand of typeNameCandidates(name, this.env.container)) {
      const o = this.env.registry.overloads(cand);
      if (o.length) return { name: cand, overloads: o };
    }
    return undefined;
  }

  private checkCall(e: Extract<Expr, { kind: 'call' }>): CelType {
    if (e.fn === '_?._') {
      const [operand, field] = e.args as [Expr, Expr];
      if (field.kind !== 'const' || typeof field.value !== 'string') return this.error(field, 'unsupported optional field selection');
      this.check(field);
      return this.selectField(e, operand, field.value, true);
    }
    if (e.target) {
      const q = this.qualifiedName(e.target);
      if (q !== undefined && !this.lookupVariable(q.split('.')[0]!)) {
        const f = this.functionCandidates(`${q}.${e.fn}`);
        if (f) {
          this.fnNames.set(e.id, f.name);
          const argTypes = e.args.map((a) => this.check(a));
          return this.resolve(e, f.name, f.overloads, undefined, argTypes);
        }
      }
      const targetType = this.check(e.target);
      const argTypes = e.args.map((a) => this.check(a));
      const f = this.env.registry.overloads(e.fn);
      if (!f.length) return this.error(e, `undeclared reference to '${e.fn}' (in container '${this.env.container ?? ''}')`);
      return this.resolve(e, e.fn, f, targetType, argTypes);
    }
    const argTypes = e.args.map((a) => this.check(a));
    const f = this.functionCandidates(e.fn);
    if (!f) return this.error(e, `undeclared reference to '${e.fn}' (in container '${this.env.container ?? ''}')`);
    if (f.name !== e.fn) this.fnNames.set(e.id, f.name);
    return this.resolve(e, f.name, f.overloads, undefined, argTypes);
  }

  private resolve(e: Expr, fn: string, overloads: readonly OverloadDecl[], target: CelType | undefined, args: CelType[]): CelType {
    const all = target ? [target, ...args] : args;
    // an argument that already failed to check does not produce a second error
    if (all.some((t) => t.kind === 'error')) return T.error;
    let result: CelType | undefined;
    const matched: string[] = [];
    for (const o of overloads) {
      if (!!o.receiver !== !!target || o.runtimeOnly) continue;
      const params = o.receiver ? [o.receiver, ...o.args] : [...o.args];
      if (params.length !== all.length) continue;
      // fresh type parameters per overload use
      const rename = new Map<string, CelType>();
      const inst = (t: CelType): CelType => this.instantiate(t, rename);
      const m = new Map(this.mapping);
      let ok = true;
      for (let i = 0; i < params.length && ok; i++) ok = this.assignableIn(m, inst(params[i]!), all[i]!);
      if (!ok) continue;
      this.mapping = m;
      matched.push(o.id);
      const rt = this.substitute(inst(o.result), false);
      if (!result) result = rt;
      else if (!typeEquals(this.substitute(result, false), rt)) result = T.dyn;
    }
    if (!matched.length) {
      const sig = target
        ? `${formatType(this.substitute(target, true))}.(${args.map((a) => formatType(this.substitute(a, true))).join(', ')})`
        : `(${args.map((a) => formatType(this.substitute(a, true))).join(', ')})`;
      return this.error(e, `found no matching overload for '${fn}' applied to '${sig}'`);
    }
    this.overloads.set(e.id, matched);
    return result!;
  }

  private instantiate(t: CelType, rename: Map<string, CelType>): CelType {
    switch (t.kind) {
      case 'param': {
        let r = rename.get(t.name);
        if (!r) {
          r = this.newTypeVar();
          rename.set(t.name, r);
        }
        return r;
      }
      case 'list':
        return T.list(this.instantiate(t.elem, rename));
      case 'map':
        return T.map(this.instantiate(t.key, rename), this.instantiate(t.value, rename));
      case 'type':
        return t.param ? T.type(this.instantiate(t.param, rename)) : t;
      case 'opaque':
        return t.params.length ? T.opaque(t.name, ...t.params.map((p) => this.instantiate(p, rename))) : t;
      default:
        return t;
    }
  }
}
