// Go's encoding/csv Reader with its defaults (comma ',', no comments, strict quotes, variable field counts):
// kube parses --token-auth-file and pflag parses every string-slice flag with it, and its ParseError text
// ("parse error on line 2, column 5: bare \" in non-quoted-field") is what users of kube-apiserver see.

export interface CsvRecord {
  fields: string[];
  /** 1-based line the record starts on */
  line: number;
}

export type CsvResult = { ok: true; records: CsvRecord[] } | { ok: false; error: string; line: number };

const errBareQuote = 'bare " in non-quoted-field';
const errQuote = 'extraneous or missing " in quoted-field';

const QUOTE = 0x22;
const COMMA = 0x2c;
const NL = 0x0a;
const CR = 0x0d;

/** csv.ParseError.Error() */
function parseError(startLine: number, line: number, column: number, err: string): { ok: false; error: string; line: number } {
  const error =
    startLine !== line ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${err}` : `parse error on line ${line}, column ${column}: ${err}`;
  return { ok: false, error, line };
}

class LineReader {
  private offset = 0;
  numLine = 0;
  constructor(private readonly buf: Uint8Array) {}

  /** Reader.readLine: one line with its "\n" (CRLF normalized), or null at EOF. */
  readLine(): Uint8Array | null {
    if (this.offset >= this.buf.length) return null;
    let end = this.buf.indexOf(NL, this.offset);
    let line: Uint8Array;
    if (end < 0) {
      line = this.buf.subarray(this.offset);
      this.offset = this.buf.length;
      // Go drops a trailing \r before EOF.
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    } else {
      end += 1;
      line = this.buf.subarray(this.offset, end);
      this.offset = end;
      const n = line.length;
      if (n >= 2 && line[n - 2] === CR) line = Uint8Array.from([...line.subarray(0, n - 2), NL]);
    }
    this.numLine++;
    return line;
  }
}

function lengthNL(b: Uint8Array): number {
  return b.length > 0 && b[b.length - 1] === NL ? 1 : 0;
}

const decoder = new TextDecoder();

type RecordResult = { kind: 'eof' } | { kind: 'record'; record: CsvRecord } | { kind: 'error'; error: { ok: false; error: string; line: number } };

function readRecord(r: LineReader): RecordResult {
  let line: Uint8Array | null;
  // Skip empty lines.
  for (;;) {
    line = r.readLine();
    if (line === null) return { kind: 'eof' };
    if (line.length === lengthNL(line)) continue;
    break;
  }
  const recLine = r.numLine;
  const fields: string[] = [];
  let col = 1;
  let cur: Uint8Array = line;
  for (;;) {
    if (cur.length === 0 || cur[0] !== QUOTE) {
      // Non-quoted field.
      const i = cur.indexOf(COMMA);
      const field = i >= 0 ? cur.subarray(0, i) : cur.subarray(0, cur.length - lengthNL(cur));
      const j = field.indexOf(QUOTE);
      if (j >= 0) return { kind: 'error', error: parseError(recLine, r.numLine, col + j, errBareQuote) };
      fields.push(decoder.decode(field));
      if (i >= 0) {
        cur = cur.subarray(i + 1);
        col += i + 1;
        continue;
      }
      break;
    }
    // Quoted field, possibly spanning lines.
    const parts: number[] = [];
    cur = cur.subarray(1);
    col += 1;
    let done: 'field' | 'record';
    for (;;) {
      const i = cur.indexOf(QUOTE);
      if (i >= 0) {
        parts.push(...cur.subarray(0, i));
        cur = cur.subarray(i + 1);
        col += i + 1;
        if (cur.length > 0 && cur[0] === QUOTE) {
          parts.push(QUOTE);
          cur = cur.subarray(1);
          col += 1;
        } else if (cur.length > 0 && cur[0] === COMMA) {
          cur = cur.subarray(1);
          col += 1;
          done = 'field';
          break;
        } else if (lengthNL(cur) === cur.length) {
          done = 'record';
          break;
        } else {
          return { kind: 'error', error: parseError(recLine, r.numLine, col - 1, errQuote) };
        }
      } else if (cur.length > 0) {
        parts.push(...cur);
        col += cur.length;
        const next = r.readLine();
        if (next === null) {
          // Abrupt end of file inside quotes.
          return { kind: 'error', error: parseError(recLine, r.numLine, col, errQuote) };
        }
        cur = next;
        if (next.length > 0) col = 1;
      } else {
        return { kind: 'error', error: parseError(recLine, r.numLine, col, errQuote) };
      }
    }
    fields.push(decoder.decode(Uint8Array.from(parts)));
    if (done === 'record') break;
  }
  return { kind: 'record', record: { fields, line: recLine } };
}

/** Reads every record (csv.Reader with FieldsPerRecord = -1). */
export function parseGoCsv(text: string): CsvResult {
  const r = new LineReader(new TextEncoder().encode(text));
  const records: CsvRecord[] = [];
  for (;;) {
    const res = readRecord(r);
    if (res.kind === 'eof') return { ok: true, records };
    if (res.kind === 'error') return res.error;
    records.push(res.record);
  }
}

/** pflag's readAsCSV: the first record of a flag value ("" is an empty list). */
export function readFlagCsv(value: string): { ok: true; values: string[] } | { ok: false; error: string } {
  if (value === '') return { ok: true, values: [] };
  const r = new LineReader(new TextEncoder().encode(value));
  const res = readRecord(r);
  if (res.kind === 'eof') return { ok: false, error: 'EOF' };
  if (res.kind === 'error') return { ok: false, error: res.error.error };
  return { ok: true, values: res.record.fields };
}
