// The syntax error kube-apiserver prints for a YAML document it cannot read. sigs.k8s.io/yaml hands the bytes to
// yaml.v2 (go.yaml.in/yaml/v2, a Go port of libyaml), whose errors read "yaml: line N: <problem>"; the `yaml` npm
// package finds the same documents invalid but words and places its errors differently. This module re-walks the
// document the way yaml.v2's reader, scanner and parser do, only far enough to find their first problem and mark:
//
// - reader (readerc.go): characters outside YAML's printable set fail the whole read, without a line;
// - scanner (scannerc.go): tokens, simple keys, indentation; the problem mark is where the scanner stood;
// - parser (parserc.go): the grammar over tokens; the problem mark is the offending token's start.
//
// decode.go's parser.fail() prints the problem mark's 0-based line, plus one for scanner errors only (so parser
// errors name the line before the offending one, as kube users see it), falling back to the context mark's line,
// and drops "line N: " when both are 0. Unmarshal reads the first document only, so nothing after it is checked.

/** A position in the input as yaml.v2 counts it: characters, 0-based line and column. */
interface Mark {
  index: number;
  line: number;
  column: number;
}

type TokenType =
  | 'STREAM-START'
  | 'STREAM-END'
  | 'VERSION-DIRECTIVE'
  | 'TAG-DIRECTIVE'
  | 'DOCUMENT-START'
  | 'DOCUMENT-END'
  | 'BLOCK-SEQUENCE-START'
  | 'BLOCK-MAPPING-START'
  | 'BLOCK-END'
  | 'FLOW-SEQUENCE-START'
  | 'FLOW-SEQUENCE-END'
  | 'FLOW-MAPPING-START'
  | 'FLOW-MAPPING-END'
  | 'BLOCK-ENTRY'
  | 'FLOW-ENTRY'
  | 'KEY'
  | 'VALUE'
  | 'ALIAS'
  | 'ANCHOR'
  | 'TAG'
  | 'SCALAR';

interface Token {
  type: TokenType;
  start: Mark;
  /** TAG: the handle ('!', '!!', '!x!', or '' for verbatim and '!' tags); TAG-DIRECTIVE: the declared handle. */
  handle?: string;
  /** ANCHOR, ALIAS: the name */
  name?: string;
  /** VERSION-DIRECTIVE */
  major?: number;
  minor?: number;
}

interface SimpleKey {
  possible: boolean;
  required: boolean;
  tokenNumber: number;
  mark: Mark;
}

/** yaml_parser_t's error fields: which stage failed, the problem and the marks fail() chooses a line from. */
interface GoYamlProblem {
  stage: 'reader' | 'scanner' | 'parser';
  problem: string;
  problemMark?: Mark;
  contextMark?: Mark;
}

/** Thrown inside the walk only; goYamlSyntaxError turns it into the error text. */
class ProblemFound extends Error {
  constructor(readonly found: GoYamlProblem) {
    super(found.problem);
  }
}

const copyMark = (m: Mark): Mark => ({ index: m.index, line: m.line, column: m.column });

const isBreak = (c: string): boolean => c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlank = (c: string): boolean => c === ' ' || c === '\t';
/** The NUL yaml.v2 pads its buffer with at the end of the input (real NULs are refused by the reader). */
const isZ = (c: string): boolean => c === '\0';
const isBlankZ = (c: string): boolean => isBlank(c) || isBreak(c) || isZ(c);
const isBreakZ = (c: string): boolean => isBreak(c) || isZ(c);
const isAlpha = (c: string): boolean => /^[0-9A-Za-z_-]$/u.test(c);
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isHex = (c: string): boolean => /^[0-9A-Fa-f]$/u.test(c);
const uriCharacters = ";/?:@&=+$,.!~*'()[]%";

/**
 * readerc.go's allowed range: #x9 | #xA | #xD | [#x20-#x7E] | #x85 | [#xA0-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]. Anything else is "control characters are not allowed".
 */
function isPrintable(cp: number): boolean {
  return (
    cp === 0x09 ||
    cp === 0x0a ||
    cp === 0x0d ||
    (cp >= 0x20 && cp <= 0x7e) ||
    cp === 0x85 ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

const utf8Width = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/** yaml.v2 decodes its input 512 raw bytes at a time (input_raw_buffer_size) and checks each chunk as it decodes it. */
const rawChunkBytes = 512;

/**
 * The first character index at which the reader fails: the start of the raw chunk holding the first unprintable
 * character, since the whole chunk is decoded (and refused) as soon as the scanner needs any character of it.
 */
function readerFailureIndex(chars: readonly string[]): number {
  let bytes = 0;
  let chunkStartIndex = 0;
  let chunk = 0;
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    const thisChunk = Math.floor(bytes / rawChunkBytes);
    if (thisChunk !== chunk) {
      chunk = thisChunk;
      chunkStartIndex = i;
    }
    if (!isPrintable(cp)) return chunkStartIndex;
    bytes += utf8Width(cp);
  }
  return Number.POSITIVE_INFINITY;
}

/** The tokenizer of scannerc.go, as far as it decides errors and marks; scalar values are not kept. */
class Scanner {
  private readonly chars: string[];
  private readonly readerFailsAt: number;
  private pos = 0;
  readonly mark: Mark = { index: 0, line: 0, column: 0 };

  private readonly tokens: Token[] = [];
  private head = 0;
  private parsed = 0;
  private tokenAvailable = false;
  private streamStartProduced = false;

  private indent = -1;
  private readonly indents: number[] = [];
  private flowLevel = 0;
  private simpleKeyAllowed = false;
  private readonly simpleKeys: SimpleKey[] = [];
  private readonly simpleKeysByToken = new Map<number, number>();

  constructor(text: string) {
    // yaml_parser_determine_encoding consumes a leading UTF-8 BOM before anything is scanned.
    this.chars = Array.from(text.startsWith('\uFEFF') ? text.slice(1) : text);
    this.readerFailsAt = readerFailureIndex(this.chars);
  }

  // ---- characters ----

  /** The character k ahead, or the NUL yaml.v2 pads the end with; reaching a refused chunk is the reader's error. */
  private at(k = 0): string {
    const i = this.pos + k;
    if (i >= this.readerFailsAt) throw new ProblemFound({ stage: 'reader', problem: 'control characters are not allowed' });
    return this.chars[i] ?? '\0';
  }

  private skip(): void {
    this.pos++;
    this.mark.index++;
    this.mark.column++;
  }

  private skipLine(): void {
    if (this.at() === '\r' && this.at(1) === '\n') {
      this.pos += 2;
      this.mark.index += 2;
    } else if (isBreak(this.at())) {
      this.pos++;
      this.mark.index++;
    } else return;
    this.mark.column = 0;
    this.mark.line++;
  }

  /** yaml_parser_set_scanner_error; the context text is libyaml's, kept for the reader: fail() prints only the problem. */
  private error(_context: string, contextMark: Mark, problem: string): never {
    throw new ProblemFound({ stage: 'scanner', problem, contextMark: copyMark(contextMark), problemMark: copyMark(this.mark) });
  }

  // ---- the token queue (yaml_parser_scan / peek_token / skip_token) ----

  peek(): Token {
    if (!this.tokenAvailable) this.fetchMoreTokens();
    return this.tokens[this.head]!;
  }

  skipToken(): void {
    this.tokenAvailable = false;
    this.parsed++;
    this.head++;
  }

  private queued(): number {
    return this.tokens.length - this.head;
  }

  private insertToken(at: number, token: Token): void {
    if (at < 0) this.tokens.push(token);
    else this.tokens.splice(this.head + at, 0, token);
  }

  private append(type: TokenType, start: Mark, extra: Partial<Token> = {}): void {
    this.insertToken(-1, { type, start: copyMark(start), ...extra });
  }

  /** More tokens are needed while the head token could still turn out to be a simple key. */
  private fetchMoreTokens(): void {
    for (;;) {
      if (this.head !== this.tokens.length) {
        const keyIndex = this.simpleKeysByToken.get(this.parsed);
        if (keyIndex === undefined || !this.simpleKeyIsValid(this.simpleKeys[keyIndex]!)) break;
      }
      this.fetchNextToken();
    }
    this.tokenAvailable = true;
  }

  private fetchNextToken(): void {
    if (!this.streamStartProduced) {
      this.indent = -1;
      this.simpleKeys.push({ possible: false, required: false, tokenNumber: 0, mark: copyMark(this.mark) });
      this.simpleKeyAllowed = true;
      this.streamStartProduced = true;
      this.append('STREAM-START', this.mark);
      return;
    }
    this.scanToNextToken();
    this.unrollIndent(this.mark.column);
    const c = this.at();
    const next = this.at(1);
    if (isZ(c)) return this.fetchStreamEnd();
    if (this.mark.column === 0 && c === '%') return this.fetchDirective();
    if (this.mark.column === 0 && isBlankZ(this.at(3))) {
      if (c === '-' && next === '-' && this.at(2) === '-') return this.fetchDocumentIndicator('DOCUMENT-START');
      if (c === '.' && next === '.' && this.at(2) === '.') return this.fetchDocumentIndicator('DOCUMENT-END');
    }
    if (c === '[') return this.fetchFlowCollectionStart('FLOW-SEQUENCE-START');
    if (c === '{') return this.fetchFlowCollectionStart('FLOW-MAPPING-START');
    if (c === ']') return this.fetchFlowCollectionEnd('FLOW-SEQUENCE-END');
    if (c === '}') return this.fetchFlowCollectionEnd('FLOW-MAPPING-END');
    if (c === ',') return this.fetchFlowEntry();
    if (c === '-' && isBlankZ(next)) return this.fetchBlockEntry();
    if (c === '?' && (this.flowLevel > 0 || isBlankZ(next))) return this.fetchKey();
    if (c === ':' && (this.flowLevel > 0 || isBlankZ(next))) return this.fetchValue();
    if (c === '*') return this.fetchAnchor('ALIAS');
    if (c === '&') return this.fetchAnchor('ANCHOR');
    if (c === '!') return this.fetchTag();
    // Literal and folded scalars differ in their value only, never in where they end.
    if ((c === '|' || c === '>') && this.flowLevel === 0) return this.fetchBlockScalar();
    if (c === "'" || c === '"') return this.fetchFlowScalar(c === "'");
    // A plain scalar starts with anything but blanks and indicators; '-' (and, in block context, '?' and ':')
    // may start one when a non-space follows.
    if (
      !(isBlankZ(c) || "-?:,[]{}#&*!|>'\"%@`".includes(c)) ||
      (c === '-' && !isBlank(next)) ||
      (this.flowLevel === 0 && (c === '?' || c === ':') && !isBlankZ(next))
    ) {
      return this.fetchPlainScalar();
    }
    this.error('while scanning for the next token', this.mark, 'found character that cannot start any token');
  }

  // ---- simple keys and indentation ----

  /** A simple key must end on its line and within 1024 characters; a required one that does not is an error. */
  private simpleKeyIsValid(key: SimpleKey): boolean {
    if (!key.possible) return false;
    if (key.mark.line < this.mark.line || key.mark.index + 1024 < this.mark.index) {
      if (key.required) this.error('while scanning a simple key', key.mark, "could not find expected ':'");
      key.possible = false;
      return false;
    }
    return true;
  }

  private saveSimpleKey(): void {
    // A key is required where a block collection's indentation says an entry must start.
    const required = this.flowLevel === 0 && this.indent === this.mark.column;
    if (!this.simpleKeyAllowed) return;
    const key: SimpleKey = { possible: true, required, tokenNumber: this.parsed + this.queued(), mark: copyMark(this.mark) };
    this.removeSimpleKey();
    this.simpleKeys[this.simpleKeys.length - 1] = key;
    this.simpleKeysByToken.set(key.tokenNumber, this.simpleKeys.length - 1);
  }

  private removeSimpleKey(): void {
    const key = this.simpleKeys[this.simpleKeys.length - 1]!;
    if (!key.possible) return;
    if (key.required) this.error('while scanning a simple key', key.mark, "could not find expected ':'");
    key.possible = false;
    this.simpleKeysByToken.delete(key.tokenNumber);
  }

  private increaseFlowLevel(): void {
    this.simpleKeys.push({ possible: false, required: false, tokenNumber: this.parsed + this.queued(), mark: copyMark(this.mark) });
    this.flowLevel++;
    if (this.flowLevel > 10000) this.error('while increasing flow level', this.mark, 'exceeded max depth of 10000');
  }

  private decreaseFlowLevel(): void {
    if (this.flowLevel === 0) return;
    this.flowLevel--;
    const key = this.simpleKeys.pop()!;
    this.simpleKeysByToken.delete(key.tokenNumber);
  }

  private rollIndent(column: number, tokenNumber: number, type: TokenType, mark: Mark): void {
    if (this.flowLevel > 0 || this.indent >= column) return;
    this.indents.push(this.indent);
    this.indent = column;
    if (this.indents.length > 10000) this.error('while increasing indent level', mark, 'exceeded max depth of 10000');
    this.insertToken(tokenNumber > -1 ? tokenNumber - this.parsed : -1, { type, start: copyMark(mark) });
  }

  private unrollIndent(column: number): void {
    if (this.flowLevel > 0) return;
    while (this.indent > column) {
      this.append('BLOCK-END', this.mark);
      this.indent = this.indents.pop()!;
    }
  }

  // ---- fetchers ----

  /** '---' or '...' at the start of a line, followed by a blank: a document boundary ends any scalar. */
  private atDocumentIndicator(): boolean {
    // Characters are looked at in scannerc.go's order: reaching a refused chunk earlier would fail the read sooner.
    const c = this.at();
    return this.mark.column === 0 && (c === '-' || c === '.') && this.at(1) === c && this.at(2) === c && isBlankZ(this.at(3));
  }

  /** The tokens that are their one indicator character: the token starts where the character stands. */
  private fetchIndicator(type: TokenType): void {
    const start = copyMark(this.mark);
    this.skip();
    this.append(type, start);
  }

  private fetchStreamEnd(): void {
    // The stream ends on a line of its own.
    if (this.mark.column !== 0) {
      this.mark.column = 0;
      this.mark.line++;
    }
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    this.append('STREAM-END', this.mark);
  }

  private fetchDocumentIndicator(type: 'DOCUMENT-START' | 'DOCUMENT-END'): void {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    this.skip();
    this.skip();
    this.append(type, start);
  }

  /**
   * In block context a '-', '?' or ':' opens its collection at its column (roll_indent), where a simple key could
   * start; elsewhere ("key: value: more") it is the scanner's error.
   */
  private openBlockCollection(type: 'BLOCK-SEQUENCE-START' | 'BLOCK-MAPPING-START', problem: string): void {
    if (this.flowLevel !== 0) return;
    if (!this.simpleKeyAllowed) this.error('', this.mark, problem);
    this.rollIndent(this.mark.column, -1, type, this.mark);
  }

  private fetchFlowCollectionStart(type: 'FLOW-SEQUENCE-START' | 'FLOW-MAPPING-START'): void {
    this.saveSimpleKey();
    this.increaseFlowLevel();
    this.simpleKeyAllowed = true;
    this.fetchIndicator(type);
  }

  private fetchFlowCollectionEnd(type: 'FLOW-SEQUENCE-END' | 'FLOW-MAPPING-END'): void {
    this.removeSimpleKey();
    this.decreaseFlowLevel();
    this.simpleKeyAllowed = false;
    this.fetchIndicator(type);
  }

  private fetchFlowEntry(): void {
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    this.fetchIndicator('FLOW-ENTRY');
  }

  private fetchBlockEntry(): void {
    this.openBlockCollection('BLOCK-SEQUENCE-START', 'block sequence entries are not allowed in this context');
    // In flow context the parser reports the '-', with its context.
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    this.fetchIndicator('BLOCK-ENTRY');
  }

  private fetchKey(): void {
    this.openBlockCollection('BLOCK-MAPPING-START', 'mapping keys are not allowed in this context');
    this.removeSimpleKey();
    this.simpleKeyAllowed = this.flowLevel === 0;
    this.fetchIndicator('KEY');
  }

  private fetchValue(): void {
    const key = this.simpleKeys[this.simpleKeys.length - 1]!;
    if (this.simpleKeyIsValid(key)) {
      // The simple key's tokens become KEY ..., opening a block mapping at its column when needed.
      this.insertToken(key.tokenNumber - this.parsed, { type: 'KEY', start: copyMark(key.mark) });
      this.rollIndent(key.mark.column, key.tokenNumber, 'BLOCK-MAPPING-START', key.mark);
      key.possible = false;
      this.simpleKeysByToken.delete(key.tokenNumber);
      this.simpleKeyAllowed = false;
    } else {
      // ':' after a complex key, or where no key can be: "key: value: more" lands here.
      this.openBlockCollection('BLOCK-MAPPING-START', 'mapping values are not allowed in this context');
      this.simpleKeyAllowed = this.flowLevel === 0;
    }
    this.fetchIndicator('VALUE');
  }

  private fetchAnchor(type: 'ALIAS' | 'ANCHOR'): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    let name = '';
    while (isAlpha(this.at())) {
      name += this.at();
      this.skip();
    }
    if (name === '' || !(isBlankZ(this.at()) || '?:,]}%@`'.includes(this.at()))) {
      this.error(type === 'ANCHOR' ? 'while scanning an anchor' : 'while scanning an alias', start, 'did not find expected alphabetic or numeric character');
    }
    this.append(type, start, { name });
  }

  private fetchTag(): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    let handle: string;
    if (this.at(1) === '<') {
      // Verbatim !<uri>: no handle.
      handle = '';
      this.skip();
      this.skip();
      this.scanTagUri(false, false, start);
      if (this.at() !== '>') this.error('while scanning a tag', start, "did not find the expected '>'");
      this.skip();
    } else {
      handle = this.scanTagHandle(false, start);
      if (handle.length > 1 && handle.endsWith('!')) this.scanTagUri(false, false, start);
      else {
        // Not a handle after all: '!suffix' (or the lone '!', whose handle is '').
        const suffixLength = this.scanTagUri(false, handle.length > 0, start) + handle.length - 1;
        handle = suffixLength === 0 ? '' : '!';
      }
    }
    if (!isBlankZ(this.at())) this.error('while scanning a tag', start, 'did not find expected whitespace or line break');
    this.append('TAG', start, { handle });
  }

  /** '!' followed by word characters and, for a named handle, a closing '!'. */
  private scanTagHandle(directive: boolean, start: Mark): string {
    const context = directive ? 'while scanning a %TAG directive' : 'while scanning a tag';
    if (this.at() !== '!') this.error(context, start, "did not find expected '!'");
    let handle = '!';
    this.skip();
    while (isAlpha(this.at())) {
      handle += this.at();
      this.skip();
    }
    if (this.at() === '!') {
      handle += '!';
      this.skip();
    } else if (directive && handle !== '!') {
      this.error(context, start, "did not find expected '!'");
    }
    return handle;
  }

  /** The URI characters of a tag or %TAG prefix; returns how many were read. */
  private scanTagUri(directive: boolean, hasHead: boolean, start: Mark): number {
    const context = directive ? 'while scanning a %TAG directive' : 'while scanning a tag';
    let length = 0;
    while (isAlpha(this.at()) || uriCharacters.includes(this.at())) {
      if (this.at() === '%') {
        if (!(isHex(this.at(1)) && isHex(this.at(2)))) this.error(context, start, 'did not find URI escaped octet');
        this.skip();
        this.skip();
      }
      this.skip();
      length++;
    }
    if (length === 0 && !hasHead) this.error(context, start, 'did not find expected tag URI');
    return length;
  }

  private fetchDirective(): void {
    this.unrollIndent(-1);
    this.removeSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    let name = '';
    while (isAlpha(this.at())) {
      name += this.at();
      this.skip();
    }
    if (name === '') this.error('while scanning a directive', start, 'could not find expected directive name');
    if (!isBlankZ(this.at())) this.error('while scanning a directive', start, 'found unexpected non-alphabetical character');
    const skipBlanks = (): void => {
      while (isBlank(this.at())) this.skip();
    };
    if (name === 'YAML') {
      skipBlanks();
      const major = this.scanVersionNumber(start);
      if (this.at() !== '.') this.error('while scanning a %YAML directive', start, "did not find expected digit or '.' character");
      this.skip();
      const minor = this.scanVersionNumber(start);
      this.append('VERSION-DIRECTIVE', start, { major, minor });
    } else if (name === 'TAG') {
      skipBlanks();
      const handle = this.scanTagHandle(true, start);
      if (!isBlank(this.at())) this.error('while scanning a %TAG directive', start, 'did not find expected whitespace');
      skipBlanks();
      this.scanTagUri(true, false, start);
      if (!isBlankZ(this.at())) this.error('while scanning a %TAG directive', start, 'did not find expected whitespace or line break');
      this.append('TAG-DIRECTIVE', start, { handle });
    } else {
      this.error('while scanning a directive', start, 'found unknown directive name');
    }
    skipBlanks();
    if (this.at() === '#') while (!isBreakZ(this.at())) this.skip();
    if (!isBreakZ(this.at())) this.error('while scanning a directive', start, 'did not find expected comment or line break');
    this.skipLine();
  }

  private scanVersionNumber(start: Mark): number {
    let value = 0;
    let length = 0;
    while (isDigit(this.at())) {
      if (++length > 2) this.error('while scanning a %YAML directive', start, 'found extremely long version number');
      value = value * 10 + Number(this.at());
      this.skip();
    }
    if (length === 0) this.error('while scanning a %YAML directive', start, 'did not find expected version number');
    return value;
  }

  private fetchBlockScalar(): void {
    this.removeSimpleKey();
    this.simpleKeyAllowed = true;
    const start = copyMark(this.mark);
    this.skip();
    let increment = 0;
    const indentationIndicator = (): void => {
      if (!isDigit(this.at())) return;
      if (this.at() === '0') this.error('while scanning a block scalar', start, 'found an indentation indicator equal to 0');
      increment = Number(this.at());
      this.skip();
    };
    if (this.at() === '+' || this.at() === '-') {
      this.skip();
      indentationIndicator();
    } else if (isDigit(this.at())) {
      indentationIndicator();
      if (this.at() === '+' || this.at() === '-') this.skip();
    }
    while (isBlank(this.at())) this.skip();
    if (this.at() === '#') while (!isBreakZ(this.at())) this.skip();
    if (!isBreakZ(this.at())) this.error('while scanning a block scalar', start, 'did not find expected comment or line break');
    this.skipLine();
    let indent = increment > 0 ? (this.indent >= 0 ? this.indent + increment : increment) : 0;
    indent = this.scanBlockScalarBreaks(indent, start);
    while (this.mark.column === indent && !isZ(this.at())) {
      while (!isBreakZ(this.at())) this.skip();
      this.skipLine();
      indent = this.scanBlockScalarBreaks(indent, start);
    }
    this.append('SCALAR', start);
  }

  /** Indentation spaces and empty lines before a block scalar line; fixes the indentation when it is automatic. */
  private scanBlockScalarBreaks(indent: number, start: Mark): number {
    let maxIndent = 0;
    for (;;) {
      while ((indent === 0 || this.mark.column < indent) && this.at() === ' ') this.skip();
      if (this.mark.column > maxIndent) maxIndent = this.mark.column;
      if ((indent === 0 || this.mark.column < indent) && this.at() === '\t') {
        this.error('while scanning a block scalar', start, 'found a tab character where an indentation space is expected');
      }
      if (!isBreak(this.at())) break;
      this.skipLine();
    }
    if (indent === 0) indent = Math.max(maxIndent, this.indent + 1, 1);
    return indent;
  }

  private fetchFlowScalar(single: boolean): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    this.skip();
    for (;;) {
      if (this.atDocumentIndicator()) this.error('while scanning a quoted scalar', start, 'found unexpected document indicator');
      if (isZ(this.at())) this.error('while scanning a quoted scalar', start, 'found unexpected end of stream');
      while (!isBlankZ(this.at())) {
        const c = this.at();
        if (single && c === "'" && this.at(1) === "'") {
          this.skip();
          this.skip();
        } else if (single && c === "'") break;
        else if (!single && c === '"') break;
        else if (!single && c === '\\' && isBreak(this.at(1))) {
          this.skip();
          this.skipLine();
          break;
        } else if (!single && c === '\\') this.scanEscape(start);
        else this.skip();
      }
      if (this.at() === (single ? "'" : '"')) break;
      while (isBlank(this.at()) || isBreak(this.at())) {
        if (isBlank(this.at())) this.skip();
        else this.skipLine();
      }
    }
    this.skip();
    this.append('SCALAR', start);
  }

  private scanEscape(start: Mark): void {
    const codeLength: Record<string, number> = { x: 2, u: 4, U: 8 };
    const e = this.at(1);
    if (!'0abt\tnvfre "\'\\N_LPxuU'.includes(e) || isZ(e)) {
      this.error('while parsing a quoted scalar', start, 'found unknown escape character');
    }
    this.skip();
    this.skip();
    const n = codeLength[e] ?? 0;
    if (n === 0) return;
    let value = 0;
    for (let k = 0; k < n; k++) {
      if (!isHex(this.at(k))) this.error('while parsing a quoted scalar', start, 'did not find expected hexdecimal number');
      value = value * 16 + parseInt(this.at(k), 16);
    }
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
      this.error('while parsing a quoted scalar', start, 'found invalid Unicode character escape code');
    }
    for (let k = 0; k < n; k++) this.skip();
  }

  private fetchPlainScalar(): void {
    this.saveSimpleKey();
    this.simpleKeyAllowed = false;
    const start = copyMark(this.mark);
    const indent = this.indent + 1;
    let leadingBlanks = false;
    for (;;) {
      if (this.atDocumentIndicator()) break;
      if (this.at() === '#') break;
      while (!isBlankZ(this.at())) {
        const c = this.at();
        if ((c === ':' && isBlankZ(this.at(1))) || (this.flowLevel > 0 && ',?[]{}'.includes(c))) break;
        leadingBlanks = false;
        this.skip();
      }
      if (!(isBlank(this.at()) || isBreak(this.at()))) break;
      while (isBlank(this.at()) || isBreak(this.at())) {
        if (isBlank(this.at())) {
          // A tab where a continuation line's indentation should be.
          if (leadingBlanks && this.mark.column < indent && this.at() === '\t') {
            this.error('while scanning a plain scalar', start, 'found a tab character that violates indentation');
          }
          this.skip();
        } else {
          leadingBlanks = true;
          this.skipLine();
        }
      }
      if (this.flowLevel === 0 && this.mark.column < indent) break;
    }
    this.append('SCALAR', start);
    if (leadingBlanks) this.simpleKeyAllowed = true;
  }

  /** Whitespace, comments and line breaks before the next token; tabs only where they cannot be indentation. */
  private scanToNextToken(): void {
    for (;;) {
      if (this.mark.column === 0 && this.at() === '\uFEFF') this.skip();
      while (this.at() === ' ' || ((this.flowLevel > 0 || !this.simpleKeyAllowed) && this.at() === '\t')) this.skip();
      if (this.at() === '#') while (!isBreakZ(this.at())) this.skip();
      if (!isBreak(this.at())) return;
      this.skipLine();
      if (this.flowLevel === 0) this.simpleKeyAllowed = true;
    }
  }
}

/** The grammar of parserc.go over the scanner's tokens, as decode.go drives it for the first document. */
class Parser {
  private readonly tagHandles = new Set<string>();
  /** Anchors defined so far: decode.go resolves an alias when it reaches it. */
  private readonly anchors = new Set<string>();

  constructor(private readonly scanner: Scanner) {}

  private error(problem: string, at: Mark, context?: Mark): never {
    throw new ProblemFound({ stage: 'parser', problem, problemMark: copyMark(at), ...(context ? { contextMark: copyMark(context) } : {}) });
  }

  private peek(): Token {
    return this.scanner.peek();
  }

  private skip(): void {
    this.scanner.skipToken();
  }

  /** stream ::= STREAM-START implicit_document? explicit_document* STREAM-END, up to the first document's end. */
  firstDocument(): void {
    this.peek(); // STREAM-START
    this.skip();
    let token = this.peek();
    const directiveOrStart = (t: Token): boolean => t.type === 'VERSION-DIRECTIVE' || t.type === 'TAG-DIRECTIVE' || t.type === 'DOCUMENT-START';
    if (token.type === 'STREAM-END') return;
    if (!directiveOrStart(token)) {
      this.processDirectives();
      this.node(true, false);
    } else {
      this.processDirectives();
      token = this.peek();
      if (token.type !== 'DOCUMENT-START') this.error('did not find expected <document start>', token.start);
      this.skip();
      token = this.peek();
      if (!(directiveOrStart(token) || token.type === 'DOCUMENT-END' || token.type === 'STREAM-END')) this.node(true, false);
    }
    // DOCUMENT-END: one more token is looked at, whatever it is.
    this.peek();
  }

  private processDirectives(): void {
    let versionSeen = false;
    for (let token = this.peek(); token.type === 'VERSION-DIRECTIVE' || token.type === 'TAG-DIRECTIVE'; token = this.peek()) {
      if (token.type === 'VERSION-DIRECTIVE') {
        if (versionSeen) this.error('found duplicate %YAML directive', token.start);
        if (token.major !== 1 || token.minor !== 1) this.error('found incompatible YAML document', token.start);
        versionSeen = true;
      } else {
        if (this.tagHandles.has(token.handle!)) this.error('found duplicate %TAG directive', token.start);
        this.tagHandles.add(token.handle!);
      }
      this.skip();
    }
    this.tagHandles.add('!');
    this.tagHandles.add('!!');
  }

  private node(block: boolean, indentlessSequence: boolean): void {
    let token = this.peek();
    if (token.type === 'ALIAS') {
      // decode.go's alias(): failf without a line.
      if (!this.anchors.has(token.name!)) throw new ProblemFound({ stage: 'parser', problem: `unknown anchor '${token.name!}' referenced` });
      return this.skip();
    }
    const start = token.start;
    let properties = false;
    let tag: Token | undefined;
    for (const first of token.type === 'ANCHOR' ? (['ANCHOR', 'TAG'] as const) : (['TAG', 'ANCHOR'] as const)) {
      if (token.type !== first) break;
      properties = true;
      if (token.type === 'TAG') tag = token;
      else this.anchors.add(token.name!);
      this.skip();
      token = this.peek();
    }
    if (tag && tag.handle !== '' && !this.tagHandles.has(tag.handle!)) this.error('found undefined tag handle', tag.start, start);
    if (indentlessSequence && token.type === 'BLOCK-ENTRY') return this.indentlessSequence();
    if (token.type === 'SCALAR') return this.skip();
    if (token.type === 'FLOW-SEQUENCE-START') return this.flowSequence();
    if (token.type === 'FLOW-MAPPING-START') return this.flowMapping();
    if (block && token.type === 'BLOCK-SEQUENCE-START') return this.blockSequence();
    if (block && token.type === 'BLOCK-MAPPING-START') return this.blockMapping();
    if (properties) return; // an empty scalar with a tag or anchor
    this.error('did not find expected node content', token.start, start);
  }

  private blockSequence(): void {
    const start = this.peek().start;
    this.skip();
    for (;;) {
      let token = this.peek();
      if (token.type === 'BLOCK-ENTRY') {
        this.skip();
        token = this.peek();
        if (token.type !== 'BLOCK-ENTRY' && token.type !== 'BLOCK-END') this.node(true, false);
      } else if (token.type === 'BLOCK-END') {
        return this.skip();
      } else {
        this.error("did not find expected '-' indicator", token.start, start);
      }
    }
  }

  private indentlessSequence(): void {
    for (;;) {
      let token = this.peek();
      if (token.type !== 'BLOCK-ENTRY') return;
      this.skip();
      token = this.peek();
      if (!['BLOCK-ENTRY', 'KEY', 'VALUE', 'BLOCK-END'].includes(token.type)) this.node(true, false);
    }
  }

  private blockMapping(): void {
    const start = this.peek().start;
    this.skip();
    const endsEntry = (t: Token): boolean => t.type === 'KEY' || t.type === 'VALUE' || t.type === 'BLOCK-END';
    for (;;) {
      let token = this.peek();
      if (token.type === 'KEY') {
        this.skip();
        token = this.peek();
        if (!endsEntry(token)) this.node(true, true);
      } else if (token.type === 'BLOCK-END') {
        return this.skip();
      } else {
        this.error('did not find expected key', token.start, start);
      }
      token = this.peek();
      if (token.type === 'VALUE') {
        this.skip();
        token = this.peek();
        if (!endsEntry(token)) this.node(true, true);
      }
    }
  }

  private flowSequence(): void {
    const start = this.peek().start;
    this.skip();
    for (let first = true; ; first = false) {
      let token = this.flowEntry('FLOW-SEQUENCE-END', first, start);
      if (!token) return;
      if (token.type === 'KEY') {
        // A single-pair mapping inside the sequence: [a: b].
        this.skip();
        token = this.peek();
        if (token.type !== 'VALUE' && token.type !== 'FLOW-ENTRY' && token.type !== 'FLOW-SEQUENCE-END') this.node(false, false);
        else this.skip(); // yaml.v2 consumes the token after an empty key here
        this.flowValue('FLOW-SEQUENCE-END');
        this.peek();
      } else {
        this.node(false, false);
      }
    }
  }

  private flowMapping(): void {
    const start = this.peek().start;
    this.skip();
    for (let first = true; ; first = false) {
      const token = this.flowEntry('FLOW-MAPPING-END', first, start);
      if (!token) return;
      if (token.type === 'KEY') {
        this.skip();
        const next = this.peek();
        if (next.type !== 'VALUE' && next.type !== 'FLOW-ENTRY' && next.type !== 'FLOW-MAPPING-END') this.node(false, false);
        this.flowValue('FLOW-MAPPING-END');
      } else {
        this.node(false, false);
        this.peek();
      }
    }
  }

  /**
   * The start of a flow sequence or mapping entry, as parse_flow_sequence_entry and parse_flow_mapping_key share it:
   * entries after the first need a ',' before them, and the closing bracket ends the collection (also after a
   * trailing ','). Returns the entry's first token, or undefined once the closing bracket is consumed.
   */
  private flowEntry(end: 'FLOW-SEQUENCE-END' | 'FLOW-MAPPING-END', first: boolean, start: Mark): Token | undefined {
    let token = this.peek();
    if (!first && token.type !== end) {
      if (token.type !== 'FLOW-ENTRY') this.error(`did not find expected ',' or '${end === 'FLOW-SEQUENCE-END' ? ']' : '}'}'`, token.start, start);
      this.skip();
      token = this.peek();
    }
    if (token.type !== end) return token;
    this.skip();
    return undefined;
  }

  /** The value of a flow pair, when there is one: empty when a ',' or the closing bracket follows the ':'. */
  private flowValue(end: 'FLOW-SEQUENCE-END' | 'FLOW-MAPPING-END'): void {
    if (this.peek().type !== 'VALUE') return;
    this.skip();
    const token = this.peek();
    if (token.type !== 'FLOW-ENTRY' && token.type !== end) this.node(false, false);
  }
}

/** decode.go's parser.fail(): which line yaml.v2 names, and "yaml: " from failf. */
export function goYamlErrorText(p: GoYamlProblem): string {
  let line = 0;
  if (p.problemMark && p.problemMark.line !== 0) {
    // Scanner marks are 0-based lines that fail() adds one to; parser marks are printed as they are.
    line = p.problemMark.line + (p.stage === 'scanner' ? 1 : 0);
  } else if (p.contextMark && p.contextMark.line !== 0) {
    line = p.contextMark.line;
  }
  return `yaml: ${line !== 0 ? `line ${line}: ` : ''}${p.problem}`;
}

/**
 * The error yaml.v2's Unmarshal returns for this YAML text ("yaml: line 4: did not find expected key"), or
 * undefined when its reader, scanner and parser accept the first document.
 */
export function goYamlSyntaxError(text: string): string | undefined {
  try {
    new Parser(new Scanner(text)).firstDocument();
    return undefined;
  } catch (err) {
    if (err instanceof ProblemFound) return goYamlErrorText(err.found);
    throw err;
  }
}

/** Whether yaml.v2's reader refuses some character of the text (the `yaml` package accepts them). */
export function hasGoYamlUnprintable(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(text);
}
