import { addAuditAnnotation, addWarnings, goJsonMarshal, matchErrorStatus, recordedWarningTexts, toStatusErr } from './dispatch.js';
import { configMapAttributes } from './test-fixtures.js';

describe('toStatusErr', () => {
  it('keeps the webhook\'s reason, details and metadata and forces status Failure', () => {
    const err = toStatusErr('w.example.com', { status: 'Success', code: 409, reason: 'Conflict', message: 'busy', details: { retryAfterSeconds: 3 }, metadata: { resourceVersion: '7' } });
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
      status: 'Failure',
      code: 409,
      reason: 'Conflict',
      message: 'admission webhook "w.example.com" denied the request: busy',
      details: { retryAfterSeconds: 3 },
    });
  });

  it('denies without explanation and with 400 when the webhook sent no status', () => {
    expect(toStatusErr('w', undefined).status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 400, message: 'admission webhook "w" denied the request without explanation' });
  });
});

describe('matchErrorStatus', () => {
  it('turns the matcher\'s messages back into their Status', () => {
    expect(matchErrorStatus('Internal error occurred: bad selector').status).toMatchObject({ code: 500, reason: 'InternalError', details: { causes: [{ message: 'bad selector' }] } });
    expect(matchErrorStatus('namespaces "gone" not found').status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "gone" not found', details: { name: 'gone', kind: 'namespaces' } });
  });
});

describe('addAuditAnnotation', () => {
  it('accepts "<prefix>/<name>" keys once, refusing other formats and overwrites as kube\'s attributes do', () => {
    const attrs = configMapAttributes();
    expect(addAuditAnnotation(attrs, 'w.example.com/decision', 'allow')).toBe(true);
    expect(addAuditAnnotation(attrs, 'w.example.com/decision', 'allow')).toBe(true);
    expect(addAuditAnnotation(attrs, 'w.example.com/decision', 'deny')).toBe(false);
    expect(addAuditAnnotation(attrs, 'w.example.com/a/b', 'x')).toBe(false);
    expect(addAuditAnnotation(attrs, 'no-prefix', 'x')).toBe(false);
    expect(addAuditAnnotation(attrs, 'w.example.com/bad key', 'x')).toBe(false);
    expect(attrs.annotations).toEqual({ 'w.example.com/decision': 'allow' });
  });
});

describe('warnings', () => {
  it('adds the webhook\'s warnings except the ones kube drops', () => {
    const attrs = configMapAttributes();
    addWarnings(attrs, ['ok', '', 'line\nbreak', 'tab\there', 'ünïcode', 'lone \ud800']);
    expect(attrs.warnings).toEqual(['ok', 'ünïcode', 'lone \ufffd']);
  });

  it('dedupes, and past 4096 runes truncates every warning to 256 runes as kube\'s recorder does', () => {
    const long = (c: string, n: number) => c.repeat(n);
    expect(recordedWarningTexts(['a', 'b', 'a', ''])).toEqual(['a', 'b']);
    const out = recordedWarningTexts([long('a', 2000), long('b', 2000), long('c', 2000), long('d', 300), long('e', 10)]);
    expect(out).toEqual([long('a', 256), long('b', 256), long('c', 256), long('d', 256), long('e', 10)]);
    const many = Array.from({ length: 20 }, (_, i) => long(String.fromCharCode(0x41 + i), 300));
    expect(recordedWarningTexts(many)).toHaveLength(16);
  });
});

describe('goJsonMarshal', () => {
  it('escapes as encoding/json does and sorts map keys when asked', () => {
    expect(goJsonMarshal({ b: '<a & b>', a: ['\u2028', 1.5, true, null] }, true)).toBe('{"a":["\\u2028",1.5,true,null],"b":"\\u003ca \\u0026 b\\u003e"}');
    expect(goJsonMarshal({ b: 1, a: 2 })).toBe('{"b":1,"a":2}');
  });
});
