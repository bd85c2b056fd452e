// The request authenticator kube-apiserver builds (pkg/kubeapiserver/authenticator/config.go): x509, then
// bearer tokens, as a union; system:authenticated added to whoever it finds; anonymous only when nothing
// matched and nothing failed ("don't consider a bad bearer token anonymous").
import { errors } from '../api/errors.js';
import type { UserInfo } from '../api/types.js';
import { BearerTokenAuthenticator } from './bearer-token.js';
import { loadTokenFile, TokenFileAuthenticator } from './token-file.js';
import {
  allAuthenticated,
  allUnauthenticated,
  anonymousUser,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from './types.js';
import { X509Authenticator } from './x509.js';

export interface AuthenticatorConfig {
  /** authenticate verified client certificates (kube: --client-ca-file is set) */
  clientCertificates: boolean;
  /**
   * --token-auth-file. Without it every bearer token is still rejected with 401, as on a real kube-apiserver
   * (whose service-account authenticator rejects tokens it does not know).
   */
  tokens?: TokenAuthenticator;
  /** service-account JWTs (--service-account-issuer and its keys), after the token file as in kube's union */
  serviceAccountTokens?: TokenAuthenticator;
  /** --anonymous-auth */
  anonymous: boolean;
  /** --api-audiences; empty by default */
  apiAudiences?: readonly string[];
}

/** utilerrors.NewAggregate's text: one error bare, several in brackets. */
function aggregate(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

/** group.AuthenticatedGroupAdder: unless the user already is in system:authenticated or system:unauthenticated. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups ?? [];
  if (groups.includes(allAuthenticated) || groups.includes(allUnauthenticated)) return user;
  return { ...user, groups: [...groups, allAuthenticated] };
}

export class UnionAuthenticator implements Authenticator {
  private readonly handlers: RequestAuthenticator[];
  private readonly anonymous: boolean;
  private readonly apiAudiences: readonly string[];

  constructor(cfg: AuthenticatorConfig) {
    this.handlers = [];
    if (cfg.clientCertificates) this.handlers.push(new X509Authenticator());
    this.apiAudiences = cfg.apiAudiences ?? [];
    const tokens: TokenAuthenticator[] = [cfg.tokens ?? new TokenFileAuthenticator(new Map())];
    if (cfg.serviceAccountTokens) tokens.push(cfg.serviceAccountTokens);
    this.handlers.push(new BearerTokenAuthenticator(tokens, this.apiAudiences));
    this.anonymous = cfg.anonymous;
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult> {
    const warnings: string[] = [];
    const errs: string[] = [];
    // The authentication filter puts the API audiences on every request that does not bring its own.
    const audReq: AuthenticationRequest = req.audiences === undefined && this.apiAudiences.length > 0 ? { ...req, audiences: this.apiAudiences } : req;
    for (const h of this.handlers) {
      const r = await h.authenticateRequest(audReq, warnings);
      if (r.kind === 'error') {
        errs.push(r.error);
        continue;
      }
      if (r.kind === 'unrecognized') continue;
      const targets = audReq.audiences ?? [];
      if (targets.length > 0 && r.audiences && r.audiences.length > 0 && !r.audiences.some((a) => targets.includes(a))) {
        return { ok: false, status: errors.unauthorized(), reason: `Unable to match the audience: ${r.audiences.join(',')}`, warnings };
      }
      const result: AuthenticationResult = { ok: true, user: withAuthenticatedGroup(r.user), method: h.name, warnings };
      if (r.audiences) result.audiences = r.audiences;
      return result;
    }
    if (errs.length > 0) return { ok: false, status: errors.unauthorized(), reason: aggregate(errs), warnings };
    if (this.anonymous) return { ok: true, user: { username: anonymousUser, groups: [allUnauthenticated] }, method: 'anonymous', warnings };
    return { ok: false, status: errors.unauthorized(), reason: 'no credentials, and anonymous requests are disabled', warnings };
  }
}

export function buildAuthenticator(cfg: AuthenticatorConfig): Authenticator {
  return new UnionAuthenticator(cfg);
}

export interface AuthenticatorFiles {
  clientCertificates: boolean;
  /** --token-auth-file, read and parsed here */
  tokenAuthFile?: string | undefined;
  anonymous: boolean;
  apiAudiences?: readonly string[];
  serviceAccountTokens?: TokenAuthenticator;
}

export type LoadAuthenticatorResult = { ok: true; authenticator: Authenticator; warnings: string[] } | { ok: false; errors: string[] };

/** Startup edge: reads --token-auth-file and builds the chain; a bad file is an error value naming file and line. */
export async function loadAuthenticator(cfg: AuthenticatorFiles): Promise<LoadAuthenticatorResult> {
  const base: AuthenticatorConfig = { clientCertificates: cfg.clientCertificates, anonymous: cfg.anonymous };
  if (cfg.apiAudiences) base.apiAudiences = cfg.apiAudiences;
  if (cfg.serviceAccountTokens) base.serviceAccountTokens = cfg.serviceAccountTokens;
  if (!cfg.tokenAuthFile) return { ok: true, authenticator: buildAuthenticator(base), warnings: [] };
  const tokens = await loadTokenFile(cfg.tokenAuthFile);
  if (!tokens.ok) return { ok: false, errors: [tokens.error] };
  return { ok: true, authenticator: buildAuthenticator({ ...base, tokens: tokens.authenticator }), warnings: tokens.warnings };
}
