// Label selectors as k8s.io/apimachinery/pkg/labels parses and matches them, in both their forms:
//  - the query-string grammar of ?labelSelector= (`a=b,c!=d,e in (f,g),h notin (i),j,!k,l>1`), with the
//    same lexer, the same parse errors and the same key/value validation;
//  - metav1.LabelSelector objects (matchLabels + matchExpressions), as webhooks' namespaceSelector and
//    objectSelector carry them, with metav1validation.ValidateLabelSelector's field errors.
import { StatusError, errors } from '../../api/errors.js';
import { fieldErrors, type FieldError, type FieldPath } from '../../api/field.js';
import { isQualifiedName, isValidLabelValue } from '../validation/name.js';

/** selection.Operator values, spelled as kube spells them. */
export type SelectorOperator = '!' | '=' | '==' | 'in' | '!=' | 'notin' | 'exists' | 'gt' | 'lt';

export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** sorted and de-duplicated, as kube's sets.String keeps them */
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>> | null | undefined;

export interface Selector {
  /** AND of all requirements, sorted by key */
  readonly requirements: readonly Requirement[];
  matches(labels: Labels): boolean;
  /** true when the selector does not restrict anything */
  empty(): boolean;
  /** kube's Selector.String() */
  toString(): string;
}

/** metav1.LabelSelectorRequirement */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector: matchLabels and matchExpressions are ANDed; an empty selector matches everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

/** A LabelSelector as it comes off the wire, before anything checked its shape. */
export interface LabelSelectorLike {
  matchLabels?: Readonly<Record<string, unknown>> | null;
  matchExpressions?: readonly unknown[] | null;
}

const binaryOperators: SelectorOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const validRequirementOperators: SelectorOperator[] = [...binaryOperators, 'exists', '!'];

function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = labels !== null && labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const val = has ? labels![r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(val!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(val!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const lv = parseGoInt(val!);
      const rv = parseGoInt(r.values[0]!);
      if (lv === undefined || rv === undefined) return false;
      return r.operator === 'gt' ? lv > rv : lv < rv;
    }
  }
}

// strconv.ParseInt(s, 10, 64)
function parseGoInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v > 9223372036854775807n || v < -9223372036854775808n ? undefined : v;
}

function requirementString(r: Requirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case 'exists':
    case '!':
      return s;
    case 'in':
    case 'notin':
      return `${s} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    default:
      s += r.operator;
  }
  return s + r.values.join(',');
}

function makeSelector(requirements: Requirement[]): Selector {
  // parse sorts by key so that String() is deterministic
  const reqs = Object.freeze([...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  return Object.freeze({
    requirements: reqs,
    matches: (labels: Labels) => reqs.every((r) => requirementMatches(r, labels)),
    empty: () => reqs.length === 0,
    toString: () => reqs.map(requirementString).join(','),
  });
}

/** labels.Everything(): matches all labels. */
export function everything(): Selector {
  return makeSelector([]);
}

/** labels.Nothing(): matches no labels. */
export function nothing(): Selector {
  return Object.freeze({ requirements: Object.freeze([]), matches: () => false, empty: () => false, toString: () => '' });
}

export type SelectorParse = { ok: true; selector: Selector } | { ok: false; message: string };

// ---- the query-string grammar -------------------------------------------------------------------------

type Token =
  | 'Error'
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

const string2token = new Map<string, Token>(Object.entries({
  ')': 'ClosedPar',
  ',': 'Comma',
  '!': 'DoesNotExist',
  '==': 'DoubleEquals',
  '=': 'Equals',
  '>': 'GreaterThan',
  in: 'In',
  '<': 'LessThan',
  '!=': 'NotEquals',
  notin: 'NotIn',
  '(': 'OpenPar',
} satisfies Record<string, Token>));

interface ScannedItem {
  tok: Token;
  literal: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

// labels.Lexer, over the string's characters.
class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    return this.pos < this.s.length ? this.s[this.pos++]! : '';
  }

  private unread(): void {
    this.pos--;
  }

  private scanIdOrKeyword(): ScannedItem {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === '') break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    const tok = string2token.get(buffer);
    return tok ? { tok, literal: buffer } : { tok: 'Identifier', literal: buffer };
  }

  private scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === '') break;
      if (!isSpecialSymbol(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
      const tok = string2token.get(buffer);
      if (tok) last = { tok, literal: buffer };
      else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { tok: 'Error', literal: `error expected: keyword found '${buffer}'` };
  }

  lex(): ScannedItem {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === '') return { tok: 'EndOfString', literal: '' };
    this.unread();
    return isSpecialSymbol(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

class ParseError extends Error {}

// field.Error rendering inside parse errors: the parser's path is nil, which Go prints as "<nil>".
function invalidMessage(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

// labels.Parser: a recursive descent over the scanned tokens.
class Parser {
  private items: ScannedItem[] = [];
  private position = 0;

  constructor(private readonly lexer: Lexer) {}

  // In the Values context, 'in' and 'notin' are plain identifiers ("x in (in)").
  private lookahead(values: boolean): ScannedItem {
    const it = this.items[this.position]!;
    return values && (it.tok === 'In' || it.tok === 'NotIn') ? { tok: 'Identifier', literal: it.literal } : it;
  }

  private consume(values: boolean): ScannedItem {
    const it = this.lookahead(values);
    this.position++;
    return it;
  }

  private scan(): void {
    for (;;) {
      const item = this.lexer.lex();
      this.items.push(item);
      if (item.tok === 'EndOfString') break;
    }
  }

  parse(): Requirement[] {
    this.scan();
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead(true);
      switch (tok) {
        case 'Identifier':
        case 'DoesNotExist': {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          requirements.push(r);
          const next = this.consume(true);
          switch (next.tok) {
            case 'EndOfString':
              return requirements;
            case 'Comma': {
              const t2 = this.lookahead(true);
              if (t2.tok !== 'Identifier' && t2.tok !== 'DoesNotExist') throw new ParseError(`found '${t2.literal}', expected: identifier after ','`);
              break;
            }
            default:
              throw new ParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
          }
          break;
        }
        case 'EndOfString':
          return requirements;
        default:
          throw new ParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort());
  }

  private parseKeyAndInferOperator(): { key: string; operator?: SelectorOperator } {
    let operator: SelectorOperator | undefined;
    let item = this.consume(true);
    if (item.tok === 'DoesNotExist') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== 'Identifier') throw new ParseError(`found '${item.literal}', expected: identifier`);
    const keyErrs = isQualifiedName(item.literal);
    if (keyErrs.length) throw new ParseError(invalidMessage('<nil>', item.literal, keyErrs.join('; ')));
    const t = this.lookahead(true).tok;
    if ((t === 'EndOfString' || t === 'Comma') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  private parseOperator(): SelectorOperator {
    const { tok, literal } = this.consume(false);
    switch (tok) {
      case 'In':
        return 'in';
      case 'Equals':
        return '=';
      case 'DoubleEquals':
        return '==';
      case 'GreaterThan':
        return 'gt';
      case 'LessThan':
        return 'lt';
      case 'NotIn':
        return 'notin';
      case 'NotEquals':
        return '!=';
      default:
        throw new ParseError(`found '${literal}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== 'OpenPar') throw new ParseError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead(true);
    switch (tok) {
      case 'Identifier':
      case 'Comma': {
        const s = this.parseIdentifiersList();
        if (this.consume(true).tok !== 'ClosedPar') throw new ParseError(`found '${literal}', expected: ')'`);
        return s;
      }
      case 'ClosedPar':
        this.consume(true);
        return new Set(['']);
      default:
        throw new ParseError(`found '${literal}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume(true);
      switch (tok) {
        case 'Identifier': {
          s.add(literal);
          const next = this.lookahead(true);
          if (next.tok === 'Comma') continue;
          if (next.tok === 'ClosedPar') return s;
          throw new ParseError(`found '${next.literal}', expected: ',' or ')'`);
        }
        case 'Comma': {
          // "(,", ",)" and ",," all stand for the empty value
          if (s.size === 0) s.add('');
          const next = this.lookahead(true).tok;
          if (next === 'ClosedPar') {
            s.add('');
            return s;
          }
          if (next === 'Comma') s.add('');
          break;
        }
        default:
          throw new ParseError(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const t = this.lookahead(true).tok;
    if (t === 'EndOfString' || t === 'Comma') return new Set(['']);
    const { tok, literal } = this.consume(true);
    if (tok === 'Identifier') return new Set([literal]);
    throw new ParseError(`found '${literal}', expected: identifier`);
  }
}

// labels.NewRequirement's checks, with its error aggregate as the message.
function newRequirement(key: string, op: SelectorOperator, values: string[]): Requirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(invalidMessage('key', key, keyErrs.join('; ')));
  const goSlice = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`values: Invalid value: ${goSlice}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`values: Invalid value: ${goSlice}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`values: Invalid value: ${goSlice}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`values: Invalid value: ${goSlice}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (parseGoInt(v) === undefined) errs.push(invalidMessage(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length) errs.push(invalidMessage(`values[${i}][${key}]`, v, vErrs.join('; ')));
  });
  const unique = [...new Set(errs)];
  if (unique.length === 1) throw new ParseError(unique[0]!);
  if (unique.length > 1) throw new ParseError(`[${unique.join(', ')}]`);
  return Object.freeze({ key, operator: op, values: Object.freeze(values) });
}

/** labels.Parse: the selector, or the message kube returns for it. */
export function parseLabelSelector(selector: string): SelectorParse {
  try {
    return { ok: true, selector: makeSelector(new Parser(new Lexer(selector)).parse()) };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, message: e.message };
    throw e;
  }
}

/**
 * The ?labelSelector= query parameter: absent or empty selects everything; a parse error is the 400
 * BadRequest kube-apiserver answers with (`unable to parse requirement: ...`).
 * @throws StatusError (400 BadRequest)
 */
export function parseLabelSelectorQuery(raw: string | undefined): Selector {
  const parsed = parseLabelSelector(raw ?? '');
  if (!parsed.ok) throw labelSelectorBadRequest(parsed.message);
  return parsed.selector;
}

/** The 400 BadRequest for a label selector that does not parse. */
export function labelSelectorBadRequest(message: string): StatusError {
  return errors.badRequest(message);
}

// ---- metav1.LabelSelector ---------------------------------------------------------------------------

const selectorOperators = new Map<string, SelectorOperator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

/**
 * metav1.LabelSelectorAsSelector. An empty selector matches everything; so does an absent one here, since
 * every place that carries one (webhook namespaceSelector/objectSelector) defaults it to {}.
 * Values are not validated, as in kube: run validateLabelSelector first.
 */
export function labelSelectorAsSelector(sel: LabelSelectorLike | null | undefined): SelectorParse {
  if (!sel) return { ok: true, selector: everything() };
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    reqs.push(Object.freeze({ key: k, operator: '=' as const, values: Object.freeze([String(v)]) }));
  }
  for (const raw of sel.matchExpressions ?? []) {
    const expr = (raw ?? {}) as Partial<LabelSelectorRequirement>;
    const op = selectorOperators.get(String(expr.operator));
    if (!op) return { ok: false, message: `${JSON.stringify(String(expr.operator ?? ''))} is not a valid label selector operator` };
    const values = op === 'exists' || op === '!' ? [] : [...new Set((expr.values ?? []).map(String))].sort();
    reqs.push(Object.freeze({ key: String(expr.key ?? ''), operator: op, values: Object.freeze(values) }));
  }
  return { ok: true, selector: makeSelector(reqs) };
}

/** Whether labels match a metav1.LabelSelector; a selector that does not convert matches nothing. */
export function labelSelectorMatches(sel: LabelSelectorLike | null | undefined, labels: Labels): boolean {
  const converted = labelSelectorAsSelector(sel);
  return converted.ok && converted.selector.matches(labels);
}

export interface LabelSelectorValidationOptions {
  /** kube allows invalid values only in objects that already had them (backwards compatibility) */
  allowInvalidLabelValueInSelector?: boolean;
}

/**
 * metav1validation.ValidateLabelSelector: matchLabels as labels; per expression, values required for
 * In/NotIn, forbidden for Exists/DoesNotExist, any other operator invalid; keys qualified names; values
 * valid label values.
 */
export function validateLabelSelector(sel: LabelSelectorLike | null | undefined, path: FieldPath, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  if (!sel) return [];
  const errs: FieldError[] = [];
  const labelsPath = path.child('matchLabels');
  for (const [k, raw] of Object.entries(sel.matchLabels ?? {})) {
    const v = String(raw);
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(labelsPath, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(labelsPath, v, msg));
  }
  (sel.matchExpressions ?? []).forEach((raw, i) => {
    const expr = (raw ?? {}) as Partial<LabelSelectorRequirement>;
    const p = path.child('matchExpressions').index(i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(p.child('operator'), expr.operator ?? '', 'not a valid selector operator'));
    }
    const key = String(expr.key ?? '');
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(p.child('key'), key, msg));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(String(v))) errs.push(fieldErrors.invalid(p.child('values').index(j), v, msg));
      });
    }
  });
  return errs;
}

/** The operators a parsed requirement may carry, for callers that print them. */
export const supportedSelectorOperators: readonly SelectorOperator[] = Object.freeze(validRequirementOperators);
