// "Authorization: Bearer <token>" (k8s.io/apiserver/pkg/authentication/request/bearertoken) over kube's token
// union (token file, then service-account tokens: the first to recognize the token answers, errors are aggregated),
// with authenticator.WrapAudienceAgnosticToken around the audience-unaware token sources.
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

  private readonly tokens: readonly TokenAuthenticator[];

  /** apiAudiences: the audiences an audience-unaware token (the token file) is implicitly good for. */
  constructor(
    tokens: TokenAuthenticator | readonly TokenAuthenticator[],
    private readonly apiAudiences: readonly string[] = [],
  ) {
    this.tokens = Array.isArray(tokens) ? tokens : [tokens as TokenAuthenticator];
  }

  async authenticateRequest(req: AuthenticationRequest, warnings: string[]): Promise<AuthenticatorResponse> {
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
    // tokenunion: the first authenticator that recognizes the token answers; errors are aggregated
    const errs: string[] = [];
    for (const t of this.tokens) {
      const resp = await this.authenticateForAudiences(t, token, req.audiences);
      if (resp.kind === 'authenticated') return resp;
      if (resp.kind === 'error') errs.push(resp.error);
    }
    // A bearer token nobody recognizes is an error, so anonymous access never hides a bad token.
    if (errs.length === 0) return { kind: 'error', error: invalidBearerToken };
    return { kind: 'error', error: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
  }

  private async authenticateForAudiences(tokens: TokenAuthenticator, token: string, target: readonly string[] | undefined): Promise<AuthenticatorResponse> {
    if (tokens.audienceAware) return tokens.authenticateToken(token, target);
    if (target === undefined || target.length === 0) return tokens.authenticateToken(token);
    const auds = this.apiAudiences.filter((a) => target.includes(a));
    if (auds.length === 0) return { kind: 'unrecognized' };
    const resp = await tokens.authenticateToken(token);
    if (resp.kind !== 'authenticated') return resp;
    return { ...resp, audiences: auds };
  }
}
