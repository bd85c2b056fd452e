// User impersonation, as kube-apiserver's WithImpersonation filter
// (k8s.io/apiserver/pkg/endpoints/filters/impersonation/impersonation.go, the filter kube runs while the
// ConstrainedImpersonation gate is off): the Impersonate-* headers name a user, groups, a uid and extra values;
// each one is authorized as the verb "impersonate" for the authenticated requestor, and on success the
// impersonated user is who the rest of the chain (audit's impersonatedUser, authorization, admission, the
// virtual reviews) sees, with the headers removed.
import type { NextFunction, Request, Response } from 'express';
import { errors, type StatusError } from '../api/errors.js';
import type { UserInfo } from '../api/types.js';
import { allAuthenticated, allUnauthenticated, anonymousUser } from '../authn/types.js';
import { forbiddenError } from '../authz/forbidden.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/types.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../registry/validation/name.js';
import { writeError } from './responses.js';

/** authenticationv1.Impersonate*Header, lower-cased as Node delivers header names. */
export const impersonateUserHeader = 'impersonate-user';
export const impersonateGroupHeader = 'impersonate-group';
export const impersonateUidHeader = 'impersonate-uid';
export const impersonateUserExtraHeaderPrefix = 'impersonate-extra-';

const authenticationGroupVersion = 'authentication.k8s.io/v1';
const serviceAccountUsernamePrefix = 'system:serviceaccount:';
const allServiceAccountsGroup = 'system:serviceaccounts';
const serviceAccountGroupPrefix = 'system:serviceaccounts:';

/**
 * One thing asked to be impersonated: kube builds a v1.ObjectReference per header value (the extra key rides in
 * fieldPath, "close and available" as kube's comment says), and prints the list in its 400.
 */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** Header name (lower case) → every value sent, in order, as Node's `req.headersDistinct`. */
export type DistinctHeaders = Record<string, readonly string[] | undefined>;

export type BuildImpersonationResult = { ok: true; requests: ImpersonationRequest[] } | { ok: false; error: StatusError };

/** Go's %v of a v1.ObjectReference: its seven fields in declaration order, space-separated, in braces. */
function goObjectReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

/** serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>`, both parts valid names. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  // ValidateNamespaceName (a DNS-1123 label) and ValidateServiceAccountName (a DNS-1123 subdomain)
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** serviceaccount.MakeGroupNames */
export function serviceAccountGroups(namespace: string): string[] {
  return [allServiceAccountsGroup, serviceAccountGroupPrefix + namespace];
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/**
 * kube's unescapeExtraKey: url.PathUnescape, keeping the key as sent when it has a malformed escape ("%zz"),
 * so that extras are always recorded. Bytes that are not UTF-8 become U+FFFD, as Go's JSON encoder writes them.
 */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (c !== 0x25) {
      bytes.push(...Buffer.from(encoded[i]!, 'utf8'));
      continue;
    }
    if (i + 2 >= encoded.length || !isHex(encoded.charCodeAt(i + 1)) || !isHex(encoded.charCodeAt(i + 2))) return encoded;
    bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
    i += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * buildImpersonationRequests: the user (a service account when its name splits as one), each group, each
 * extra value, the uid; groups, extras or a uid without a user are a 400 with kube's text.
 */
export function buildImpersonationRequests(headers: DistinctHeaders): BuildImpersonationResult {
  const requests: ImpersonationRequest[] = [];
  const ref = (kind: ImpersonationRequest['kind'], name: string, more: Partial<ImpersonationRequest> = {}): ImpersonationRequest => ({ kind, namespace: '', name, apiVersion: '', fieldPath: '', ...more });

  // http.Header.Get: the first value; an empty one is no user.
  const requestedUser = headers[impersonateUserHeader]?.[0] ?? '';
  const hasUser = requestedUser.length > 0;
  if (hasUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    requests.push(sa ? ref('ServiceAccount', sa.name, { namespace: sa.namespace }) : ref('User', requestedUser));
  }

  const groups = headers[impersonateGroupHeader] ?? [];
  for (const group of groups) requests.push(ref('Group', group));
  const hasGroups = groups.length > 0;

  let hasUserExtra = false;
  for (const [headerName, values] of Object.entries(headers)) {
    if (!headerName.startsWith(impersonateUserExtraHeaderPrefix) || !values) continue;
    hasUserExtra = true;
    // Go lower-cases the canonical header name's suffix, then percent-decodes it
    const extraKey = unescapeExtraKey(headerName.slice(impersonateUserExtraHeaderPrefix.length).toLowerCase());
    for (const value of values) requests.push(ref('UserExtra', value, { apiVersion: authenticationGroupVersion, fieldPath: extraKey }));
  }

  const requestedUID = headers[impersonateUidHeader]?.[0] ?? '';
  const hasUID = requestedUID.length > 0;
  if (hasUID) requests.push(ref('UID', requestedUID, { apiVersion: authenticationGroupVersion }));

  if ((hasGroups || hasUserExtra || hasUID) && !hasUser) {
    return { ok: false, error: errors.badRequest(`requested [${requests.map(goObjectReference).join(' ')}] without impersonating a user`) };
  }
  return { ok: true, requests };
}

/** The "impersonate" attributes kube authorizes for one request (actingAsAttributes). */
export function impersonationAttributes(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  const [group, version] = r.apiVersion.includes('/') ? (r.apiVersion.split('/', 2) as [string, string]) : ['', r.apiVersion];
  const attrs: AuthorizationAttributes = { user: requestor, verb: 'impersonate', apiGroup: group, apiVersion: version, namespace: r.namespace, name: r.name, resourceRequest: true };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...attrs, resource: 'serviceaccounts' };
    case 'User':
      return { ...attrs, resource: 'users' };
    case 'Group':
      return { ...attrs, resource: 'groups' };
    case 'UserExtra':
      return { ...attrs, resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...attrs, resource: 'uids' };
  }
}

export type ImpersonationResult = { ok: true; user: UserInfo } | { ok: false; error: StatusError };

/**
 * Authorizes every request in order (the first one not allowed answers kube's 403, naming it) and builds the
 * impersonated user. Groups sent are the authority; without any, a service account gets its fixed groups.
 * system:authenticated is added unless a group says (un)authenticated already, and system:anonymous gets
 * system:unauthenticated instead.
 */
export function impersonate(requestor: UserInfo, requests: readonly ImpersonationRequest[], groupsSpecified: boolean, authz: Authorizer): ImpersonationResult {
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs = impersonationAttributes(requestor, r);
    switch (r.kind) {
      case 'ServiceAccount':
        username = serviceAccountUsernamePrefix + r.namespace + ':' + r.name;
        if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
        break;
      case 'User':
        username = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
    const decision = authz.authorize(attrs);
    // an evaluation error is a denial too; kube's 403 carries only the reason
    if (decision.decision !== 'Allow') return { ok: false, error: forbiddenError(attrs, decision.reason) };
  }

  if (username !== anonymousUser) {
    if (!groups.some((g) => g === allAuthenticated || g === allUnauthenticated)) groups.push(allAuthenticated);
  } else if (!groups.includes(allUnauthenticated)) {
    groups.push(allUnauthenticated);
  }

  const user: UserInfo = { username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return { ok: true, user };
}

function isImpersonationHeader(lowerName: string): boolean {
  return lowerName === impersonateUserHeader || lowerName === impersonateGroupHeader || lowerName === impersonateUidHeader || lowerName.startsWith(impersonateUserExtraHeaderPrefix);
}

/**
 * The Impersonate-* headers of a request, every value kept apart. Node decodes header bytes as Latin-1; Go keeps
 * them as they came, so a UTF-8 name (`kubectl --as=jöhn`) is read back as UTF-8.
 */
export function impersonationHeaders(req: Request): DistinctHeaders {
  const out: Record<string, string[]> = {};
  // the create path is benchmarked: only a request that has such a header pays for Node's per-value header copy
  if (!Object.keys(req.headers).some((name) => name.startsWith('impersonate-'))) return out;
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (!values || !isImpersonationHeader(name)) continue;
    out[name] = values.map((v) => Buffer.from(v, 'latin1').toString('utf8'));
  }
  return out;
}

/** req.Header.Del of every Impersonate-* header, so that nothing after this filter acts on them again. */
function removeImpersonationHeaders(req: Request): void {
  const distinct = req.headersDistinct;
  for (const name of Object.keys(req.headers)) if (isImpersonationHeader(name)) delete req.headers[name];
  for (const name of Object.keys(distinct)) if (isImpersonationHeader(name)) delete distinct[name];
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (!isImpersonationHeader(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  raw.splice(0, raw.length, ...kept);
}

/** res.locals keys: the user the request acts as (replaced here), and the impersonated user for audit. */
export const impersonatedUserLocal = 'impersonatedUser';

export function impersonationFilter(authz: Authorizer) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const headers = impersonationHeaders(req);
    // the common case: no Impersonate-* header at all
    if (Object.keys(headers).length === 0) return next();
    const built = buildImpersonationRequests(headers);
    if (!built.ok) return writeError(res, built.error);
    if (built.requests.length === 0) return next();
    const requestor = res.locals['user'] as UserInfo | undefined;
    // kube: "no user found for request" is a 500; authentication always sets one here
    if (!requestor) return writeError(res, new Error('no user found for request'));
    const result = impersonate(requestor, built.requests, (headers[impersonateGroupHeader]?.length ?? 0) > 0, authz);
    if (!result.ok) return writeError(res, result.error);
    res.locals['user'] = result.user;
    res.locals[impersonatedUserLocal] = result.user;
    removeImpersonationHeaders(req);
    next();
  };
}
