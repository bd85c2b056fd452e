// `expect:` of an API step against what the server answered. Pure: every mismatch becomes one sentence, so a failed
// step says all that differed ("expected code 422, got 201; message … does not contain …").
import { isDeepStrictEqual } from 'node:util';
import { JSONPath } from 'jsonpath-plus';
import type { ApiCallResult } from './api-call.js';
import type { ApiExpect } from './scenario-types.js';

interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
  code?: unknown;
}

function statusOf(body: unknown): StatusBody {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as StatusBody) : {};
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? 'nothing' : s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** What the server said, for messages: "422 Invalid: configmaps \"x\" is forbidden: …". */
export function describeAnswer(result: ApiCallResult): string {
  const s = statusOf(result.body);
  if (s.kind === 'Status') return `${result.status}${typeof s.reason === 'string' && s.reason ? ` ${s.reason}` : ''}: ${short(s.message)}`;
  return String(result.status);
}

/** The values a JSONPath selects; jsonpath-plus throws on malformed expressions. */
function select(path: string, body: unknown): { values: unknown[] } | { error: string } {
  try {
    // jsonpath-plus takes `null | boolean | number | string | object | any[]`; a parsed JSON body is one of those.
    const values = JSONPath({ path, json: body as object, wrap: true }) as unknown[];
    return { values };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Every way `result` differs from `expect`; empty when it matches. */
export function compareExpect(expect: ApiExpect, result: ApiCallResult): string[] {
  const problems: string[] = [];
  const allowed = result.status >= 200 && result.status < 300;
  const status = statusOf(result.body);
  const message = typeof status.message === 'string' ? status.message : '';
  if (expect.code !== undefined && result.status !== expect.code) problems.push(`expected code ${expect.code}, got ${describeAnswer(result)}`);
  else if (expect.allowed !== allowed) {
    problems.push(expect.allowed ? `expected the request to be allowed, got ${describeAnswer(result)}` : `expected the request to be denied, got ${result.status}`);
  }
  if (expect.reason !== undefined && status.reason !== expect.reason) problems.push(`expected reason ${expect.reason}, got ${status.reason === undefined ? 'none' : short(status.reason)}`);
  for (const want of expect.messageContains) {
    if (!message.includes(want)) problems.push(`expected the message to contain ${JSON.stringify(want)}, got ${message === '' ? 'no message' : JSON.stringify(message)}`);
  }
  for (const want of expect.warningsContain) {
    if (!result.warnings.some((w) => w.includes(want))) {
      problems.push(`expected a warning containing ${JSON.stringify(want)}, got ${result.warnings.length === 0 ? 'no warnings' : JSON.stringify(result.warnings)}`);
    }
  }
  if (expect.noWarnings && result.warnings.length > 0) problems.push(`expected no warnings, got ${JSON.stringify(result.warnings)}`);
  for (const [path, want] of Object.entries(expect.jsonPath)) {
    const got = select(path, result.body);
    if ('error' in got) problems.push(`jsonPath ${path}: ${got.error}`);
    else if (got.values.length === 0) problems.push(`jsonPath ${path}: expected ${short(want)}, but it matches nothing`);
    else {
      // One match compares as the value itself; several compare as the list of matches.
      const actual = got.values.length === 1 ? got.values[0] : got.values;
      if (!isDeepStrictEqual(actual, want)) problems.push(`jsonPath ${path}: expected ${short(want)}, got ${short(actual)}`);
    }
  }
  return problems;
}
