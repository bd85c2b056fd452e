// Writing API responses the way kube-apiserver does: JSON bodies, Status errors, Warning headers.
import type { Response } from 'express';
import { toStatusError } from '../api/errors.js';
import type { KubeObject, Status } from '../api/types.js';

/** RFC 7234 warn-code 299 with agent "-", the form kube-apiserver uses: `299 - "text"`. */
export function warningHeaderValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

export function addWarnings(res: Response, warnings: readonly string[]): void {
  const seen = new Set<string>();
  for (const w of warnings) {
    if (seen.has(w) || res.headersSent) continue;
    seen.add(w);
    res.append('Warning', warningHeaderValue(w));
  }
}

/**
 * The same headers express's res.type('application/json').send() sets (no ETag: the app disables it), written
 * with a string body: node then sends headers and body in one write, one TLS record, where send() converts the
 * body to a Buffer and writes the two separately.
 */
export function writeJSON(res: Response, code: number, body: KubeObject | Status | object): void {
  const text = JSON.stringify(body);
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function writeError(res: Response, err: unknown): void {
  const se = toStatusError(err);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(se.headers)) res.setHeader(k, v);
  writeJSON(res, se.code, se.status);
}
