// Service-account JWTs (pkg/serviceaccount/jwt.go jwtTokenAuthenticator and claims.go validator): tokens whose
// unverified `iss` is one of --service-account-issuer are this authenticator's; their signature is checked with the
// --service-account-key-file keys (the `kid` header picks them), then issuer, audiences, times (go-jose's 1 minute
// leeway) and — with --service-account-lookup, the default — that the service account and the bound pod, secret or
// node still exist with the uid the token names. Texts are kube's, as TokenReview status.error shows them.
import type { KubeObject, UserInfo } from '../api/types.js';
import { goQuoteList } from '../options/go-strconv.js';
import { metaOf } from '../registry/object-fields.js';
import { errCryptoFailure, parseCompact, verifyWith } from '../serviceaccount/jws.js';
import type { PublicKeysGetter } from '../serviceaccount/public-keys.js';
import type { AuthenticatorResponse, TokenAuthenticator } from './types.js';

/** k8s.io/apiserver/pkg/authentication/serviceaccount: the user, groups and extra keys of a service account. */
export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const allServiceAccountsGroup = 'system:serviceaccounts';
export const serviceAccountGroupPrefix = 'system:serviceaccounts:';
export const credentialIdKey = 'authentication.kubernetes.io/credential-id';
export const podNameKey = 'authentication.kubernetes.io/pod-name';
export const podUidKey = 'authentication.kubernetes.io/pod-uid';
export const nodeNameKey = 'authentication.kubernetes.io/node-name';
export const nodeUidKey = 'authentication.kubernetes.io/node-uid';

/** go-jose's jwt.DefaultLeeway */
const leewaySeconds = 60;

/** ServiceAccountTokenGetter: the objects a token names; a missing object rejects (kube: a NotFound error). */
export interface ServiceAccountTokenGetter {
  getServiceAccount(namespace: string, name: string): Promise<KubeObject>;
  getPod(namespace: string, name: string): Promise<KubeObject>;
  getSecret(namespace: string, name: string): Promise<KubeObject>;
  getNode(name: string): Promise<KubeObject>;
}

interface Ref {
  name: string;
  uid: string;
}

/** The claims kube's token generator writes (claims.go privateClaims and jwt.Claims), as read back. */
export interface ServiceAccountClaims {
  iss: string;
  sub: string;
  aud: string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti: string;
  namespace: string;
  serviceaccount: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const ref = (v: unknown): Ref | undefined => {
  const o = obj(v);
  return o ? { name: str(o['name']), uid: str(o['uid']) } : undefined;
};

/** JSON payload → claims; undefined when it is no JSON object (go-jose: the token does not parse). */
export function readClaims(payload: Buffer): ServiceAccountClaims | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const o = obj(raw);
  if (!o) return undefined;
  const k8s = obj(o['kubernetes.io']) ?? {};
  // jwt.Audience: a single string or a list
  const aud = typeof o['aud'] === 'string' ? [o['aud']] : Array.isArray(o['aud']) ? o['aud'].filter((a): a is string => typeof a === 'string') : [];
  const claims: ServiceAccountClaims = { iss: str(o['iss']), sub: str(o['sub']), aud, jti: str(o['jti']), namespace: str(k8s['namespace']), serviceaccount: ref(k8s['serviceaccount']) ?? { name: '', uid: '' } };
  const times = { exp: num(o['exp']), nbf: num(o['nbf']), iat: num(o['iat']) };
  for (const [k, v] of Object.entries(times)) if (v !== undefined) claims[k as 'exp' | 'nbf' | 'iat'] = v;
  for (const k of ['pod', 'secret', 'node'] as const) {
    const r = ref(k8s[k]);
    if (r) claims[k] = r;
  }
  return claims;
}

/** jwt.Claims.Validate with only Time expected (go-jose's leeway), as kube's validator maps its errors. */
export function validateTimes(c: ServiceAccountClaims, nowSeconds: number): string | undefined {
  if (c.nbf !== undefined && nowSeconds + leewaySeconds < c.nbf) return 'service account token is not valid yet';
  if (c.exp !== undefined && nowSeconds - leewaySeconds > c.exp) return 'service account token has expired';
  if (c.iat !== undefined && nowSeconds + leewaySeconds < c.iat) return 'service account token is issued in the future';
  return undefined;
}

/** ServiceAccountInfo.UserInfo(): extra keys in Go's (sorted) map order. */
export function serviceAccountUser(c: ServiceAccountClaims, bound: { pod?: Ref; node?: Ref }): UserInfo {
  const extra: Record<string, string[]> = {};
  // CredentialIDForJTI
  if (c.jti) extra[credentialIdKey] = [`JTI=${c.jti}`];
  if (bound.node?.name) {
    extra[nodeNameKey] = [bound.node.name];
    if (bound.node.uid) extra[nodeUidKey] = [bound.node.uid];
  }
  if (bound.pod?.name && bound.pod.uid) {
    extra[podNameKey] = [bound.pod.name];
    extra[podUidKey] = [bound.pod.uid];
  }
  const user: UserInfo = {
    username: `${serviceAccountUsernamePrefix}${c.namespace}:${c.serviceaccount.name}`,
    uid: c.serviceaccount.uid,
    groups: [allServiceAccountsGroup, `${serviceAccountGroupPrefix}${c.namespace}`],
  };
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

function deletedBefore(o: KubeObject, cutoffMs: number): boolean {
  const ts = metaOf(o).deletionTimestamp;
  return typeof ts === 'string' && Date.parse(ts) < cutoffMs;
}

const invalidated = 'service account token has been invalidated';

export interface ServiceAccountTokenAuthenticatorOptions {
  /** --service-account-issuer: every one is accepted */
  issuers: readonly string[];
  keys: PublicKeysGetter;
  /** --api-audiences (defaulted to the issuer): the audiences a request targets unless it names others */
  implicitAudiences: readonly string[];
  /** --service-account-lookup; without it, no object is read */
  getter?: ServiceAccountTokenGetter;
  now?: () => Date;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly audienceAware = true;
  private readonly issuers: ReadonlySet<string>;

  constructor(private readonly opts: ServiceAccountTokenAuthenticatorOptions) {
    this.issuers = new Set(opts.issuers);
  }

  /** hasCorrectIssuer: only a compact JWT whose unverified `iss` is ours is looked at further. */
  private hasCorrectIssuer(token: string): boolean {
    if (token.trimStart().startsWith('{')) return false;
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    try {
      const iss = (JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown })?.iss;
      return typeof iss === 'string' && this.issuers.has(iss);
    } catch {
      return false;
    }
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<AuthenticatorResponse> {
    if (!this.hasCorrectIssuer(token)) return { kind: 'unrecognized' };
    const jws = parseCompact(token);
    if (!jws) return { kind: 'unrecognized' };
    const kid = typeof jws.header.kid === 'string' ? jws.header.kid : '';
    const keys = this.opts.keys.publicKeys(kid);
    if (keys.length === 0) return { kind: 'error', error: 'invalid signature, no keys found' };
    const errs: string[] = [];
    for (const k of keys) {
      const err = verifyWith(jws, k.key);
      if (err === undefined) {
        errs.length = 0;
        break;
      }
      errs.push(err);
    }
    // utilerrors.NewAggregate of one error per key tried
    if (errs.length) return { kind: 'error', error: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
    const claims = readClaims(jws.payload);
    if (!claims) return { kind: 'error', error: errCryptoFailure };
    if (!this.issuers.has(claims.iss)) return { kind: 'error', error: `token issuer ${JSON.stringify(claims.iss)} is invalid` };

    const implicit = this.opts.implicitAudiences;
    // Tokens without audiences (legacy secret-based ones) are good for the API audiences only.
    const tokenAuds = claims.aud.length ? claims.aud : [...implicit];
    const requested = audiences ?? implicit;
    const auds = tokenAuds.filter((a) => requested.includes(a));
    if (auds.length === 0 && implicit.length !== 0) {
      return { kind: 'error', error: `token audiences ${goQuoteList(tokenAuds)} is invalid for the target audiences ${goQuoteList(requested)}` };
    }
    const validated = await this.validate(claims);
    if (!validated.ok) return { kind: 'error', error: validated.error };
    return { kind: 'authenticated', user: serviceAccountUser(claims, validated.bound), audiences: auds };
  }

  /** claims.go validator.Validate: times, then the objects the token is bound to. */
  private async validate(c: ServiceAccountClaims): Promise<{ ok: true; bound: { pod?: Ref; node?: Ref } } | { ok: false; error: string }> {
    const now = (this.opts.now ?? (() => new Date()))();
    const timeErr = validateTimes(c, Math.floor(now.getTime() / 1000));
    if (timeErr) return { ok: false, error: timeErr };
    const bound: { pod?: Ref; node?: Ref } = {};
    if (c.pod) bound.pod = c.pod;
    // ServiceAccountTokenPodNodeInfo: a pod-bound token's node claim is reported as is
    if (c.pod && c.node) bound.node = c.node;
    const getter = this.opts.getter;
    if (!getter) {
      if (!c.pod && c.node) bound.node = c.node;
      return { ok: true, bound };
    }
    // things deleted before now - leeway are gone
    const cutoff = now.getTime() - leewaySeconds * 1000;
    const ns = c.namespace;
    const sa = c.serviceaccount;
    let account: KubeObject;
    try {
      account = await getter.getServiceAccount(ns, sa.name);
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
    const accountUid = str(metaOf(account).uid);
    if (accountUid !== sa.uid) return { ok: false, error: `service account UID (${accountUid}) does not match claim (${sa.uid})` };
    if (deletedBefore(account, cutoff)) return { ok: false, error: `service account ${ns}/${sa.name} has been deleted` };
    const checks: Array<[Ref | undefined, string, () => Promise<KubeObject>]> = [
      [c.secret, 'secret', () => getter.getSecret(ns, c.secret!.name)],
      [c.pod, 'pod', () => getter.getPod(ns, c.pod!.name)],
      // a node claim is checked only for node-bound tokens (ServiceAccountTokenNodeBindingValidation)
      [c.pod ? undefined : c.node, 'node', () => getter.getNode(c.node!.name)],
    ];
    for (const [r, what, get] of checks) {
      if (!r) continue;
      let o: KubeObject;
      try {
        o = await get();
      } catch {
        return { ok: false, error: invalidated };
      }
      const uid = str(metaOf(o).uid);
      if (uid !== r.uid) return { ok: false, error: `${what} UID (${uid}) does not match service account ${what} ref claim (${r.uid})` };
      if (deletedBefore(o, cutoff)) return { ok: false, error: invalidated };
      if (what === 'node') bound.node = r;
    }
    return { ok: true, bound };
  }
}

/**
 * The getter handed to the authenticator at startup, bound to the server's stores once they exist (before it
 * listens), since authentication is configured before the server is built.
 */
export function deferredTokenGetter(): { getter: ServiceAccountTokenGetter; bind(target: ServiceAccountTokenGetter): void } {
  let target: ServiceAccountTokenGetter | undefined;
  const bound = (): ServiceAccountTokenGetter => {
    if (!target) throw new Error('service account token getter used before the server was built');
    return target;
  };
  return {
    getter: {
      getServiceAccount: (ns, name) => bound().getServiceAccount(ns, name),
      getPod: (ns, name) => bound().getPod(ns, name),
      getSecret: (ns, name) => bound().getSecret(ns, name),
      getNode: (name) => bound().getNode(name),
    },
    bind(t) {
      target = t;
    },
  };
}
