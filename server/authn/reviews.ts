// authentication.k8s.io answered by the server itself, never stored: TokenReview (pkg/registry/authentication/
// tokenreview) runs a token through the request authenticator as a bare "Authorization: Bearer" request;
// SelfSubjectReview (…/selfsubjectreview) tells the caller who it is.
import { errors } from '../api/errors.js';
import type { KubeObject, ObjectMeta, UserInfo } from '../api/types.js';
import { metaTime, ReviewDecoder, reviewBody, type ReviewResult } from './review-decode.js';
import type { Authenticator } from './types.js';

export const authenticationGroup = 'authentication.k8s.io';

/** authentication.k8s.io/v1 UserInfo: every field omitempty. */
export interface ReviewUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

export interface TokenReviewStatus {
  authenticated?: boolean;
  /** not omitted when empty: Go's omitempty does not apply to structs */
  user: ReviewUserInfo;
  audiences?: string[];
  error?: string;
}

export interface TokenReview extends KubeObject {
  apiVersion: string;
  kind: 'TokenReview';
  metadata: ObjectMeta;
  spec: TokenReviewSpec;
  status: TokenReviewStatus;
}

export interface SelfSubjectReview extends KubeObject {
  apiVersion: string;
  kind: 'SelfSubjectReview';
  metadata: ObjectMeta;
  status: { userInfo: ReviewUserInfo };
}

function reviewUserInfo(user: UserInfo): ReviewUserInfo {
  const out: ReviewUserInfo = {};
  if (user.username) out.username = user.username;
  if (user.uid) out.uid = user.uid;
  if (user.groups && user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

const apiVersionOf = (obj: Record<string, unknown>): string =>
  typeof obj['apiVersion'] === 'string' && obj['apiVersion'].startsWith(`${authenticationGroup}/`) ? obj['apiVersion'] : `${authenticationGroup}/v1`;

export interface TokenReviewContext {
  /** the server's request authenticator (the same chain requests go through) */
  authenticator: Authenticator;
  /** the URL's namespace: TokenReview is cluster-scoped */
  namespace?: string;
  /** --api-audiences, used when spec.audiences is empty */
  apiAudiences?: readonly string[];
}

export async function answerTokenReview(body: unknown, ctx: TokenReviewContext): Promise<ReviewResult<TokenReview>> {
  const b = reviewBody(body, 'TokenReview');
  if (!b.ok) return b;
  const apiVersion = apiVersionOf(b.obj);
  const dec = new ReviewDecoder('TokenReview', apiVersion);
  const decoded = dec.run(() => {
    const spec = dec.object(b.obj['spec'], 'TokenReview', 'spec', 'v1.TokenReviewSpec') ?? {};
    const out: TokenReviewSpec = {};
    const token = dec.string(spec['token'], 'TokenReviewSpec', 'spec.token');
    const audiences = dec.stringList(spec['audiences'], 'TokenReviewSpec', 'spec.audiences');
    if (token !== undefined) out.token = token;
    if (audiences !== undefined) out.audiences = audiences;
    const metadata = (dec.object(b.obj['metadata'], 'TokenReview', 'metadata', 'v1.ObjectMeta') ?? {}) as ObjectMeta;
    return { spec: out, metadata };
  });
  if (!decoded.ok) return decoded;
  const { spec, metadata } = decoded.value;
  if (ctx.namespace) return { ok: false, error: errors.badRequest(`namespace is not allowed on this type: ${ctx.namespace}`) };
  if (!spec.token) return { ok: false, error: errors.badRequest('token is required for TokenReview in authentication') };

  const auds = spec.audiences && spec.audiences.length ? spec.audiences : (ctx.apiAudiences ?? []);
  const result = await ctx.authenticator.authenticate({ headers: { authorization: `Bearer ${spec.token}` }, ...(auds.length ? { audiences: auds } : {}) });
  const status: TokenReviewStatus = { user: {} };
  if (result.ok) {
    if (auds.length && result.audiences && !result.audiences.some((a) => auds.includes(a))) {
      // badAuthenticatorAuds: the authenticator answered for other audiences than asked.
      return { ok: false, error: errors.internal(new Error('error validating audiences')) };
    }
    status.authenticated = true;
    status.user = reviewUserInfo(result.user);
    if (result.audiences && result.audiences.length) status.audiences = [...result.audiences];
  } else {
    status.error = result.reason;
  }
  return { ok: true, review: { apiVersion, kind: 'TokenReview', metadata, spec, status } };
}

export interface SelfSubjectReviewContext {
  /** the requester, as authentication found it */
  user: UserInfo | undefined;
  now?: Date;
}

export function answerSelfSubjectReview(body: unknown, ctx: SelfSubjectReviewContext): ReviewResult<SelfSubjectReview> {
  const b = reviewBody(body, 'SelfSubjectReview');
  if (!b.ok) return b;
  if (!ctx.user) return { ok: false, error: errors.badRequest('no user present on request') };
  return {
    ok: true,
    review: {
      apiVersion: apiVersionOf(b.obj),
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: metaTime(ctx.now ?? new Date()) },
      status: { userInfo: reviewUserInfo(ctx.user) },
    },
  };
}
