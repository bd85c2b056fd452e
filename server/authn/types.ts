// The authentication seam: the HTTP layer fills an AuthenticationRequest from the request and its TLS socket,
// the chain answers with a user or a 401 Status, as k8s.io/apiserver's authenticator.Request does.
import type { StatusError } from '../api/errors.js';
import type { UserInfo } from '../api/types.js';

/** k8s.io/apiserver/pkg/authentication/user constants. */
export const anonymousUser = 'system:anonymous';
export const allUnauthenticated = 'system:unauthenticated';
export const allAuthenticated = 'system:authenticated';
export const systemPrivilegedGroup = 'system:masters';

/** What the TLS layer knows of the client certificate. */
export interface ClientCertInfo {
  /** the chain verified against --client-ca-file (TLSSocket.authorized) */
  verified: boolean;
  /** the subject CN: the username */
  commonName: string;
  /** the subject O values: the groups */
  organizations: string[];
  /** why verification failed (TLSSocket.authorizationError), for the log */
  verifyError?: string;
}

/** Node's IncomingHttpHeaders, or any header map (names matched case-insensitively). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

export interface AuthenticationRequest {
  headers: RequestHeaders;
  clientCert?: ClientCertInfo | undefined;
  /** audiences the credential must be good for (TokenReview spec.audiences, or the API audiences) */
  audiences?: readonly string[];
}

/** One authenticator's answer: a user, "not my kind of credential", or a credential it rejects. */
export type AuthenticatorResponse =
  | { kind: 'authenticated'; user: UserInfo; audiences?: string[] }
  | { kind: 'unrecognized' }
  | { kind: 'error'; error: string };

export interface RequestAuthenticator {
  /** for logs and the result's `method` */
  readonly name: AuthenticationMethod;
  authenticateRequest(req: AuthenticationRequest, warnings: string[]): AuthenticatorResponse | Promise<AuthenticatorResponse>;
}

export interface TokenAuthenticator {
  /**
   * audience-aware authenticators (service-account tokens) check `audiences` themselves; the others are wrapped as
   * kube's WrapAudienceAgnosticToken does (good for the API audiences only)
   */
  readonly audienceAware?: boolean;
  /** answers synchronously when it can (the token file), asynchronously when it reads objects (service accounts) */
  authenticateToken(token: string, audiences?: readonly string[]): AuthenticatorResponse | Promise<AuthenticatorResponse>;
}

export type AuthenticationMethod = 'x509' | 'token' | 'anonymous';

/** The chain's answer for a request. */
export type AuthenticationResult =
  | { ok: true; user: UserInfo; method: AuthenticationMethod; audiences?: string[]; warnings: string[] }
  /** `status` is the 401 to send; `reason` is for the log only (kube never tells the client why) */
  | { ok: false; status: StatusError; reason: string; warnings: string[] };

export interface Authenticator {
  authenticate(req: AuthenticationRequest): Promise<AuthenticationResult>;
}
