import { isLocalHost, offersHttp2 } from './http2-connection.js';

// k8s.io/apiserver/pkg/util/webhook/client_test.go TestWebhookClientConfig: which client configs may use HTTP/2
describe('offersHttp2 (kube hookClientConfig: h2 only for URL webhooks on the local host)', () => {
  it.each([
    ['force http1', { url: 'https://webhook.example.com' }, false],
    ['allow http2 for localhost', { url: 'https://localhost' }, true],
    ['allow http2 for 127.0.0.1', { url: 'https://127.0.0.1' }, true],
    ['allow http2 for [::1]:0', { url: 'https://[::1]' }, true],
    ['a port does not matter', { url: 'https://127.0.0.1:8443/validate' }, true],
    ['LOCALHOST in capitals', { url: 'https://LOCALHOST:9443' }, true],
    ['any 127/8 address is loopback', { url: 'https://127.1.2.3' }, true],
    ['a private address is not', { url: 'https://10.0.0.1' }, false],
    ['a service reference never', { service: { namespace: 'ns', name: 'webhook' } }, false],
  ])('%s', (_name, cc, expected) => {
    expect(offersHttp2(cc)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::2', false],
    ['localhost.example.com', false],
  ])('isLocalHost(%s) is %s', (host, expected) => {
    expect(isLocalHost(host)).toBe(expected);
  });
});
