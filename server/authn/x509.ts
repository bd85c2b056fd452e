// x509 client-certificate authentication (k8s.io/apiserver/pkg/authentication/request/x509): a verified
// certificate's CN is the username and its O values are the groups. Node verifies the chain in the TLS
// handshake (requestCert, rejectUnauthorized: false), so here a presented-but-unverified certificate is an
// error, as a failed Verify() is in kube.
import type { TLSSocket } from 'node:tls';
import type { AuthenticationRequest, AuthenticatorResponse, ClientCertInfo, RequestAuthenticator } from './types.js';

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);

/**
 * The client certificate of a TLS socket, or undefined when none was presented (or the socket is plain TCP,
 * as under supertest). getPeerCertificate() gives O as a string for one value and an array for several.
 */
export function clientCertFromSocket(socket: TLSSocket): ClientCertInfo | undefined {
  if (typeof socket?.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate();
  if (!peer || Object.keys(peer).length === 0 || !peer.subject) return undefined;
  const subject = peer.subject as unknown as Record<string, unknown>;
  const cns = asList(subject['CN']);
  const info: ClientCertInfo = {
    verified: socket.authorized === true,
    // Go's pkix.Name keeps the last CN.
    commonName: cns[cns.length - 1] ?? '',
    organizations: asList(subject['O']),
  };
  if (socket.authorizationError) info.verifyError = String(socket.authorizationError);
  return info;
}

export class X509Authenticator implements RequestAuthenticator {
  readonly name = 'x509' as const;

  authenticateRequest(req: AuthenticationRequest): AuthenticatorResponse {
    const cert = req.clientCert;
    if (!cert) return { kind: 'unrecognized' };
    if (!cert.verified) {
      return { kind: 'error', error: `verifying certificate CN=${cert.commonName} failed: ${cert.verifyError ?? 'certificate signed by unknown authority'}` };
    }
    // CommonNameUserConversion: no CN, no user (and no error).
    if (cert.commonName === '') return { kind: 'unrecognized' };
    return { kind: 'authenticated', user: { username: cert.commonName, groups: [...cert.organizations] } };
  }
}
