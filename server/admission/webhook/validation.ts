// ValidatingWebhookConfiguration and MutatingWebhookConfiguration validation, defaulting and warnings, as
// kube-apiserver has them (pkg/apis/admissionregistration/validation, .../v1/defaults.go,
// k8s.io/apiserver/pkg/util/webhook/validation.go). Pure functions over plain objects: the REST strategies
// (server/registry/strategies/admissionregistration.ts) and the static manifest loader share them; the loader
// adds its own rules on top.
//
// Validation runs on defaulted objects, as kube validates the internal version after defaulting: an absent
// service port is the defaulted 443.
import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  RuleWithOperations,
  ValidatingWebhookConfiguration,
  WebhookCommon,
} from '../../api/admissionregistration.js';
import type { GroupResource } from '../../api/errors.js';
import { fieldErrors, FieldPath, type FieldError } from '../../api/field.js';
import { goQuote } from '../../options/go-strconv.js';
import { jsonEqual } from '../../registry/object-fields.js';
import { validateLabelSelector, type LabelSelectorLike } from '../../registry/selectors/label-selector.js';
import { validateObjectMetaCreate } from '../../registry/validation/object-meta.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../registry/validation/name.js';
import { excludedVirtualResources } from '../matching/excluded.js';

// ---- options ----------------------------------------------------------------------------------------------

/** Where a matchCondition expression is compiled: kube uses a more lenient environment for expressions already stored. */
export interface MatchConditionCompileEnv {
  /** true when the old object of an update already had this exact expression (environment.StoredExpressions) */
  stored: boolean;
}

export interface WebhookConfigurationValidationOptions {
  /**
   * CEL compilation of a matchCondition's (trimmed) expression: the compiler's error detail, or undefined when
   * it compiles. Until the CEL environment exists only the structure of matchConditions is validated; the CEL
   * issue plugs its compiler in here and its errors become `Invalid value` on `…matchConditions[i].expression`.
   */
  compileMatchCondition?: (expression: string, env: MatchConditionCompileEnv) => string | undefined;
  /**
   * Also run ValidateObjectMeta on metadata, as kube's ValidateValidatingWebhookConfiguration does. Off by default
   * because the registry validates metadata for every resource itself; the manifest loader turns it on.
   */
  validateObjectMeta?: boolean;
}

// kube's validationOptions: what create requires and update relaxes for objects that were already invalid.
interface RuleOptions {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  preexistingMatchConditionExpressions: ReadonlySet<string>;
}

const createRules: RuleOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
  preexistingMatchConditionExpressions: new Set(),
};

// ---- wire-shape helpers -----------------------------------------------------------------------------------

// Objects come off the wire: a field may be missing, null, or (before strict decoding) of another type.
const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
const list = <T>(v: readonly T[] | null | undefined): readonly T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

// ---- sets of supported values (sets.String.List(): sorted) ------------------------------------------------

const supportedFailurePolicies = ['Fail', 'Ignore'];
const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedSideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const supportedReinvocationPolicies = ['IfNeeded', 'Never'];
const validScopes = ['*', 'Cluster', 'Namespaced'];

/** The AdmissionReview versions this apiserver sends, in kube's order. */
export const acceptedAdmissionReviewVersions: readonly string[] = Object.freeze(['v1', 'v1beta1']);

/** The maximum number of matchConditions per webhook. */
export const maxMatchConditions = 64;

// ---- Go's net/url.Parse, as far as webhook URLs need it ---------------------------------------------------

interface GoURL {
  scheme: string;
  /** Userinfo.String(), or undefined when the URL has none */
  user: string | undefined;
  host: string;
  rawQuery: string;
  /** unescaped */
  fragment: string;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

type Encoding = 'path' | 'host' | 'userPassword' | 'fragment';

// url.shouldEscape, for the modes used here
function shouldEscape(c: string, mode: Encoding): boolean {
  if (isAlnum(c)) return false;
  if (mode === 'host' && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'fragment':
        return false;
      default:
        return true;
    }
  }
  if (mode === 'fragment' && "!()*".includes(c)) return false;
  return true;
}

// url.unescape: %XX decoding with its errors (EscapeError, InvalidHostError).
function goUnescape(s: string, mode: Encoding): Parsed<string> {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) return { ok: false, error: `invalid URL escape ${goQuote(s.slice(i, i + 3))}` };
      // in a host, %-encoding is only for non-ASCII bytes, and %25 (RFC 6874 zones)
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') return { ok: false, error: `invalid URL escape ${goQuote(s.slice(i, i + 3))}` };
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) return { ok: false, error: `invalid character ${goQuote(c)} in host name` };
    bytes.push(...Buffer.from(c, 'utf8'));
    i++;
  }
  return { ok: true, value: Buffer.from(bytes).toString('utf8') };
}

// url.escape for userinfo, as Userinfo.String() re-escapes what it decoded
function goEscape(s: string, mode: Encoding): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && !shouldEscape(c, mode) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function validUserinfo(s: string): boolean {
  return [...s].every((r) => isAlnum(r) || "-._:~!$&'()*+,;=%@".includes(r));
}

function validOptionalPort(port: string): boolean {
  return port === '' || (port[0] === ':' && /^[0-9]*$/.test(port.slice(1)));
}

function parseHost(host: string): Parsed<string> {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return { ok: false, error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) return { ok: false, error: `invalid port ${goQuote(colonPort)} after host` };
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validOptionalPort(host.slice(i))) return { ok: false, error: `invalid port ${goQuote(host.slice(i))} after host` };
  }
  return goUnescape(host, 'host');
}

function parseAuthority(authority: string): Parsed<{ user: string | undefined; host: string }> {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (!host.ok) return host;
  if (at < 0) return { ok: true, value: { user: undefined, host: host.value } };
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) return { ok: false, error: 'net/url: invalid userinfo' };
  const colon = userinfo.indexOf(':');
  const username = goUnescape(colon < 0 ? userinfo : userinfo.slice(0, colon), 'userPassword');
  if (!username.ok) return username;
  let user = goEscape(username.value, 'userPassword');
  if (colon >= 0) {
    const password = goUnescape(userinfo.slice(colon + 1), 'userPassword');
    if (!password.ok) return password;
    user += `:${goEscape(password.value, 'userPassword')}`;
  }
  return { ok: true, value: { user, host: host.value } };
}

// url.getScheme
function getScheme(raw: string): Parsed<{ scheme: string; rest: string }> {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { ok: true, value: { scheme: '', rest: raw } };
      continue;
    }
    if (c === ':') {
      if (i === 0) return { ok: false, error: 'missing protocol scheme' };
      return { ok: true, value: { scheme: raw.slice(0, i), rest: raw.slice(i + 1) } };
    }
    return { ok: true, value: { scheme: '', rest: raw } };
  }
  return { ok: true, value: { scheme: '', rest: raw } };
}

// url.parse without the fragment (viaRequest false)
function parseWithoutFragment(raw: string): Parsed<GoURL> {
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return { ok: false, error: 'net/url: invalid control character in URL' };
  const url: GoURL = { scheme: '', user: undefined, host: '', rawQuery: '', fragment: '' };
  if (raw === '*') return { ok: true, value: url };
  const sch = getScheme(raw);
  if (!sch.ok) return sch;
  url.scheme = sch.value.scheme.toLowerCase();
  let rest = sch.value.rest;
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    // rootless paths are opaque ("https:host" has no host)
    if (url.scheme !== '') return { ok: true, value: url };
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) return { ok: false, error: 'first path segment in URL cannot contain colon' };
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const a = parseAuthority(authority);
    if (!a.ok) return a;
    url.user = a.value.user;
    url.host = a.value.host;
  }
  const path = goUnescape(rest, 'path');
  if (!path.ok) return path;
  return { ok: true, value: url };
}

/** net/url.Parse, with its error text (`parse "<url>": <why>`). */
function parseGoURL(raw: string): Parsed<GoURL> {
  const hash = raw.indexOf('#');
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = parseWithoutFragment(beforeFragment);
  if (!parsed.ok) return { ok: false, error: `parse ${goQuote(beforeFragment)}: ${parsed.error}` };
  if (hash < 0 || hash === raw.length - 1) return parsed;
  const frag = goUnescape(raw.slice(hash + 1), 'fragment');
  if (!frag.ok) return { ok: false, error: `parse ${goQuote(raw)}: ${frag.error}` };
  return { ok: true, value: { ...parsed.value, fragment: frag.value } };
}

// ---- clientConfig ---------------------------------------------------------------------------------------

/** webhook.ValidateWebhookURL */
export function validateWebhookURL(path: FieldPath, url: string, forceHttps: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const form = '; desired format: https://host[/path]';
  const parsed = parseGoURL(url);
  if (!parsed.ok) return [fieldErrors.required(path, `url must be a valid URL: ${parsed.error}${form}`)];
  const u = parsed.value;
  if (forceHttps && u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host.length === 0) errs.push(fieldErrors.invalid(path, u.host, `host must be provided${form}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(fieldErrors.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService */
export function validateWebhookService(path: FieldPath, namespace: string, name: string, urlPath: string | undefined, port: number): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(fieldErrors.required(path.child('name'), 'service name is required'));
  if (namespace.length === 0) errs.push(fieldErrors.required(path.child('namespace'), 'service namespace is required'));
  if (!(port >= 1 && port <= 65535)) errs.push(fieldErrors.invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (urlPath === undefined || urlPath === '/' || urlPath.length === 0) return errs;
  const p = path.child('path');
  if (urlPath === '//') return [...errs, fieldErrors.invalid(p, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(p, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(fieldErrors.invalid(p, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(p, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

function validateClientConfig(hook: WebhookCommon, path: FieldPath): FieldError[] {
  const cc = hook.clientConfig ?? {};
  const hasURL = isSet(cc.url);
  const hasService = isSet(cc.service);
  if (hasURL === hasService) return [fieldErrors.required(path.child('clientConfig'), 'exactly one of url or service is required')];
  if (hasURL) return validateWebhookURL(path.child('clientConfig', 'url'), str(cc.url), true);
  const svc = cc.service!;
  const port = isSet(svc.port) ? Number(svc.port) : 443;
  return validateWebhookService(path.child('clientConfig', 'service'), str(svc.namespace), str(svc.name), isSet(svc.path) ? str(svc.path) : undefined, port);
}

// ---- names ----------------------------------------------------------------------------------------------

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain with at least three segments. */
export function validateFullyQualifiedName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [fieldErrors.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

// ---- rules ----------------------------------------------------------------------------------------------

const hasWildcard = (items: readonly string[]): boolean => items.includes('*');

// validateResources: `x/*` and `*/x` exclude their more specific forms, `*/*` stands alone, `*` excludes plain resources.
function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((raw, i) => {
    const resSub = str(raw);
    if (resSub === '') {
      errs.push(fieldErrors.required(path.index(i)));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // kube assigns rather than ORs: only the last plain entry decides
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource.has(sub)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(res);
    if (res === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) errs.push(fieldErrors.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) errs.push(fieldErrors.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: RuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const groups = list(rule.apiGroups).map(str);
  const versions = list(rule.apiVersions).map(str);
  if (groups.length === 0) errs.push(fieldErrors.required(path.child('apiGroups')));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(fieldErrors.invalid(path.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  // the group may be empty (the core group); a version may not
  if (versions.length === 0) errs.push(fieldErrors.required(path.child('apiVersions')));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(fieldErrors.invalid(path.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(path.child('apiVersions').index(i)));
  });
  errs.push(...validateResources(list(rule.resources).map(str), path.child('resources')));
  if (isSet(rule.scope) && !validScopes.includes(rule.scope)) errs.push(fieldErrors.notSupported(path.child('scope'), rule.scope, validScopes));
  return errs;
}

/** validateRuleWithOperations */
export function validateRuleWithOperations(rule: RuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = list(rule.operations).map(str);
  if (ops.length === 0) errs.push(fieldErrors.required(path.child('operations')));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(fieldErrors.invalid(path.child('operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(op)) errs.push(fieldErrors.notSupported(path.child('operations').index(i), op, supportedOperations));
  });
  return errs.concat(validateRule(rule, path));
}

// ---- admissionReviewVersions ------------------------------------------------------------------------------

const isAcceptedAdmissionReviewVersion = (v: string): boolean => acceptedAdmissionReviewVersions.includes(v);

function validateAdmissionReviewVersions(versions: readonly string[], requireRecognized: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length < 1) return [fieldErrors.required(path, `must specify one of ${acceptedAdmissionReviewVersions.join(', ')}`)];
  const seen = new Set<string>();
  let hasAccepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(path.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(path.index(i), v, msg));
    if (isAcceptedAdmissionReviewVersion(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted) errs.push(fieldErrors.invalid(path, versions, `must include at least one of ${acceptedAdmissionReviewVersions.join(', ')}`));
  return errs;
}

// ---- matchConditions --------------------------------------------------------------------------------------

function validateMatchConditions(hook: WebhookCommon, rules: RuleOptions, opts: WebhookConfigurationValidationOptions, path: FieldPath): FieldError[] {
  const conditions = list(hook.matchConditions);
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push(fieldErrors.tooMany(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((raw, i) => {
    const cond = raw ?? { name: '', expression: '' };
    const p = path.index(i);
    const expression = str(cond.expression).trim();
    if (expression.length === 0) errs.push(fieldErrors.required(p.child('expression')));
    else {
      const detail = opts.compileMatchCondition?.(expression, { stored: rules.preexistingMatchConditionExpressions.has(expression) });
      if (detail !== undefined) errs.push(fieldErrors.invalid(p.child('expression'), expression, detail));
    }
    const name = str(cond.name);
    if (name.length === 0) errs.push(fieldErrors.required(p.child('name')));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(p.child('name'), name, msg));
    if (name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

// ---- one webhook ----------------------------------------------------------------------------------------

function validateSelector(sel: LabelSelectorLike | null | undefined, rules: RuleOptions, path: FieldPath): FieldError[] {
  if (!isSet(sel)) return [];
  return validateLabelSelector(sel, path, { allowInvalidLabelValueInSelector: rules.allowInvalidLabelValueInSelector });
}

// validateValidatingWebhook / validateMutatingWebhook: the same checks, in kube's order, reinvocationPolicy for mutating only.
function validateWebhook(hook: WebhookCommon, mutating: boolean, rules: RuleOptions, opts: WebhookConfigurationValidationOptions, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [...validateFullyQualifiedName(path.child('name'), str(hook.name))];
  list(hook.rules).forEach((rule, i) => errs.push(...validateRuleWithOperations(rule ?? {}, path.child('rules').index(i))));
  if (isSet(hook.failurePolicy) && !supportedFailurePolicies.includes(hook.failurePolicy)) {
    errs.push(fieldErrors.notSupported(path.child('failurePolicy'), hook.failurePolicy, supportedFailurePolicies));
  }
  if (isSet(hook.matchPolicy) && !supportedMatchPolicies.includes(hook.matchPolicy)) {
    errs.push(fieldErrors.notSupported(path.child('matchPolicy'), hook.matchPolicy, supportedMatchPolicies));
  }
  const allowedSideEffects = rules.requireNoSideEffects ? noSideEffectClasses : supportedSideEffectClasses;
  if (!isSet(hook.sideEffects)) errs.push(fieldErrors.required(path.child('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(hook.sideEffects)) errs.push(fieldErrors.notSupported(path.child('sideEffects'), hook.sideEffects, allowedSideEffects));
  if (isSet(hook.timeoutSeconds) && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(fieldErrors.invalid(path.child('timeoutSeconds'), hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  errs.push(...validateSelector(hook.namespaceSelector, rules, path.child('namespaceSelector')));
  errs.push(...validateSelector(hook.objectSelector, rules, path.child('objectSelector')));
  if (mutating) {
    const policy = (hook as MutatingWebhook).reinvocationPolicy;
    if (isSet(policy) && !supportedReinvocationPolicies.includes(policy)) {
      errs.push(fieldErrors.notSupported(path.child('reinvocationPolicy'), policy, supportedReinvocationPolicies));
    }
  }
  errs.push(...validateClientConfig(hook, path));
  if (!rules.ignoreMatchConditions) errs.push(...validateMatchConditions(hook, rules, opts, path.child('matchConditions')));
  return errs;
}

// ---- configurations -------------------------------------------------------------------------------------

type AnyConfiguration = ValidatingWebhookConfiguration | MutatingWebhookConfiguration;

function webhooksOf(obj: AnyConfiguration): readonly WebhookCommon[] {
  return list(obj.webhooks as readonly WebhookCommon[] | undefined).map((w) => w ?? ({} as WebhookCommon));
}

function validateConfiguration(obj: AnyConfiguration, mutating: boolean, rules: RuleOptions, opts: WebhookConfigurationValidationOptions): FieldError[] {
  const errs: FieldError[] = opts.validateObjectMeta ? validateObjectMetaCreate(obj.metadata, { namespaced: false, nameRule: 'DNS1123Subdomain' }) : [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const path = FieldPath.root('webhooks').index(i);
    errs.push(...validateWebhook(hook, mutating, rules, opts, path));
    errs.push(...validateAdmissionReviewVersions(list(hook.admissionReviewVersions).map(str), rules.requireRecognizedAdmissionReviewVersion, path.child('admissionReviewVersions')));
    const name = str(hook.name);
    if (rules.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(path.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** ValidateValidatingWebhookConfiguration: create (and static manifests). */
export function validateValidatingWebhookConfiguration(obj: ValidatingWebhookConfiguration, opts: WebhookConfigurationValidationOptions = {}): FieldError[] {
  return validateConfiguration(obj, false, createRules, opts);
}

/** ValidateMutatingWebhookConfiguration: create (and static manifests). */
export function validateMutatingWebhookConfiguration(obj: MutatingWebhookConfiguration, opts: WebhookConfigurationValidationOptions = {}): FieldError[] {
  return validateConfiguration(obj, true, createRules, opts);
}

// What an update relaxes, judged on the old object: a rule it already broke is not enforced again, so that
// objects stored by older apiservers can still be updated.
function updateRules(obj: AnyConfiguration, old: AnyConfiguration): RuleOptions {
  const hooks = webhooksOf(obj);
  const oldHooks = webhooksOf(old);
  const sameMatchConditions = hooks.length === oldHooks.length && hooks.every((h, i) => sameMatchConditionList(h.matchConditions, oldHooks[i]!.matchConditions));
  const oldNames = oldHooks.map((h) => str(h.name));
  return {
    // unchanged matchConditions are not validated (or compiled) again
    ignoreMatchConditions: sameMatchConditions,
    requireNoSideEffects: oldHooks.every((h) => isSet(h.sideEffects) && noSideEffectClasses.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = list(h.admissionReviewVersions).map(str);
      return versions.length === 0 || versions.some(isAcceptedAdmissionReviewVersion);
    }),
    requireUniqueWebhookNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValueInSelector: oldHooks.some(
      (h) =>
        (isSet(h.namespaceSelector) && validateLabelSelector(h.namespaceSelector, FieldPath.root('')).length > 0) ||
        (isSet(h.objectSelector) && validateLabelSelector(h.objectSelector, FieldPath.root('')).length > 0),
    ),
    preexistingMatchConditionExpressions: new Set(oldHooks.flatMap((h) => list(h.matchConditions).map((c) => str(c?.expression)))),
  };
}

// reflect.DeepEqual of the matchConditions lists; absent, null and [] are all "no conditions" once stored
function sameMatchConditionList(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (v === null || v === undefined || (Array.isArray(v) && v.length === 0) ? undefined : v);
  return jsonEqual(norm(a), norm(b));
}

/** ValidateValidatingWebhookConfigurationUpdate */
export function validateValidatingWebhookConfigurationUpdate(
  obj: ValidatingWebhookConfiguration,
  old: ValidatingWebhookConfiguration,
  opts: WebhookConfigurationValidationOptions = {},
): FieldError[] {
  return validateConfiguration(obj, false, updateRules(obj, old), opts);
}

/** ValidateMutatingWebhookConfigurationUpdate */
export function validateMutatingWebhookConfigurationUpdate(
  obj: MutatingWebhookConfiguration,
  old: MutatingWebhookConfiguration,
  opts: WebhookConfigurationValidationOptions = {},
): FieldError[] {
  return validateConfiguration(obj, true, updateRules(obj, old), opts);
}

// ---- defaults (admissionregistration/v1 SetDefaults_*) ----------------------------------------------------

type Mutable = Record<string, unknown>;

function setDefault(o: Mutable, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

function defaultWebhook(hook: Mutable, mutating: boolean): void {
  setDefault(hook, 'failurePolicy', 'Fail');
  setDefault(hook, 'matchPolicy', 'Equivalent');
  setDefault(hook, 'namespaceSelector', {});
  setDefault(hook, 'objectSelector', {});
  setDefault(hook, 'timeoutSeconds', 10);
  if (mutating) setDefault(hook, 'reinvocationPolicy', 'Never');
  const cc = hook['clientConfig'];
  const svc = cc && typeof cc === 'object' ? (cc as Mutable)['service'] : undefined;
  if (svc && typeof svc === 'object') setDefault(svc as Mutable, 'port', 443);
  for (const rule of list(hook['rules'] as unknown[] | undefined)) {
    if (rule && typeof rule === 'object') setDefault(rule as Mutable, 'scope', '*');
  }
}

function defaultConfiguration(obj: AnyConfiguration, mutating: boolean): void {
  for (const hook of list(obj.webhooks as unknown[] | undefined)) {
    if (hook && typeof hook === 'object') defaultWebhook(hook as Mutable, mutating);
  }
}

/** SetDefaults_ValidatingWebhook, SetDefaults_Rule and SetDefaults_ServiceReference over the whole object, in place. */
export function setDefaultsValidatingWebhookConfiguration(obj: ValidatingWebhookConfiguration): void {
  defaultConfiguration(obj, false);
}

/** SetDefaults_MutatingWebhook (reinvocationPolicy Never too), SetDefaults_Rule and SetDefaults_ServiceReference, in place. */
export function setDefaultsMutatingWebhookConfiguration(obj: MutatingWebhookConfiguration): void {
  defaultConfiguration(obj, true);
}

// ---- warnings -------------------------------------------------------------------------------------------

const groupResourceString = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

// excludedResourcesNamedByRule: only explicit names count — a wildcard group or resource says nothing about
// intent — and versions do not matter since every version of an excluded resource is excluded.
function excludedResourcesNamedByRule(rule: RuleWithOperations, excluded: readonly GroupResource[]): GroupResource[] {
  const groups = list(rule.apiGroups).map(str);
  const resources = list(rule.resources).map(str);
  if (groups.includes('*') || resources.includes('*')) return [];
  const matched: GroupResource[] = [];
  for (const group of groups) {
    for (const resource of resources) {
      const isExcluded = excluded.some((gr) => gr.group === group && gr.resource === resource);
      if (isExcluded && !matched.some((m) => m.group === group && m.resource === resource)) matched.push({ group, resource });
    }
  }
  return matched;
}

function warningsForWebhookRules(webhooks: readonly WebhookCommon[], excluded: readonly GroupResource[]): string[] {
  const warnings: string[] = [];
  webhooks.forEach((hook, i) => {
    list(hook.rules).forEach((rule, j) => {
      const path = FieldPath.root('webhooks').index(i).child('rules').index(j);
      for (const gr of excludedResourcesNamedByRule(rule ?? {}, excluded)) {
        warnings.push(`${path}: ${groupResourceString(gr)} is excluded from admission webhooks; this rule will have no effect`);
      }
    });
  });
  return warnings;
}

/** WarningsForValidatingWebhookRules: one warning per rule naming an excluded virtual resource explicitly. */
export function warningsForValidatingWebhookRules(obj: ValidatingWebhookConfiguration, excluded: readonly GroupResource[] = excludedVirtualResources): string[] {
  return warningsForWebhookRules(webhooksOf(obj), excluded);
}

/** WarningsForMutatingWebhookRules */
export function warningsForMutatingWebhookRules(obj: MutatingWebhookConfiguration, excluded: readonly GroupResource[] = excludedVirtualResources): string[] {
  return warningsForWebhookRules(webhooksOf(obj), excluded);
}

/** The suffix reserved for manifest-based (static) admission configurations, KEP-5793. */
export const staticConfigSuffix = '.static.k8s.io';

/** ValidateStaticSuffix: with ManifestBasedAdmissionControlConfig on, REST objects may not use the reserved suffix. */
export function validateStaticSuffix(name: string, path: FieldPath = FieldPath.root('metadata', 'name')): FieldError[] {
  if (!name.endsWith(staticConfigSuffix)) return [];
  return [fieldErrors.invalid(path, name, `names ending with ${goQuote(staticConfigSuffix)} are reserved for static manifest-based configurations and cannot be managed via the API`)];
}

/**
 * WarningsForStaticSuffix (pkg/apis/admissionregistration/validation/static_suffix.go): kube's strategies warn with it
 * on create while ManifestBasedAdmissionControlConfig is off, and on every update whatever the gate.
 */
export function warningsForStaticSuffix(name: string): string[] {
  if (!name.endsWith(staticConfigSuffix)) return [];
  return [`metadata.name: names ending with ${goQuote(staticConfigSuffix)} are reserved for static manifest-based configurations and cannot be managed via the API`];
}
