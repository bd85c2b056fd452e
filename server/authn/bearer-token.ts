// "Authorization: Bearer <token>" (k8s.io/apiserver/pkg/authentication/request/bearertoken), with the
// audience handling of authenticator.WrapAudienceAgnosticToken around an audience-unaware token source.
import type { AuthenticationRequest, AuthenticatorResponse, RequestAuthenticator, RequestHeaders, TokenAuthenticator } from './types.js';

export const invalidBearerToken = 'invalid bearer token';
export const invalidTokenWithSpaceWarning = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** The first value of a header, matched case-insensitively (Go's Header.Get). */
export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== lower || v === undefined) continue;
    return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

export class BearerTokenAuthenticator implements RequestAuthenticator {
  readonly name = 'token' as const;

  /** apiAudiences: the audiences an audience-unaware token (the token file) is implicitly good for. */
  constructor(
    private readonly tokens: TokenAuthenticator,
    private readonly apiAudiences: readonly string[] = [],
  ) {}

  authenticateRequest(req: AuthenticationRequest, warnings: string[]): AuthenticatorResponse {
    const auth = (headerValue(req.headers, 'authorization') ?? '').trim();
    if (auth === '') return { kind: 'unrecognized' };
    const parts = auth.split(' ');
    if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return { kind: 'unrecognized' };
    // strings.SplitN(auth, " ", 3): anything after a second space is ignored.
    const token = parts[1]!;
    if (token === '') {
      if (parts.length >= 3) warnings.push(invalidTokenWithSpaceWarning);
      return { kind: 'unrecognized' };
    }
    const resp = this.authenticateForAudiences(token, req.audiences);
    // A bearer token nobody recognizes is an error, so anonymous access never hides a bad token.
    if (resp.kind === 'unrecognized') return { kind: 'error', error: invalidBearerToken };
    return resp;
  }

  private authenticateForAudiences(token: string, target: readonly string[] | undefined): AuthenticatorResponse {
    if (target === undefined || target.length === 0) return this.tokens.authenticateToken(token);
    const auds = this.apiAudiences.filter((a) => target.includes(a));
    if (auds.length === 0) return { kind: 'unrecognized' };
    const resp = this.tokens.authenticateToken(token);
    if (resp.kind !== 'authenticated') return resp;
    return { ...resp, audiences: auds };
  }
}
