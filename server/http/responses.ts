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

export function writeJSON(res: Response, code: number, body: KubeObject | Status | object): void {
  res.status(code).type('application/json').send(JSON.stringify(body));
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
