import { certificateRequestPem } from '../../../../test/support/csr.js';
import { checkCertificateRequest, checkIssuedCertificate, goBytes } from './csr-request.js';

describe('checkCertificateRequest (kube validateCSR: certificates.ParseCSR then CheckSignature)', () => {
  it.each([['ed25519'], ['ec']] as const)('accepts a well-signed %s request', (keyType) => {
    expect(checkCertificateRequest(Buffer.from(certificateRequestPem({ commonName: 'alice', keyType })))).toBeUndefined();
  });

  it.each([
    ['not PEM at all', Buffer.from('hello')],
    ['an empty request', Buffer.alloc(0)],
    ['a PEM block of another type', Buffer.from('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n')],
  ])('refuses %s with ParseCSR\'s message', (_n, bytes) => {
    expect(checkCertificateRequest(bytes)).toBe('PEM block type must be CERTIFICATE REQUEST');
  });

  it('refuses a request whose subject is not what was signed', () => {
    expect(checkCertificateRequest(Buffer.from(certificateRequestPem({ commonName: 'alice', tamper: true })))).toBe('x509: Ed25519 verification failure');
    expect(checkCertificateRequest(Buffer.from(certificateRequestPem({ commonName: 'alice', keyType: 'ec', tamper: true })))).toBe('x509: ECDSA verification failure');
  });

  it('refuses a CERTIFICATE REQUEST block whose body is not DER', () => {
    expect(checkCertificateRequest(Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n'))).toBe('x509: malformed certificate request');
  });

  it("prints bytes as Go's %#v of a []byte", () => {
    expect(goBytes(Buffer.from([0x68, 0x0a, 0x00]))).toBe('[]byte{0x68, 0xa, 0x0}');
  });
});

describe('checkIssuedCertificate (kube validateCertificate of status.certificate)', () => {
  it.each([
    ['empty content is allowed', '', undefined],
    ['no PEM block', 'cert', 'must contain at least one CERTIFICATE PEM block'],
    ['a block of another type', '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n', 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"'],
    ['a block with headers', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END CERTIFICATE-----\n', 'no PEM block headers are permitted'],
  ])('%s', (_n, pem, expected) => {
    expect(checkIssuedCertificate(Buffer.from(pem))).toBe(expected);
  });
});
