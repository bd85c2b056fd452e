import { BoundedBody, defaultWebhookResponseMaxBytes, responseTooLargeError, webhookResponseMaxBytesFrom } from './response-limit.js';

describe('webhook response bound', () => {
  it('collects a body up to the bound, byte for byte', () => {
    const b = new BoundedBody(10);
    expect(b.add(Buffer.from('hello'))).toBe(true);
    expect(b.add(Buffer.from('world'))).toBe(true);
    expect(b.exceeded).toBe(false);
    expect(b.bytes().toString()).toBe('helloworld');
  });

  it('fails once one byte more than the bound arrives, and keeps nothing of it', () => {
    const b = new BoundedBody(10);
    expect(b.add(Buffer.from('hello'))).toBe(true);
    expect(b.add(Buffer.from('world!'))).toBe(false);
    expect(b.exceeded).toBe(true);
    expect(b.add(Buffer.from('x'))).toBe(false);
    expect(b.bytes().length).toBe(0);
  });

  it.each([
    [undefined, false],
    ['10', false],
    ['11', true],
    ['not-a-number', false], // Node rejects a malformed Content-Length before here; counting bytes still bounds it
  ])('judges a declared Content-Length %s against a bound of 10: too large %s', (cl, want) => {
    expect(BoundedBody.declaredTooLarge(cl, 10)).toBe(want);
  });

  it('says so in client-go\'s wording for a body it could not read', () => {
    expect(responseTooLargeError(16_777_216)).toBe('unexpected error when reading response body. Please retry. Original error: http: response body too large (limit 16777216 bytes)');
  });

  it('reads KAH_WEBHOOK_RESPONSE_MAX_BYTES, keeping the default for anything but a positive integer', () => {
    expect(webhookResponseMaxBytesFrom({})).toBe(defaultWebhookResponseMaxBytes);
    expect(webhookResponseMaxBytesFrom({ KAH_WEBHOOK_RESPONSE_MAX_BYTES: '4096' })).toBe(4096);
    for (const bad of ['', '0', '-5', '2.5', 'big']) expect(webhookResponseMaxBytesFrom({ KAH_WEBHOOK_RESPONSE_MAX_BYTES: bad })).toBe(defaultWebhookResponseMaxBytes);
  });
});
