import type { Response } from 'express';
import { addWarnings, warningHeaderValue, warningLimits } from './responses.js';

/** The header half of a response: what addWarnings uses. */
function fakeResponse(): Response & { warnings(): string[] } {
  let values: string[] = [];
  const res = {
    headersSent: false,
    append(name: string, value: string) {
      if (name === 'Warning') values.push(value);
      return res;
    },
    removeHeader(name: string) {
      if (name === 'Warning') values = [];
    },
    warnings: () => values.map((v) => Buffer.from(v, 'latin1').toString('utf8')),
  };
  return res as unknown as Response & { warnings(): string[] };
}

describe("Warning header values as kube's net.NewWarningHeader(299, \"-\", text) builds them", () => {
  it.each([
    ['plain', '299 - "plain"'],
    ['say "hi" \\ there', '299 - "say \\"hi\\" \\\\ there"'],
    ['unknown field "€"', '299 - "unknown field \\"€\\""'],
    ['f\uFFFD', '299 - "f\uFFFD"'],
    ['tab\there', undefined],
    ['nul\u0000', undefined],
    ['del\u007f', undefined],
    ['c1\u0085', undefined],
  ])('%j → %j', (text, header) => {
    const v = warningHeaderValue(text);
    // the value carries UTF-8 bytes as latin1 characters, which node writes unchanged
    expect(v === undefined ? undefined : Buffer.from(v, 'latin1').toString('utf8')).toBe(header);
    if (v !== undefined) expect(v).toMatch(/^[\x20-\xff]*$/);
  });
});

describe("the warning recorder's limits (k8s.io/apiserver/pkg/endpoints/filters/warning.go)", () => {
  it('drops empty and repeated texts, across calls for one response', () => {
    const res = fakeResponse();
    addWarnings(res, ['a', '', 'b', 'a']);
    addWarnings(res, ['b', 'c']);
    expect(res.warnings()).toEqual(['299 - "a"', '299 - "b"', '299 - "c"']);
  });

  it('writes texts whole until 4096 runes, then cuts all to 256 runes and stops at the total', () => {
    const res = fakeResponse();
    const texts = Array.from({ length: 30 }, (_, i) => `${i}`.padStart(3, '0') + '€'.repeat(997));
    addWarnings(res, texts);
    // 4 whole (4000 runes); the 5th passes 4096: 5 × 256 replayed, then 11 more of 256 reach 4096
    const cut = (t: string) => `299 - "${[...t].slice(0, warningLimits.itemRunes).join('')}"`;
    expect(res.warnings()).toEqual(texts.slice(0, 16).map(cut));
  });

  it('counts a refused text as recorded without writing it', () => {
    const res = fakeResponse();
    addWarnings(res, ['bad\n', 'ok', 'bad\n']);
    expect(res.warnings()).toEqual(['299 - "ok"']);
  });

  it('never throws, even when the response refuses a header', () => {
    const res = fakeResponse();
    res.append = () => {
      throw new Error('boom');
    };
    expect(() => addWarnings(res, ['x'])).not.toThrow();
  });
});
