// The parsed expression tree (cel-go's common/ast), with macros already expanded into comprehensions, and the
// source/issue formatting that produces cel-go's `ERROR: <input>:1:5: … | x + | ..^` text.
import type { CelValue } from './values.js';

export type Expr =
  | { readonly id: number; readonly kind: 'const'; readonly value: CelValue }
  | { readonly id: number; readonly kind: 'ident'; readonly name: string }
  | {
      readonly id: number;
      readonly kind: 'select';
      readonly operand: Expr;
      readonly field: string;
      /** has(a.b): presence test */
      readonly testOnly: boolean;
    }
  | { readonly id: number; readonly kind: 'call'; readonly fn: string; readonly target?: Expr; readonly args: readonly Expr[] }
  | { readonly id: number; readonly kind: 'list'; readonly elems: readonly Expr[]; readonly optionalIndices: readonly number[] }
  | { readonly id: number; readonly kind: 'map'; readonly entries: readonly MapEntry[] }
  | { readonly id: number; readonly kind: 'struct'; readonly typeName: string; readonly fields: readonly StructField[] }
  | Comprehension;

export interface MapEntry {
  readonly id: number;
  readonly key: Expr;
  readonly value: Expr;
  readonly optional: boolean;
}

export interface StructField {
  readonly id: number;
  readonly field: string;
  readonly value: Expr;
  readonly optional: boolean;
}

export interface Comprehension {
  readonly id: number;
  readonly kind: 'comprehension';
  readonly iterRange: Expr;
  readonly iterVar: string;
  /** the second variable of two-variable comprehensions (index/key, value) */
  readonly iterVar2?: string;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}

/** cel-go's accumulator name for macro comprehensions */
export const ACCUMULATOR = '@result';

export interface ParsedExpr {
  readonly expr: Expr;
  readonly source: Source;
  /** node id → code point offset in the source */
  readonly positions: ReadonlyMap<number, number>;
  /** the largest id used, so later passes can allocate fresh ones */
  readonly maxId: number;
}

export interface Issue {
  /** code point offset; -1 when unknown */
  readonly offset: number;
  readonly message: string;
}

/** The expression text with line offsets, counted in code points as cel-go's runes. */
export class Source {
  readonly chars: readonly string[];
  private readonly lineStarts: number[] = [0];

  constructor(
    readonly text: string,
    readonly description = '<input>',
  ) {
    this.chars = Array.from(text);
    this.chars.forEach((c, i) => {
      if (c === '\n') this.lineStarts.push(i + 1);
    });
  }

  /** 1-based line, 0-based column */
  location(offset: number): { line: number; column: number } {
    let line = 0;
    while (line + 1 < this.lineStarts.length && this.lineStarts[line + 1]! <= offset) line++;
    return { line: line + 1, column: offset - this.lineStarts[line]! };
  }

  snippet(line: number): string | undefined {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return undefined;
    const end = this.lineStarts[line];
    const s = this.chars.slice(start, end === undefined ? undefined : end - 1).join('');
    return s;
  }
}

const isWide = (c: string): boolean => Buffer.byteLength(c, 'utf8') > 1;

/** One issue as cel-go's common.Error.ToDisplayString prints it. */
export function formatIssue(source: Source, issue: Issue): string {
  if (issue.offset < 0) return `ERROR: ${source.description}:-1:0: ${issue.message}`;
  const { line, column } = source.location(issue.offset);
  let out = `ERROR: ${source.description}:${line}:${column + 1}: ${issue.message}`;
  const snippet = source.snippet(line);
  if (snippet !== undefined) {
    const chars = Array.from(snippet.replace(/\t/g, ' '));
    out += '\n | ' + chars.join('');
    let ind = '\n | ';
    for (let i = 0; i < column && i < chars.length; i++) ind += isWide(chars[i]!) ? '\uff0e' : '.';
    ind += column < chars.length && isWide(chars[column]!) ? '\uff3e' : '^';
    out += ind;
  }
  return out;
}

/** Issues sorted by position, joined by newlines, as cel-go's Issues.String(). */
export function formatIssues(source: Source, issues: readonly Issue[]): string {
  const sorted = [...issues].map((x, i) => ({ x, i })).sort((a, b) => a.x.offset - b.x.offset || a.i - b.i);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { x } of sorted) {
    const s = formatIssue(source, x);
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out.join('\n');
}
