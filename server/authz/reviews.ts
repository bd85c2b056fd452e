// authorization.k8s.io answered by the server itself, never stored (pkg/registry/authorization/*): access
// reviews ask the authorizer about a user and an action, rules reviews list what the requester may do.
// Validation follows pkg/apis/authorization/validation; the 422 names the internal object's (empty) kind,
// as kube-apiserver's does: `.authorization.k8s.io "" is invalid: …`.
import { errors, StatusError } from '../api/errors.js';
import { fieldErrors, formatFieldErrors, toStatusCause, type FieldError } from '../api/field.js';
import type { KubeObject, ObjectMeta, StatusDetails, UserInfo } from '../api/types.js';
import { ReviewDecoder, reviewBody, type ReviewResult } from '../authn/review-decode.js';
import type { AuthorizationAttributes, Authorizer, NonResourceRule, ResourceRule, RuleResolver } from './types.js';

export const authorizationGroup = 'authorization.k8s.io';

/** v1 FieldSelectorAttributes / LabelSelectorAttributes, passed through as given. */
export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: unknown[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface SelfSubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectAccessReviewSpec extends SelfSubjectAccessReviewSpec {
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface SubjectAccessReview extends KubeObject {
  apiVersion: string;
  kind: 'SubjectAccessReview' | 'LocalSubjectAccessReview' | 'SelfSubjectAccessReview';
  metadata: ObjectMeta;
  spec: SubjectAccessReviewSpec;
  status: SubjectAccessReviewStatus;
}

export interface SelfSubjectRulesReview extends KubeObject {
  apiVersion: string;
  kind: 'SelfSubjectRulesReview';
  metadata: ObjectMeta;
  spec: { namespace?: string };
  status: { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; incomplete: boolean; evaluationError?: string };
}

type AccessKind = SubjectAccessReview['kind'];

const apiVersionOf = (obj: Record<string, unknown>): string =>
  typeof obj['apiVersion'] === 'string' && obj['apiVersion'].startsWith(`${authorizationGroup}/`) ? obj['apiVersion'] : `${authorizationGroup}/v1`;

/** apierrors.NewInvalid(authorizationapi.Kind(obj.Kind), "", errs) with the internal object's empty Kind. */
function invalid(errs: FieldError[]): StatusError {
  const details: StatusDetails = { group: authorizationGroup, causes: errs.map(toStatusCause) };
  return new StatusError(422, 'Invalid', `.${authorizationGroup} "" is invalid: ${formatFieldErrors(errs)}`, details);
}

function decodeSelector(dec: ReviewDecoder, v: unknown, path: string, goType: string): SelectorAttributes | undefined {
  const o = dec.object(v, 'ResourceAttributes', path, goType);
  if (!o) return undefined;
  const out: SelectorAttributes = {};
  const raw = dec.string(o['rawSelector'], goType.replace(/^v1\./, ''), `${path}.rawSelector`);
  if (raw !== undefined) out.rawSelector = raw;
  const reqs = o['requirements'];
  if (reqs !== undefined && reqs !== null) {
    if (!Array.isArray(reqs)) dec.object([], goType.replace(/^v1\./, ''), `${path}.requirements`, '[]v1.FieldSelectorRequirement');
    out.requirements = reqs as unknown[];
  }
  return out;
}

function decodeSpec(dec: ReviewDecoder, obj: Record<string, unknown>, kind: string, withSubject: boolean): SubjectAccessReviewSpec {
  const specType = withSubject ? 'SubjectAccessReviewSpec' : 'SelfSubjectAccessReviewSpec';
  const spec = dec.object(obj['spec'], kind, 'spec', `v1.${specType}`) ?? {};
  const out: SubjectAccessReviewSpec = {};
  const ra = dec.object(spec['resourceAttributes'], specType, 'spec.resourceAttributes', '*v1.ResourceAttributes');
  if (ra) {
    const r: ResourceAttributes = {};
    for (const f of ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const) {
      const v = dec.string(ra[f], 'ResourceAttributes', `spec.resourceAttributes.${f}`);
      if (v !== undefined) r[f] = v;
    }
    const fs = decodeSelector(dec, ra['fieldSelector'], 'spec.resourceAttributes.fieldSelector', 'v1.FieldSelectorAttributes');
    if (fs) r.fieldSelector = fs;
    const ls = decodeSelector(dec, ra['labelSelector'], 'spec.resourceAttributes.labelSelector', 'v1.LabelSelectorAttributes');
    if (ls) r.labelSelector = ls;
    out.resourceAttributes = r;
  }
  const nra = dec.object(spec['nonResourceAttributes'], specType, 'spec.nonResourceAttributes', '*v1.NonResourceAttributes');
  if (nra) {
    const n: NonResourceAttributes = {};
    for (const f of ['path', 'verb'] as const) {
      const v = dec.string(nra[f], 'NonResourceAttributes', `spec.nonResourceAttributes.${f}`);
      if (v !== undefined) n[f] = v;
    }
    out.nonResourceAttributes = n;
  }
  if (withSubject) {
    const user = dec.string(spec['user'], specType, 'spec.user');
    const groups = dec.stringList(spec['groups'], specType, 'spec.groups');
    const extra = dec.extra(spec['extra'], specType, 'spec.extra', 'map[string]v1.ExtraValue');
    const uid = dec.string(spec['uid'], specType, 'spec.uid');
    if (user !== undefined) out.user = user;
    if (groups !== undefined) out.groups = groups;
    if (extra !== undefined) out.extra = extra;
    if (uid !== undefined) out.uid = uid;
  }
  return out;
}

interface Decoded {
  apiVersion: string;
  metadata: ObjectMeta;
  spec: SubjectAccessReviewSpec;
  status?: { allowed?: boolean; denied?: boolean };
}

function decodeAccessReview(body: unknown, kind: AccessKind): { ok: true; value: Decoded } | { ok: false; error: StatusError } {
  const b = reviewBody(body, kind);
  if (!b.ok) return b;
  const apiVersion = apiVersionOf(b.obj);
  const dec = new ReviewDecoder(kind, apiVersion);
  return dec.run(() => {
    const metadata = (dec.object(b.obj['metadata'], kind, 'metadata', 'v1.ObjectMeta') ?? {}) as ObjectMeta;
    const spec = decodeSpec(dec, b.obj, kind, kind !== 'SelfSubjectAccessReview');
    const st = dec.object(b.obj['status'], kind, 'status', 'v1.SubjectAccessReviewStatus');
    const out: Decoded = { apiVersion, metadata, spec };
    if (st) {
      const status: { allowed?: boolean; denied?: boolean } = {};
      const allowed = dec.bool(st['allowed'], 'SubjectAccessReviewStatus', 'status.allowed');
      const denied = dec.bool(st['denied'], 'SubjectAccessReviewStatus', 'status.denied');
      if (allowed !== undefined) status.allowed = allowed;
      if (denied !== undefined) status.denied = denied;
      out.status = status;
    }
    return out;
  });
}

function validateSelector(sel: SelectorAttributes | undefined, path: string): FieldError[] {
  if (!sel) return [];
  const raw = sel.rawSelector ?? '';
  const reqs = sel.requirements ?? [];
  const errs: FieldError[] = [];
  if (raw.length > 0 && reqs.length > 0) errs.push(fieldErrors.invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (raw.length === 0 && reqs.length === 0) errs.push(fieldErrors.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  return errs;
}

/** ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec, then the status check. */
function validateSpecAndStatus(d: Decoded, withSubject: boolean): FieldError[] {
  const { spec } = d;
  const errs: FieldError[] = [];
  const union = 'exactly one of nonResourceAttributes or resourceAttributes must be specified';
  if (spec.resourceAttributes && spec.nonResourceAttributes) errs.push(fieldErrors.invalid('spec', spec.nonResourceAttributes, union));
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) errs.push(fieldErrors.invalid('spec', null, union));
  if (withSubject && !spec.user && !(spec.groups && spec.groups.length)) {
    errs.push(fieldErrors.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  }
  errs.push(...validateSelector(spec.resourceAttributes?.fieldSelector, 'spec.resourceAttributes.fieldSelector'));
  errs.push(...validateSelector(spec.resourceAttributes?.labelSelector, 'spec.resourceAttributes.labelSelector'));
  if (d.status?.allowed && d.status.denied) {
    errs.push(fieldErrors.invalid('status', { allowed: true, denied: true }, 'allowed and denied are mutually exclusive'));
  }
  return errs;
}

/** ObjectMeta other than managedFields (and, for the local review, namespace) must be empty. */
function metadataIsEmpty(meta: ObjectMeta, ignoreNamespace: boolean): boolean {
  return Object.entries(meta).every(([k, v]) => {
    if (k === 'managedFields' || (ignoreNamespace && k === 'namespace')) return true;
    // zero values decode to the empty ObjectMeta: creationTimestamp: null, "", [], {}
    if (v === null || v === undefined || v === '' || v === 0) return true;
    if (Array.isArray(v)) return v.length === 0;
    if (typeof v === 'object') return Object.keys(v).length === 0;
    return false;
  });
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom */
function attributesFrom(user: UserInfo, spec: SelfSubjectAccessReviewSpec): AuthorizationAttributes {
  if (spec.resourceAttributes) {
    const r = spec.resourceAttributes;
    return {
      user,
      verb: r.verb ?? '',
      namespace: r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version ? r.version : '*',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
      resourceRequest: true,
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', path: n.path ?? '', resourceRequest: false };
}

function statusFrom(authorizer: Authorizer, attrs: AuthorizationAttributes): SubjectAccessReviewStatus {
  const d = authorizer.authorize(attrs);
  const status: SubjectAccessReviewStatus = { allowed: d.decision === 'Allow' };
  if (d.decision === 'Deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  if (d.evaluationError) status.evaluationError = d.evaluationError;
  return status;
}

function specUser(spec: SubjectAccessReviewSpec): UserInfo {
  const user: UserInfo = { username: spec.user ?? '' };
  if (spec.uid) user.uid = spec.uid;
  if (spec.groups) user.groups = [...spec.groups];
  if (spec.extra) user.extra = spec.extra;
  return user;
}

export interface AccessReviewContext {
  authorizer: Authorizer;
}

/** SubjectAccessReview: may `spec.user` (with `spec.groups`) do this? */
export function answerSubjectAccessReview(body: unknown, ctx: AccessReviewContext): ReviewResult<SubjectAccessReview> {
  const d = decodeAccessReview(body, 'SubjectAccessReview');
  if (!d.ok) return d;
  // cluster-scoped: the create handler drops metadata.namespace before validation
  const { namespace: _dropped, ...metadata } = d.value.metadata;
  const errs = validateSpecAndStatus(d.value, true);
  if (!metadataIsEmpty(metadata, false)) errs.push(fieldErrors.invalid('metadata', metadata, 'must be empty'));
  if (errs.length) return { ok: false, error: invalid(errs) };
  const status = statusFrom(ctx.authorizer, attributesFrom(specUser(d.value.spec), d.value.spec));
  return { ok: true, review: { apiVersion: d.value.apiVersion, kind: 'SubjectAccessReview', metadata, spec: d.value.spec, status } };
}

export interface LocalAccessReviewContext extends AccessReviewContext {
  /** the namespace in the request URL */
  namespace: string;
}

/** LocalSubjectAccessReview: a SubjectAccessReview bound to the URL's namespace. */
export function answerLocalSubjectAccessReview(body: unknown, ctx: LocalAccessReviewContext): ReviewResult<SubjectAccessReview> {
  const d = decodeAccessReview(body, 'LocalSubjectAccessReview');
  if (!d.ok) return d;
  const metadata = { ...d.value.metadata };
  // The create handler's EnsureObjectNamespaceMatchesRequestNamespace: default from the URL, or reject a mismatch.
  if (!metadata.namespace) {
    if (ctx.namespace) metadata.namespace = ctx.namespace;
  } else if (ctx.namespace && metadata.namespace !== ctx.namespace) {
    return { ok: false, error: errors.badRequest('the namespace of the provided object does not match the namespace sent on the request') };
  }
  const errs = validateSpecAndStatus(d.value, true);
  if (!metadataIsEmpty(metadata, true)) errs.push(fieldErrors.invalid('metadata', metadata, 'must be empty except for namespace'));
  const ra = d.value.spec.resourceAttributes;
  if (ra && (ra.namespace ?? '') !== (metadata.namespace ?? '')) errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', ra.namespace ?? '', 'must match metadata.namespace'));
  if (d.value.spec.nonResourceAttributes) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', d.value.spec.nonResourceAttributes, 'disallowed on this kind of request'));
  if (errs.length) return { ok: false, error: invalid(errs) };
  if (!ctx.namespace) return { ok: false, error: errors.badRequest('namespace is required on this type: ') };
  if (ctx.namespace !== metadata.namespace) return { ok: false, error: errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`) };
  const status = statusFrom(ctx.authorizer, attributesFrom(specUser(d.value.spec), d.value.spec));
  return { ok: true, review: { apiVersion: d.value.apiVersion, kind: 'LocalSubjectAccessReview', metadata, spec: d.value.spec, status } };
}

export interface SelfAccessReviewContext extends AccessReviewContext {
  /** the requester, as authentication found it */
  user: UserInfo | undefined;
}

/** SelfSubjectAccessReview: may I do this? (kubectl auth can-i) */
export function answerSelfSubjectAccessReview(body: unknown, ctx: SelfAccessReviewContext): ReviewResult<SubjectAccessReview> {
  const d = decodeAccessReview(body, 'SelfSubjectAccessReview');
  if (!d.ok) return d;
  const { namespace: _dropped, ...metadata } = d.value.metadata;
  const errs = validateSpecAndStatus(d.value, false);
  if (!metadataIsEmpty(metadata, false)) errs.push(fieldErrors.invalid('metadata', metadata, 'must be empty'));
  if (errs.length) return { ok: false, error: invalid(errs) };
  if (!ctx.user) return { ok: false, error: errors.badRequest('no user present on request') };
  const status = statusFrom(ctx.authorizer, attributesFrom(ctx.user, d.value.spec));
  return { ok: true, review: { apiVersion: d.value.apiVersion, kind: 'SelfSubjectAccessReview', metadata, spec: d.value.spec, status } };
}

export interface RulesReviewContext {
  resolver: RuleResolver;
  user: UserInfo | undefined;
}

/** SelfSubjectRulesReview: what may I do in spec.namespace? (kubectl auth can-i --list) */
export function answerSelfSubjectRulesReview(body: unknown, ctx: RulesReviewContext): ReviewResult<SelfSubjectRulesReview> {
  const b = reviewBody(body, 'SelfSubjectRulesReview');
  if (!b.ok) return b;
  const apiVersion = apiVersionOf(b.obj);
  const dec = new ReviewDecoder('SelfSubjectRulesReview', apiVersion);
  const decoded = dec.run(() => {
    const spec = dec.object(b.obj['spec'], 'SelfSubjectRulesReview', 'spec', 'v1.SelfSubjectRulesReviewSpec') ?? {};
    return dec.string(spec['namespace'], 'SelfSubjectRulesReviewSpec', 'spec.namespace') ?? '';
  });
  if (!decoded.ok) return decoded;
  if (!ctx.user) return { ok: false, error: errors.badRequest('no user present on request') };
  const namespace = decoded.value;
  if (namespace === '') return { ok: false, error: errors.badRequest('no namespace on request') };
  const rules = ctx.resolver.rulesFor(ctx.user, namespace);
  const status: SelfSubjectRulesReview['status'] = {
    resourceRules: rules.resourceRules.map((r) => ({ ...r })),
    nonResourceRules: rules.nonResourceRules.map((r) => ({ ...r })),
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  // kube answers with a new object: the spec is not echoed.
  return { ok: true, review: { apiVersion, kind: 'SelfSubjectRulesReview', metadata: {}, spec: {}, status } };
}
