// kube's Authz and AuthzSelectors libraries (staging/src/k8s.io/apiserver/pkg/cel/library/authz.go): the
// `authorizer` variable and its builders, answered by the request's CelAuthorizer (../environment.ts).
//
//   authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('x').check('update')
//   authorizer.path('/healthz').check('get')
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list')
//   authorizer.requestResource.check('create')          // the resource of the admission request
//   <Decision>.allowed() / reason() / errored() / error()
import { CelError, CelOpaque, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import type { AuthorizerCheck, AuthorizerDecision, CelAuthorizer, EvalContext } from '../environment.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../../../registry/validation/name.js';
import { LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, STRUCT_CREATE_BASE_COST, actualSize, addCost, byFactor, fixedCost, sizeOf } from './cost.js';
import { goTrimSpace } from './go-text.js';
import type { CostEstimate, SizeEstimate } from '../engine/functions.js';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** The user a check is made for when `serviceAccount(ns, name)` replaced the requester. */
export interface CheckUser {
  username: string;
  groups: string[];
}

/**
 * What the library hands CelAuthorizer.check: the AuthorizerCheck fields, plus the service account that replaced
 * the request's user and the raw field/label selectors (authorizer.Attributes carries both in kube-apiserver).
 */
export interface AuthorizerCheckRequest extends AuthorizerCheck {
  /** set by authorizer.serviceAccount(ns, name); absent: the requesting user */
  user?: CheckUser;
  fieldSelector?: string;
  labelSelector?: string;
}

/** serviceaccount.ServiceAccountInfo.UserInfo() */
export function serviceAccountUser(namespace: string, name: string): CheckUser {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

export class AuthorizerValue extends CelOpaque {
  readonly typeName = AUTHORIZER_TYPE;
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly user?: CheckUser,
  ) {
    super();
  }
}

export class PathCheckValue extends CelOpaque {
  readonly typeName = PATH_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
}

export class GroupCheckValue extends CelOpaque {
  readonly typeName = GROUP_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
}

interface ResourceCheckFields {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

export class ResourceCheckValue extends CelOpaque {
  readonly typeName = RESOURCE_CHECK_TYPE;
  constructor(
    readonly authz: AuthorizerValue,
    readonly fields: Readonly<ResourceCheckFields>,
  ) {
    super();
  }
  with(patch: Partial<ResourceCheckFields>): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, { ...this.fields, ...patch });
  }
}

export class DecisionValue extends CelOpaque {
  readonly typeName = DECISION_TYPE;
  constructor(readonly decision: AuthorizerDecision) {
    super();
  }
  override toJSON(): unknown {
    return this.decision;
  }
}

function request(authz: AuthorizerValue, c: AuthorizerCheck & Partial<AuthorizerCheckRequest>): AuthorizerCheckRequest {
  const out: AuthorizerCheckRequest = { ...c };
  if (authz.user) out.user = authz.user;
  return out;
}

/** The decision of a check; an authorizer that throws is an errored decision, as an Authorize error is in kube. */
function decide(authz: AuthorizerValue, c: AuthorizerCheckRequest): DecisionValue {
  try {
    return new DecisionValue(authz.authorizer.check(c));
  } catch (e) {
    return new DecisionValue({ decision: 'noOpinion', reason: '', error: (e as Error).message });
  }
}

function pathCheck(p: PathCheckValue, verb: string): DecisionValue {
  const base: AuthorizerCheck = { group: '', version: '', resource: '', subresource: '', namespace: '', name: '', verb, path: p.path };
  return decide(p.authz, request(p.authz, base));
}

function resourceCheck(r: ResourceCheckValue, verb: string): DecisionValue {
  const f = r.fields;
  const base: AuthorizerCheck & Partial<AuthorizerCheckRequest> = {
    group: f.group,
    // kube checks resource permissions for every version of the resource
    version: '*',
    resource: f.resource,
    subresource: f.subresource,
    namespace: f.namespace,
    name: f.name,
    verb,
  };
  if (f.fieldSelector) base.fieldSelector = f.fieldSelector;
  if (f.labelSelector) base.labelSelector = f.labelSelector;
  return decide(r.authz, request(r.authz, base));
}

/** The authorizer an expression gets when the caller provided none: every check errors. */
const missingAuthorizer: CelAuthorizer = {
  check: () => ({ decision: 'noOpinion', reason: '', error: 'no authorizer is available for this expression' }),
  requestResource: { group: '', version: '', resource: '', subresource: '', namespace: '', name: '' },
};

export function authorizerValue(ctx: EvalContext): AuthorizerValue {
  return new AuthorizerValue(ctx.authorizer ?? missingAuthorizer);
}

/** NewResourceAuthorizerVal: a ResourceCheck for the resource the request is about. */
export function requestResourceValue(ctx: EvalContext): ResourceCheckValue {
  const authz = authorizerValue(ctx);
  const rr = authz.authorizer.requestResource;
  return new ResourceCheckValue(authz, {
    group: rr.group,
    resource: rr.resource,
    subresource: rr.subresource,
    namespace: rr.namespace,
    name: rr.name,
    fieldSelector: '',
    labelSelector: '',
  });
}

// --- costs (cost.go) -------------------------------------------------------------------------------------------

/** An authorization check is priced to allow only two of them per expression. */
const CHECK_COST = 350_000;
const checkCost = { cost: () => CHECK_COST, estimate: () => ({ cost: fixedCost(CHECK_COST) }) };
const nominal = { cost: () => 1, estimate: () => ({ cost: fixedCost(1) }) };

/** Parsing a selector: a traversal plus a struct and a values list per requirement (a requirement per 2 chars). */
function selectorCost(len: SizeEstimate): CostEstimate {
  const parse = byFactor(len, STRING_TRAVERSAL_COST_FACTOR);
  const requirements = byFactor(byFactor(len, 0.5), LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST);
  return addCost(addCost(fixedCost(LIST_CREATE_BASE_COST), parse), requirements);
}

const selectorCosts = {
  cost: (args: readonly CelValue[]) => {
    const n = actualSize(args[1]);
    return selectorCost({ min: n, max: n }).max;
  },
  estimate: (i: CallEstimateInput) => ({ cost: selectorCost(sizeOf(i.args[0])) }),
};

const A = T.opaque(AUTHORIZER_TYPE);
const P = T.opaque(PATH_CHECK_TYPE);
const G = T.opaque(GROUP_CHECK_TYPE);
const R = T.opaque(RESOURCE_CHECK_TYPE);
const D = T.opaque(DECISION_TYPE);
const S = T.string;

const rc = (v: CelValue): ResourceCheckValue => v as ResourceCheckValue;
const dec = (v: CelValue): AuthorizerDecision => (v as DecisionValue).decision;

function setter(id: string, name: string, field: keyof ResourceCheckFields): OverloadDecl {
  return { id, name, receiver: R, args: [S], result: R, impl: (r, v) => rc(r).with({ [field]: v as string }), ...nominal };
}

const authzOverloads: OverloadDecl[] = [
  {
    id: 'authorizer_path',
    name: 'path',
    receiver: A,
    args: [S],
    result: P,
    impl: (a, p) => (goTrimSpace(p as string).length === 0 ? new CelError('path must not be empty') : new PathCheckValue(a as AuthorizerValue, p as string)),
    ...nominal,
  },
  { id: 'authorizer_group', name: 'group', receiver: A, args: [S], result: G, impl: (a, g) => new GroupCheckValue(a as AuthorizerValue, g as string), ...nominal },
  {
    id: 'authorizer_serviceaccount',
    name: 'serviceAccount',
    receiver: A,
    args: [S, S],
    result: A,
    impl: (a, ns, n) => {
      const namespace = ns as string;
      const name = n as string;
      if (nameIsDNSSubdomain(name, false).length > 0) return new CelError('Invalid service account name');
      if (nameIsDNSLabel(namespace, false).length > 0) return new CelError('Invalid service account namespace');
      return new AuthorizerValue((a as AuthorizerValue).authorizer, serviceAccountUser(namespace, name));
    },
    ...nominal,
  },
  {
    id: 'groupcheck_resource',
    name: 'resource',
    receiver: G,
    args: [S],
    result: R,
    impl: (g, r) => {
      const resource = r as string;
      if (goTrimSpace(resource).length === 0) return new CelError('resource must not be empty');
      const gc = g as GroupCheckValue;
      return new ResourceCheckValue(gc.authz, { group: gc.group, resource, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' });
    },
    ...nominal,
  },
  setter('resourcecheck_subresource', 'subresource', 'subresource'),
  setter('resourcecheck_namespace', 'namespace', 'namespace'),
  setter('resourcecheck_name', 'name', 'name'),
  { id: 'pathcheck_check', name: 'check', receiver: P, args: [S], result: D, impl: (p, v) => pathCheck(p as PathCheckValue, v as string), ...checkCost },
  { id: 'resourcecheck_check', name: 'check', receiver: R, args: [S], result: D, impl: (r, v) => resourceCheck(rc(r), v as string), ...checkCost },
  { id: 'decision_errored', name: 'errored', receiver: D, args: [], result: T.bool, impl: (d) => dec(d).error !== undefined, ...nominal },
  { id: 'decision_error', name: 'error', receiver: D, args: [], result: S, impl: (d) => dec(d).error ?? '', ...nominal },
  { id: 'decision_allowed', name: 'allowed', receiver: D, args: [], result: T.bool, impl: (d) => dec(d).decision === 'allow', ...nominal },
  { id: 'decision_reason', name: 'reason', receiver: D, args: [], result: S, impl: (d) => dec(d).reason, ...nominal },
];

const isAuthzValue = (v: CelValue): boolean =>
  v instanceof AuthorizerValue || v instanceof PathCheckValue || v instanceof GroupCheckValue || v instanceof ResourceCheckValue || v instanceof DecisionValue;

export const authzLibrary: LibraryRegistration = {
  name: 'kubernetes.authz',
  types: [{ name: AUTHORIZER_TYPE }, { name: PATH_CHECK_TYPE }, { name: GROUP_CHECK_TYPE }, { name: RESOURCE_CHECK_TYPE }, { name: DECISION_TYPE }],
  functions: authzOverloads,
  variables: [
    { name: 'authorizer', type: A, requires: 'authorizer', value: authorizerValue },
    { name: 'authorizer.requestResource', type: R, requires: 'authorizer', value: requestResourceValue },
  ],
  callCost: (fn, _id, args) => (fn === '_==_' && args.length === 2 && isAuthzValue(args[0]!) ? 1 : undefined),
  callCostFunctions: ['_==_'],
  callCostOpaqueOnly: true,
};

/** fieldSelector / labelSelector (AuthorizeWithSelectors, on by default since 1.32 and GA in 1.34). */
export const authzSelectorsLibrary: LibraryRegistration = {
  name: 'kubernetes.authzSelectors',
  types: [{ name: RESOURCE_CHECK_TYPE }],
  functions: [
    { id: 'authorizer_fieldselector', name: 'fieldSelector', receiver: R, args: [S], result: R, impl: (r, v) => rc(r).with({ fieldSelector: v as string }), ...selectorCosts },
    { id: 'authorizer_labelselector', name: 'labelSelector', receiver: R, args: [S], result: R, impl: (r, v) => rc(r).with({ labelSelector: v as string }), ...selectorCosts },
  ],
};
