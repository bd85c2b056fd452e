// Recursive-descent parser for the CEL grammar (cel-spec langdef "Syntax"; cel-go parser/gen/CEL.g4) with the
// macros cel-go expands at parse time (parser/macro.go, ext/comprehensions.go, optional's optMap/optFlatMap,
// cel.bind). Operator call names and source positions follow cel-go, so checker messages point where cel-go's do.
import { ACCUMULATOR, Source, type Expr, type Issue, type MapEntry, type ParsedExpr, type StructField } from './ast.js';
import { tokenize, type Token, type TokenKind } from './lexer.js';
import { CelUint, INT64_MAX, INT64_MIN, UINT64_MAX, type CelValue } from './values.js';

const RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** What ANTLR lists as expected where an expression must start. */
const EXPR_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const MAP_START =
  "{'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const LIST_START =
  "{'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const EXPR_START_KINDS = new Set<TokenKind>(['[', '{', '(', '.', '-', '!', 'true', 'false', 'null', 'DOUBLE', 'INT', 'UINT', 'STRING', 'BYTES', 'IDENT']);

const MAX_DEPTH = 250;

class Abort extends Error {}

export interface ParseOptions {
  /** cel-go's default expression size limit is code points; kube leaves it unlimited */
  maxRecursionDepth?: number;
  /** receiver macros of the environment's libraries beyond the standard ones (`sortBy` of the lists extension) */
  macros?: ReadonlySet<string>;
}

export type ParseResult = { ok: true; parsed: ParsedExpr } | { ok: false; source: Source; issues: Issue[] };

export function parse(text: string, opts: ParseOptions = {}): ParseResult {
  const source = new Source(text);
  const p = new Parser(source, opts.maxRecursionDepth ?? MAX_DEPTH, opts.macros ?? NO_MACROS);
  const expr = p.run();
  if (p.issues.length || !expr) return { ok: false, source, issues: p.issues };
  return { ok: true, parsed: { expr, source, positions: p.positions, maxId: p.nextId - 1 } };
}

const NO_MACROS: ReadonlySet<string> = new Set();

class Parser {
  readonly issues: Issue[] = [];
  readonly positions = new Map<number, number>();
  nextId = 1;
  private tokens: Token[];
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly source: Source,
    private readonly maxDepth: number,
    private readonly libraryMacros: ReadonlySet<string>,
  ) {
    const { tokens, errors } = tokenize(source.chars);
    this.tokens = tokens;
    for (const e of errors) this.issues.push({ offset: e.offset, message: e.message });
  }

  run(): Expr | undefined {
    try {
      const e = this.expr();
      const t = this.peek();
      if (t.kind !== 'EOF') this.syntaxError(t, '<EOF>', this.peek(1).kind === 'EOF');
      return e;
    } catch (err) {
      if (err instanceof Abort) return undefined;
      throw err;
    }
  }

  // ---- token helpers

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  private accept(kind: TokenKind): Token | undefined {
    if (this.peek().kind === kind) return this.next();
    return undefined;
  }

  private expect(kind: TokenKind): Token {
    const t = this.peek();
    if (t.kind === kind) return this.next();
    this.syntaxError(t, `'${kind}'`, false);
  }

  private displayToken(t: Token): string {
    return t.kind === 'EOF' ? '<EOF>' : t.text;
  }

  private syntaxError(t: Token, expecting: string, extraneous: boolean): never {
    const kind = extraneous ? 'extraneous' : 'mismatched';
    this.issues.push({ offset: t.offset, message: `Syntax error: ${kind} input '${this.displayToken(t)}' expecting ${expecting}` });
    throw new Abort();
  }

  private error(offset: number, message: string): never {
    this.issues.push({ offset, message });
    throw new Abort();
  }

  private id(offset: number): number {
    const id = this.nextId++;
    this.positions.set(id, offset);
    return id;
  }

  // ---- node factories

  private call(offset: number, fn: string, args: Expr[], target?: Expr): Expr {
    return target ? { id: this.id(offset), kind: 'call', fn, target, args } : { id: this.id(offset), kind: 'call', fn, args };
  }

  private ident(offset: number, name: string): Expr {
    return { id: this.id(offset), kind: 'ident', name };
  }

  private literal(offset: number, value: CelValue): Expr {
    return { id: this.id(offset), kind: 'const', value };
  }

  // ---- grammar

  private enter(): void {
    if (++this.depth > this.maxDepth) this.error(this.peek().offset, `expression recursion limit exceeded: ${this.maxDepth}`);
  }

  private expr(): Expr {
    this.enter();
    const cond = this.conditionalOr();
    const q = this.accept('?');
    let out = cond;
    if (q) {
      const a = this.conditionalOr();
      this.expect(':');
      const b = this.expr();
      out = this.call(q.offset, '_?_:_', [cond, a, b]);
    }
    this.depth--;
    return out;
  }

  private conditionalOr(): Expr {
    let e = this.conditionalAnd();
    for (let t = this.accept('||'); t; t = this.accept('||')) e = this.call(t.offset, '_||_', [e, this.conditionalAnd()]);
    return e;
  }

  private conditionalAnd(): Expr {
    let e = this.relation();
    for (let t = this.accept('&&'); t; t = this.accept('&&')) e = this.call(t.offset, '_&&_', [e, this.relation()]);
    return e;
  }

  private relation(): Expr {
    let e = this.addition();
    for (;;) {
      const t = this.peek();
      const op = RELATION_OPS[t.kind];
      if (!op) return e;
      this.next();
      e = this.call(t.offset, op, [e, this.addition()]);
    }
  }

  private addition(): Expr {
    let e = this.multiplication();
    for (;;) {
      const t = this.peek();
      if (t.kind !== '+' && t.kind !== '-') return e;
      this.next();
      e = this.call(t.offset, t.kind === '+' ? '_+_' : '_-_', [e, this.multiplication()]);
    }
  }

  private multiplication(): Expr {
    let e = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.kind !== '*' && t.kind !== '/' && t.kind !== '%') return e;
      this.next();
      e = this.call(t.offset, `_${t.kind}_`, [e, this.unary()]);
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === '!') {
      const ops: Token[] = [];
      while (this.peek().kind === '!') ops.push(this.next());
      const m = this.member();
      if (ops.length % 2 === 0) return m;
      return this.call(ops[0]!.offset, '!_', [m]);
    }
    if (t.kind === '-') {
      const ops: Token[] = [];
      while (this.peek().kind === '-') ops.push(this.next());
      const nt = this.peek();
      let m: Expr;
      let count = ops.length;
      if (nt.kind === 'INT' || nt.kind === 'UINT' || nt.kind === 'DOUBLE') {
        // the grammar's literal carries its own sign, so `-9223372036854775808` is a single int literal
        const sign = ops[ops.length - 1]!;
        count--;
        m = this.memberSuffix(this.numberLiteral(this.next(), sign));
      } else {
        m = this.member();
      }
      if (count % 2 === 0) return m;
      return this.call(ops[0]!.offset, '-_', [m]);
    }
    return this.member();
  }

  private member(): Expr {
    return this.memberSuffix(this.primary());
  }

  private memberSuffix(e: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind === '.') {
        this.next();
        const opt = this.accept('?');
        const nameTok = this.peek();
        if (nameTok.kind !== 'IDENT' && nameTok.kind !== 'ESC_IDENT') {
          if (nameTok.kind === 'EOF' || !EXPR_START_KINDS.has(nameTok.kind)) this.syntaxError(nameTok, "{IDENTIFIER, ESC_IDENTIFIER}", false);
          this.issues.push({ offset: nameTok.offset, message: `Syntax error: no viable alternative at input '.${this.displayToken(nameTok)}'` });
          throw new Abort();
        }
        this.next();
        const name = nameTok.text;
        if (opt) {
          e = this.call(t.offset, '_?._', [e, this.literal(nameTok.offset, name)]);
          continue;
        }
        if (nameTok.kind === 'IDENT' && this.peek().kind === '(') {
          const open = this.next();
          const args = this.exprList(')');
          this.expect(')');
          e = this.expandMacro(open.offset, name, e, args) ?? this.call(open.offset, name, args, e);
          continue;
        }
        e = { id: this.id(t.offset), kind: 'select', operand: e, field: name, testOnly: false };
        continue;
      }
      if (t.kind === '[') {
        this.next();
        const opt = this.accept('?');
        const idx = this.expr();
        this.expect(']');
        e = this.call(t.offset, opt ? '_[?_]' : '_[_]', [e, idx]);
        continue;
      }
      return e;
    }
  }

  private exprList(close: TokenKind): Expr[] {
    const args: Expr[] = [];
    if (this.peek().kind === close) return args;
    args.push(this.expr());
    while (this.accept(',')) args.push(this.expr());
    return args;
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'IDENT':
      case '.': {
        let leadingDot = false;
        let start = t;
        if (t.kind === '.') {
          this.next();
          leadingDot = true;
          start = this.peek();
          if (start.kind !== 'IDENT') this.syntaxError(start, 'IDENTIFIER', false);
        }
        // IDENT ('.' IDENT)* '{' is a struct literal
        let la = 1;
        while (this.peek(la).kind === '.' && this.peek(la + 1).kind === 'IDENT') la += 2;
        if (this.peek(la).kind === '{') {
          const parts: string[] = [];
          parts.push(this.next().text);
          while (this.peek().kind === '.') {
            this.next();
            parts.push(this.next().text);
          }
          const open = this.next();
          return this.structLiteral(open, (leadingDot ? '.' : '') + parts.join('.'));
        }
        const name = this.next();
        if (RESERVED.has(name.text)) this.error(name.offset, `reserved identifier: ${name.text}`);
        if (this.peek().kind === '(') {
          const open = this.next();
          const args = this.exprList(')');
          this.expect(')');
          const fn = (leadingDot ? '.' : '') + name.text;
          return this.expandMacro(open.offset, fn, undefined, args) ?? this.call(open.offset, fn, args);
        }
        return this.ident(name.offset, (leadingDot ? '.' : '') + name.text);
      }
      case '(': {
        this.next();
        const e = this.expr();
        this.expect(')');
        return e;
      }
      case '[': {
        this.next();
        const elems: Expr[] = [];
        const optionalIndices: number[] = [];
        if (this.peek().kind !== ']') {
          for (;;) {
            if (this.accept('?')) optionalIndices.push(elems.length);
            else if (this.peek().kind === ']' || this.peek().kind === ',' || this.peek().kind === 'EOF') {
              if (!EXPR_START_KINDS.has(this.peek().kind)) this.syntaxError(this.peek(), LIST_START, false);
            }
            elems.push(this.expr());
            if (!this.accept(',')) break;
            if (this.peek().kind === ']') break;
          }
        }
        if (this.peek().kind !== ']') this.syntaxError(this.peek(), "{']', ','}", false);
        this.next();
        return { id: this.id(t.offset), kind: 'list', elems, optionalIndices };
      }
      case '{': {
        this.next();
        const id = this.id(t.offset);
        const entries: MapEntry[] = [];
        if (this.peek().kind !== '}') {
          for (;;) {
            const opt = !!this.accept('?');
            if (!EXPR_START_KINDS.has(this.peek().kind)) this.syntaxError(this.peek(), MAP_START, EXPR_START_KINDS.has(this.peek(1).kind));
            const key = this.expr();
            const colon = this.expect(':');
            const value = this.expr();
            entries.push({ id: this.id(colon.offset), key, value, optional: opt });
            if (!this.accept(',')) break;
            if (this.peek().kind === '}') break;
          }
        }
        if (this.peek().kind !== '}') this.syntaxError(this.peek(), "{'}', ','}", false);
        this.next();
        return { id, kind: 'map', entries };
      }
      case 'INT':
      case 'UINT':
      case 'DOUBLE':
        return this.numberLiteral(this.next());
      case 'STRING': {
        this.next();
        if (t.invalid !== undefined) this.error(t.offset, t.invalid);
        return this.literal(t.offset, t.str!);
      }
      case 'BYTES': {
        this.next();
        if (t.invalid !== undefined) this.error(t.offset, t.invalid);
        return this.literal(t.offset, t.bytes!);
      }
      case 'true':
      case 'false':
        this.next();
        return this.literal(t.offset, t.kind === 'true');
      case 'null':
        this.next();
        return this.literal(t.offset, null);
      default:
        this.syntaxError(t, EXPR_START, EXPR_START_KINDS.has(this.peek(1).kind));
    }
  }

  private structLiteral(open: Token, typeName: string): Expr {
    const id = this.id(open.offset);
    const fields: StructField[] = [];
    if (this.peek().kind !== '}') {
      for (;;) {
        const opt = !!this.accept('?');
        const f = this.peek();
        if (f.kind !== 'IDENT' && f.kind !== 'ESC_IDENT') {
          const after = this.peek(1).kind;
          this.syntaxError(f, "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}", after === 'IDENT' || after === 'ESC_IDENT' || after === '?');
        }
        this.next();
        const colon = this.expect(':');
        const value = this.expr();
        fields.push({ id: this.id(colon.offset), field: f.text, value, optional: opt });
        if (!this.accept(',')) break;
        if (this.peek().kind === '}') break;
      }
    }
    if (this.peek().kind !== '}') this.syntaxError(this.peek(), "{'}', ','}", false);
    this.next();
    return { id, kind: 'struct', typeName, fields };
  }

  private numberLiteral(t: Token, sign?: Token): Expr {
    const neg = !!sign;
    const offset = sign ? sign.offset : t.offset;
    const text = t.text;
    if (t.kind === 'DOUBLE') {
      const v = Number(text);
      if (!Number.isFinite(v)) this.error(offset, 'invalid double literal');
      return this.literal(offset, neg ? -v : v);
    }
    if (t.kind === 'UINT') {
      const body = text.slice(0, -1);
      let v: bigint;
      try {
        v = BigInt(body);
      } catch {
        this.error(offset, 'invalid uint literal');
      }
      if (v > UINT64_MAX || neg) this.error(offset, 'invalid uint literal');
      return this.literal(offset, new CelUint(v));
    }
    let v = BigInt(text);
    if (neg) v = -v;
    if (v > INT64_MAX || v < INT64_MIN) this.error(offset, 'invalid int literal');
    return this.literal(offset, v);
  }

  // ---- macros

  private expandMacro(offset: number, fn: string, target: Expr | undefined, args: Expr[]): Expr | undefined {
    if (!target) {
      if (fn === 'has' && args.length === 1) {
        const a = args[0]!;
        if (a.kind !== 'select' || a.testOnly) this.error(this.positions.get(a.id) ?? offset, 'invalid argument to has() macro');
        return { id: this.id(offset), kind: 'select', operand: a.operand, field: a.field, testOnly: true };
      }
      return undefined;
    }
    // cel.bind(var, init, expr): a comprehension over nothing whose accumulator is the bound variable
    // only where the bindings extension is enabled (cel-go ext.Bindings; kube 1.36's base environment has none)
    if (fn === 'bind' && args.length === 3 && target.kind === 'ident' && target.name === 'cel' && this.libraryMacros.has('cel.bind')) {
      const v = this.simpleName(args[0]!, 'cel.bind() variable name must be a simple identifier');
      return this.comprehension(offset, {
        iterVar: '#unused',
        iterRange: { id: this.id(offset), kind: 'list', elems: [], optionalIndices: [] },
        accuVar: v,
        accuInit: args[1]!,
        loopCondition: this.literal(offset, false),
        loopStep: this.ident(offset, v),
        result: args[2]!,
      });
    }
    const n = args.length;
    switch (fn) {
      case 'all':
      case 'exists':
      case 'exists_one':
      case 'existsOne':
        if (n === 2 && fn !== 'existsOne') return this.quantifier(offset, fn, target, args[0]!, undefined, args[1]!);
        if (n === 3) return this.quantifier(offset, fn, target, args[0]!, args[1]!, args[2]!);
        return undefined;
      case 'map':
        if (n === 2) return this.mapMacro(offset, target, args[0]!, undefined, undefined, args[1]!);
        if (n === 3) return this.mapMacro(offset, target, args[0]!, undefined, args[1]!, args[2]!);
        return undefined;
      case 'filter':
        if (n !== 2) return undefined;
        return this.filterMacro(offset, target, args[0]!, args[1]!);
      case 'transformList':
        if (n === 3) return this.mapMacro(offset, target, args[0]!, args[1]!, undefined, args[2]!);
        if (n === 4) return this.mapMacro(offset, target, args[0]!, args[1]!, args[2]!, args[3]!);
        return undefined;
      case 'transformMap':
      case 'transformMapEntry':
        if (n === 3) return this.transformMap(offset, fn, target, args[0]!, args[1]!, undefined, args[2]!);
        if (n === 4) return this.transformMap(offset, fn, target, args[0]!, args[1]!, args[2]!, args[3]!);
        return undefined;
      case 'sortBy':
        if (n !== 2 || !this.libraryMacros.has('sortBy')) return undefined;
        return this.sortByMacro(offset, target, args[0]!, args[1]!);
      case 'optMap':
      case 'optFlatMap': {
        if (n !== 2) return undefined;
        const v = this.simpleName(args[0]!, `${fn}() variable name must be a simple identifier`);
        const hasValue = this.call(offset, 'hasValue', [], target);
        const value = this.call(offset, 'value', [], target);
        const bound = this.comprehension(offset, {
          iterVar: '#unused',
          iterRange: { id: this.id(offset), kind: 'list', elems: [], optionalIndices: [] },
          accuVar: v,
          accuInit: value,
          loopCondition: this.literal(offset, false),
          loopStep: this.ident(offset, v),
          result: args[1]!,
        });
        const some = fn === 'optMap' ? this.call(offset, 'optional.of', [bound]) : bound;
        return this.call(offset, '_?_:_', [hasValue, some, this.call(offset, 'optional.none', [])]);
      }
      default:
        return undefined;
    }
  }

  /**
   * cel-go ext/lists.go sortByMacro: binds the target to `@__sortBy_input__` and sorts it by the keys the map of
   * the key expression computes: `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))`.
   */
  private sortByMacro(offset: number, target: Expr, v: Expr, key: Expr): Expr | undefined {
    if (!['list', 'select', 'ident', 'comprehension', 'call'].includes(target.kind)) {
      this.error(this.positions.get(target.id) ?? offset, 'sortBy can only be applied to a list, identifier, comprehension, call or select expression');
      return undefined;
    }
    const input = '@__sortBy_input__';
    const keys = this.mapMacro(offset, this.ident(offset, input), v, undefined, undefined, key);
    return this.comprehension(offset, {
      iterVar: '#unused',
      iterRange: { id: this.id(offset), kind: 'list', elems: [], optionalIndices: [] },
      accuVar: input,
      accuInit: target,
      loopCondition: this.literal(offset, false),
      loopStep: this.ident(offset, input),
      result: this.call(offset, '@sortByAssociatedKeys', [keys], this.ident(offset, input)),
    });
  }

  private simpleName(e: Expr, message: string): string {
    if (e.kind !== 'ident') this.error(this.positions.get(e.id) ?? 0, message);
    return e.name;
  }

  private iterVar(e: Expr, message: string): string {
    const name = this.simpleName(e, message);
    if (name === ACCUMULATOR) this.error(this.positions.get(e.id) ?? 0, 'iteration variable overwrites accumulator variable');
    return name;
  }

  private comprehension(
    offset: number,
    c: { iterVar: string; iterVar2?: string; iterRange: Expr; accuVar: string; accuInit: Expr; loopCondition: Expr; loopStep: Expr; result: Expr },
  ): Expr {
    return { id: this.id(offset), kind: 'comprehension', ...c };
  }

  private accu(offset: number): Expr {
    return this.ident(offset, ACCUMULATOR);
  }

  private quantifier(offset: number, fn: string, target: Expr, a: Expr, b: Expr | undefined, pred: Expr): Expr {
    const v1 = this.iterVar(a, 'argument must be a simple name');
    const v2 = b ? this.iterVar(b, 'argument must be a simple name') : undefined;
    if (v2 !== undefined && v1 === v2) this.error(this.positions.get(b!.id) ?? offset, `duplicate variable name: ${v1}`);
    const vars = v2 === undefined ? { iterVar: v1 } : { iterVar: v1, iterVar2: v2 };
    if (fn === 'all' || fn === 'exists') {
      const all = fn === 'all';
      const cond = all ? this.accu(offset) : this.call(offset, '!_', [this.accu(offset)]);
      return this.comprehension(offset, {
        ...vars,
        iterRange: target,
        accuVar: ACCUMULATOR,
        accuInit: this.literal(offset, all),
        loopCondition: this.call(offset, '@not_strictly_false', [cond]),
        loopStep: this.call(offset, all ? '_&&_' : '_||_', [this.accu(offset), pred]),
        result: this.accu(offset),
      });
    }
    return this.comprehension(offset, {
      ...vars,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit: this.literal(offset, 0n),
      loopCondition: this.literal(offset, true),
      loopStep: this.call(offset, '_?_:_', [pred, this.call(offset, '_+_', [this.accu(offset), this.literal(offset, 1n)]), this.accu(offset)]),
      result: this.call(offset, '_==_', [this.accu(offset), this.literal(offset, 1n)]),
    });
  }

  private mapMacro(offset: number, target: Expr, a: Expr, b: Expr | undefined, filter: Expr | undefined, fn: Expr): Expr {
    const v1 = this.iterVar(a, 'argument is not an identifier');
    const v2 = b ? this.iterVar(b, 'argument is not an identifier') : undefined;
    const vars = v2 === undefined ? { iterVar: v1 } : { iterVar: v1, iterVar2: v2 };
    const append = this.call(offset, '_+_', [this.accu(offset), { id: this.id(offset), kind: 'list', elems: [fn], optionalIndices: [] }]);
    const step = filter ? this.call(offset, '_?_:_', [filter, append, this.accu(offset)]) : append;
    return this.comprehension(offset, {
      ...vars,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit: { id: this.id(offset), kind: 'list', elems: [], optionalIndices: [] },
      loopCondition: this.literal(offset, true),
      loopStep: step,
      result: this.accu(offset),
    });
  }

  private filterMacro(offset: number, target: Expr, a: Expr, pred: Expr): Expr {
    const v = this.iterVar(a, 'argument is not an identifier');
    const append = this.call(offset, '_+_', [this.accu(offset), { id: this.id(offset), kind: 'list', elems: [this.ident(offset, v)], optionalIndices: [] }]);
    return this.comprehension(offset, {
      iterVar: v,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit: { id: this.id(offset), kind: 'list', elems: [], optionalIndices: [] },
      loopCondition: this.literal(offset, true),
      loopStep: this.call(offset, '_?_:_', [pred, append, this.accu(offset)]),
      result: this.accu(offset),
    });
  }

  private transformMap(offset: number, fn: string, target: Expr, a: Expr, b: Expr, filter: Expr | undefined, f: Expr): Expr {
    const v1 = this.iterVar(a, 'argument is not an identifier');
    const v2 = this.iterVar(b, 'argument is not an identifier');
    const insert =
      fn === 'transformMap'
        ? this.call(offset, 'cel.@mapInsert', [this.accu(offset), this.ident(offset, v1), f])
        : this.call(offset, 'cel.@mapInsert', [this.accu(offset), f]);
    const step = filter ? this.call(offset, '_?_:_', [filter, insert, this.accu(offset)]) : insert;
    return this.comprehension(offset, {
      iterVar: v1,
      iterVar2: v2,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit: { id: this.id(offset), kind: 'map', entries: [] },
      loopCondition: this.literal(offset, true),
      loopStep: step,
      result: this.accu(offset),
    });
  }
}

const RELATION_OPS: Partial<Record<TokenKind, string>> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
};
