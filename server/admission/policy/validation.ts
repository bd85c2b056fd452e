// ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings: validation and v1 defaulting as
// kube-apiserver has them (pkg/apis/admissionregistration/validation/validation.go, …/v1/defaults.go). Pure
// functions over plain objects, shared by the REST strategies (server/registry/strategies/policies.ts) and the
// static manifest loader, which adds its own rules on top.
//
// Validation runs on defaulted objects, as kube validates the internal version after defaulting: an absent
// failurePolicy or matchPolicy is the defaulted value there, so "Required" only shows for objects that skipped
// defaulting.
//
// CEL expressions are compiled when a CelEnvironment is passed in the options and their errors reported at the
// expression's field path (`Invalid value: "<expression>": compilation failed: ERROR: <input>:1:5: …`); without
// one only the structure is checked.
import type {
  AuditAnnotation,
  Condition,
  MatchCondition,
  MatchResources,
  Mutation,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicySpec,
  MutatingAdmissionPolicyBinding,
  NamedRuleWithOperations,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicySpec,
  ValidatingAdmissionPolicyBinding,
  Validation,
  Variable,
} from '../../api/admissionregistration.js';
import { fieldErrors, FieldPath, type FieldError } from '../../api/field.js';
import { jsonEqual } from '../../registry/object-fields.js';
import { validateLabelSelector } from '../../registry/selectors/label-selector.js';
import { validateLabelName, validateObjectMetaCreate } from '../../registry/validation/object-meta.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegmentName, regexError } from '../../registry/validation/name.js';
import type { CelEnvironment, CompileOptions, ExpressionKind } from '../cel/environment.js';
import { validateRuleWithOperations } from '../webhook/validation.js';

// ---- options ----------------------------------------------------------------------------------------------

export interface PolicyValidationOptions {
  /** compile every CEL expression and report its errors at its field path; without it expressions are not compiled */
  cel?: CelEnvironment;
  /**
   * Also run ValidateObjectMeta on metadata, as kube's validators do. Off by default because the registry
   * validates metadata for every resource itself; the manifest loader turns it on.
   */
  validateObjectMeta?: boolean;
}

// kube's validationOptions, as far as policies use them.
interface RuleOptions {
  /** unchanged matchConditions (and paramKind) of an update are not validated again */
  ignoreMatchConditions: boolean;
}

const createRules: RuleOptions = { ignoreMatchConditions: false };

// ---- wire-shape helpers -----------------------------------------------------------------------------------

// Objects come off the wire: a field may be missing, null, or (before strict decoding) of another type.
const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
const list = <T>(v: readonly T[] | null | undefined): readonly T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const obj = <T extends object>(v: T | null | undefined): T => (v !== null && typeof v === 'object' ? v : ({} as T));
// Go's strings.TrimSpace
const trimSpace = (s: string): string => s.replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/g, '');

// ---- sets of supported values (sets.String.List(): sorted) ------------------------------------------------

const supportedFailurePolicies = ['Fail', 'Ignore'];
const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedReinvocationPolicies = ['IfNeeded', 'Never'];
const supportedValidationPolicyReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const supportedValidationActions = ['Audit', 'Deny', 'Warn'];
const supportedPatchTypes = ['ApplyConfiguration', 'JSONPatch'];
/** MutatingAdmissionPolicy never runs on DELETE */
const supportedMutatingOperations = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const supportedParameterNotFoundActions = ['Deny', 'Allow'];
const supportedConditionStatuses = ['False', 'True', 'Unknown'];

/** The maximum number of matchConditions per policy. */
export const maxMatchConditions = 64;
export const maxAuditAnnotations = 20;
/** 5 kB: less than the 10 kB value limit, since an expression that concatenates strings often grows its value */
export const maxAuditAnnotationValueExpressionLength = 5 * 1024;

// ---- CEL --------------------------------------------------------------------------------------------------

/** What every expression of one policy is compiled with (kube's OptionalVariableDeclarations + composition). */
interface PolicyCompileContext {
  cel: CelEnvironment | undefined;
  hasParams: boolean;
  /** names of the policy's variables; each variable sees only those before it */
  variableNames: readonly string[];
}

function compileAt(ctx: PolicyCompileContext, path: FieldPath, shown: string, expression: string, opts: Omit<CompileOptions, 'hasParams' | 'variableNames'> & { variableNames?: readonly string[]; hasParams?: boolean }): FieldError[] {
  if (!ctx.cel) return [];
  const result = ctx.cel.compile(expression, {
    kind: opts.kind,
    hasParams: opts.hasParams ?? ctx.hasParams,
    hasAuthorizer: opts.hasAuthorizer,
    variableNames: opts.variableNames ?? ctx.variableNames,
    ...(opts.mutation ? { mutation: opts.mutation } : {}),
  });
  if (result.ok) return [];
  // kube's convertCELErrorToValidationError: ErrorTypeInternal becomes field.InternalError
  return [result.internal ? fieldErrors.internal(path, result.error) : fieldErrors.invalid(path, shown, result.error)];
}

const boolKind: ExpressionKind = 'bool';

// ---- names ------------------------------------------------------------------------------------------------

/** apivalidation.ValidateQualifiedName */
function validateQualifiedName(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

const celIdentRegex = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** isCELIdentifier: IDENT ::= [_a-zA-Z][_a-zA-Z0-9]* - RESERVED */
export function isCELIdentifier(name: string): boolean {
  return celIdentRegex.test(name) && !celReserved.has(name);
}

// ---- matchConstraints / matchResources -------------------------------------------------------------------

function validateNamedRuleWithOperations(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(rule.resourceNames).forEach((raw, i) => {
    const name = str(raw);
    for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid(path.child('resourceNames').index(i), name, msg));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(path.child('resourceNames').index(i), name));
    else seen.add(name);
  });
  return errs.concat(validateRuleWithOperations(rule, path));
}

/** validateMatchResources: selectors are validated strictly (the type was released after kube#99139). */
export function validateMatchResources(mc: MatchResources | null | undefined, path: FieldPath): FieldError[] {
  if (!isSet(mc)) return [];
  const errs: FieldError[] = [];
  if (!isSet(mc.matchPolicy)) errs.push(fieldErrors.required(path.child('matchPolicy')));
  else if (!supportedMatchPolicies.includes(mc.matchPolicy)) errs.push(fieldErrors.notSupported(path.child('matchPolicy'), mc.matchPolicy, supportedMatchPolicies));
  if (!isSet(mc.namespaceSelector)) errs.push(fieldErrors.required(path.child('namespaceSelector')));
  else errs.push(...validateLabelSelector(mc.namespaceSelector, path.child('namespaceSelector')));
  if (!isSet(mc.objectSelector)) errs.push(fieldErrors.required(path.child('objectSelector')));
  else errs.push(...validateLabelSelector(mc.objectSelector, path.child('objectSelector')));
  list(mc.resourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), path.child('resourceRules').index(i))));
  list(mc.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), path.child('excludeResourceRules').index(i))));
  return errs;
}

// ---- paramKind / paramRef ---------------------------------------------------------------------------------

type ParsedGroupVersion = { ok: true; group: string; version: string } | { ok: false; error: string };

/** validation.go's parseGroupVersion: "" and "/" are the empty group version, more than one slash an error. */
function parseGroupVersion(gv: string): ParsedGroupVersion {
  if (gv.length === 0 || gv === '/') return { ok: true, group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { ok: true, group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { ok: true, group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return { ok: false, error: `unexpected GroupVersion string: ${gv}` };
}

function validateParamKind(pk: ParamKind, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  const kind = str(pk.kind);
  if (apiVersion.length === 0) errs.push(fieldErrors.required(path.child('apiVersion')));
  else {
    const gv = parseGroupVersion(apiVersion);
    if (!gv.ok) errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, gv.error));
    else {
      // as the APIService group and version fields are validated
      if (gv.group.length > 0) {
        const groupErrs = isDNS1123Subdomain(gv.group);
        if (groupErrs.length > 0) errs.push(fieldErrors.invalid(path.child('apiVersion'), gv.group, groupErrs.join(',')));
      }
      if (gv.version.length === 0) errs.push(fieldErrors.invalid(path.child('apiVersion'), apiVersion, 'version must be specified'));
      else {
        const versionErrs = isDNS1035Label(gv.version);
        if (versionErrs.length > 0) errs.push(fieldErrors.invalid(path.child('apiVersion'), gv.version, versionErrs.join(',')));
      }
    }
  }
  if (kind.length === 0) errs.push(fieldErrors.required(path.child('kind')));
  else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length > 0) errs.push(fieldErrors.invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  return errs;
}

function validateParamRef(pr: ParamRef | null | undefined, path: FieldPath): FieldError[] {
  if (!isSet(pr)) return [];
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = isSet(pr.selector);
  if (name.length > 0) {
    for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid(path.child('name'), name, msg));
    if (hasSelector) errs.push(fieldErrors.forbidden(path.child('name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, path.child('selector')));
    if (name.length > 0) errs.push(fieldErrors.forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (!isSet(action) || str(action).length === 0) errs.push(fieldErrors.required(path.child('parameterNotFoundAction')));
  else if (!supportedParameterNotFoundActions.includes(action)) {
    errs.push(fieldErrors.notSupported(path.child('parameterNotFoundAction'), action, supportedParameterNotFoundActions));
  }
  return errs;
}

// ---- matchConditions --------------------------------------------------------------------------------------

// Policies' matchConditions are compiled without variable composition (kube's stateless compiler), with
// params when the policy has a paramKind.
function validateMatchConditions(conditions: readonly MatchCondition[], ctx: PolicyCompileContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push(fieldErrors.tooMany(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((raw, i) => {
    const cond = obj(raw);
    const p = path.index(i);
    const expression = trimSpace(str(cond.expression));
    if (expression.length === 0) errs.push(fieldErrors.required(p.child('expression')));
    else errs.push(...compileAt(ctx, p.child('expression'), expression, expression, { kind: boolKind, hasAuthorizer: true, variableNames: [] }));
    const name = str(cond.name);
    if (name.length === 0) errs.push(fieldErrors.required(p.child('name')));
    else errs.push(...validateQualifiedName(name, p.child('name')));
    if (name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(p.child('name'), name));
      else names.add(name);
    }
  });
  return errs;
}

// ---- variables, validations, audit annotations ------------------------------------------------------------

function validateVariable(v: Variable, ctx: PolicyCompileContext, earlier: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v.name);
  const expression = str(v.expression);
  if (trimSpace(name) === '') errs.push(fieldErrors.required(path.child('name'), 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(fieldErrors.invalid(path.child('name'), name, 'must be a valid CEL identifier'));
  if (trimSpace(expression) === '') errs.push(fieldErrors.required(path.child('expression'), 'expression is not specified'));
  else errs.push(...compileAt(ctx, path.child('expression'), expression, expression, { kind: 'any', hasAuthorizer: true, variableNames: earlier }));
  return errs;
}

// kube's newline check: the characters CEL's grammar takes as line breaks
const hasNewlines = (s: string): boolean => /[\n\r]+/.test(s);

function validateValidation(v: Validation, ctx: PolicyCompileContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  const message = str(v.message);
  const messageExpression = str(v.messageExpression);
  const trimmedMsg = trimSpace(message);
  if (trimSpace(expression).length === 0) errs.push(fieldErrors.required(path.child('expression'), 'expression is not specified'));
  else errs.push(...compileAt(ctx, path.child('expression'), expression, expression, { kind: boolKind, hasAuthorizer: true }));
  if (messageExpression.length > 0 && trimSpace(messageExpression).length === 0) {
    errs.push(fieldErrors.invalid(path.child('messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (trimSpace(messageExpression).length !== 0) {
    // compiled untrimmed so that the compiler's columns point into what the user wrote
    errs.push(...compileAt(ctx, path.child('messageExpression'), messageExpression, messageExpression, { kind: 'string', hasAuthorizer: false }));
  }
  if (message.length > 0 && trimmedMsg.length === 0) errs.push(fieldErrors.invalid(path.child('message'), message, 'must be non-empty if specified'));
  else if (hasNewlines(trimmedMsg)) errs.push(fieldErrors.invalid(path.child('message'), message, 'must not contain line breaks'));
  if (isSet(v.reason) && !supportedValidationPolicyReasons.includes(v.reason)) {
    errs.push(fieldErrors.notSupported(path.child('reason'), v.reason, supportedValidationPolicyReasons));
  }
  return errs;
}

function validateAuditAnnotation(policyName: string, a: AuditAnnotation, ctx: PolicyCompileContext, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  // the published key is "<policy name>/<key>", which must be a qualified name
  if (policyName.length !== 0) errs.push(...validateQualifiedName(`${policyName}/${key}`, path.child('key')));
  else errs.push(fieldErrors.invalid(path.child('key'), key, 'requires metadata.name be non-empty'));
  const valueExpression = str(a.valueExpression);
  const trimmed = trimSpace(valueExpression);
  if (trimmed.length === 0) errs.push(fieldErrors.required(path.child('valueExpression'), 'valueExpression is not specified'));
  else if (Buffer.byteLength(trimmed, 'utf8') > maxAuditAnnotationValueExpressionLength) {
    errs.push(fieldErrors.required(path.child('valueExpression'), `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  } else errs.push(...compileAt(ctx, path.child('valueExpression'), valueExpression, trimmed, { kind: 'string', hasAuthorizer: true }));
  return errs;
}

// ---- ValidatingAdmissionPolicy ----------------------------------------------------------------------------

function validateFailurePolicy(fp: unknown, path: FieldPath): FieldError[] {
  if (!isSet(fp)) return [fieldErrors.required(path)];
  return supportedFailurePolicies.includes(str(fp)) ? [] : [fieldErrors.notSupported(path, fp, supportedFailurePolicies)];
}

function variableNamesOf(variables: readonly Variable[]): string[] {
  return variables.map((v) => str(obj(v).name));
}

/**
 * What validating and mutating policies validate alike: failurePolicy, paramKind and matchConstraints (with at
 * least one resourceRule, which gives the expressions type information); also the CEL compile context.
 */
function validateCommonPolicySpec(spec: ValidatingAdmissionPolicySpec | MutatingAdmissionPolicySpec, path: FieldPath, opts: PolicyValidationOptions) {
  const hasParams = isSet(spec.paramKind);
  const variables = list(spec.variables);
  const ctx: PolicyCompileContext = { cel: opts.cel, hasParams, variableNames: variableNamesOf(variables) };
  const errs: FieldError[] = [...validateFailurePolicy(spec.failurePolicy, path.child('failurePolicy'))];
  if (hasParams) errs.push(...validateParamKind(obj(spec.paramKind), path.child('paramKind')));
  if (!isSet(spec.matchConstraints)) errs.push(fieldErrors.required(path.child('matchConstraints')));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, path.child('matchConstraints')));
    if (list(spec.matchConstraints.resourceRules).length === 0) errs.push(fieldErrors.required(path.child('matchConstraints', 'resourceRules')));
  }
  return { hasParams, variables, ctx, errs };
}

function validateValidatingAdmissionPolicySpec(policyName: string, p: ValidatingAdmissionPolicy, rules: RuleOptions, opts: PolicyValidationOptions): FieldError[] {
  const spec = obj(p.spec);
  const path = FieldPath.root('spec');
  const { hasParams, variables, ctx, errs } = validateCommonPolicySpec(spec, path, opts);
  if (!rules.ignoreMatchConditions) errs.push(...validateMatchConditions(list(spec.matchConditions), ctx, path.child('matchConditions')));
  variables.forEach((v, i) => errs.push(...validateVariable(obj(v), ctx, ctx.variableNames.slice(0, i), path.child('variables').index(i))));
  const validations = list(spec.validations);
  const auditAnnotations = list(spec.auditAnnotations);
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errs.push(fieldErrors.required(path.child('validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required(path.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(obj(v), ctx, path.child('validations').index(i))));
  if (isSet(spec.auditAnnotations)) {
    if (auditAnnotations.length > maxAuditAnnotations) {
      errs.push(fieldErrors.invalid(path.child('auditAnnotations'), auditAnnotations, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
    }
    const keys = new Set<string>();
    auditAnnotations.forEach((a, i) => {
      const annotation = obj(a);
      errs.push(...validateAuditAnnotation(policyName, annotation, ctx, path.child('auditAnnotations').index(i)));
      const key = str(annotation.key);
      if (keys.has(key)) errs.push(fieldErrors.duplicate(path.child('auditAnnotations').index(i).child('key'), key));
      keys.add(key);
    });
  }
  return errs;
}

function metaErrors(o: { metadata?: ValidatingAdmissionPolicy['metadata'] }, opts: PolicyValidationOptions): FieldError[] {
  return opts.validateObjectMeta ? validateObjectMetaCreate(o.metadata, { namespaced: false, nameRule: 'DNS1123Subdomain' }) : [];
}

/** ValidateValidatingAdmissionPolicy: create (and static manifests). */
export function validateValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy, opts: PolicyValidationOptions = {}): FieldError[] {
  return [...metaErrors(p, opts), ...validateValidatingAdmissionPolicySpec(str(p.metadata?.name), p, createRules, opts)];
}

// ignoreValidatingAdmissionPolicyMatchConditions: nothing that could invalidate matchConditions changed.
function sameMatchConditions(spec: { paramKind?: unknown; matchConditions?: unknown } | undefined, old: { paramKind?: unknown; matchConditions?: unknown } | undefined): boolean {
  // equality.Semantic.DeepEqual: absent, null and [] lists are all "no conditions" once stored
  const norm = (v: unknown): unknown => (v === null || v === undefined || (Array.isArray(v) && v.length === 0) ? undefined : v);
  return jsonEqual(norm(spec?.paramKind), norm(old?.paramKind)) && jsonEqual(norm(spec?.matchConditions), norm(old?.matchConditions));
}

/** ValidateValidatingAdmissionPolicyUpdate */
export function validateValidatingAdmissionPolicyUpdate(p: ValidatingAdmissionPolicy, old: ValidatingAdmissionPolicy, opts: PolicyValidationOptions = {}): FieldError[] {
  const rules: RuleOptions = { ignoreMatchConditions: sameMatchConditions(p.spec, old.spec) };
  return [...metaErrors(p, opts), ...validateValidatingAdmissionPolicySpec(str(p.metadata?.name), p, rules, opts)];
}

// ---- status -----------------------------------------------------------------------------------------------

const conditionReasonFmt = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const conditionReasonRegexp = new RegExp(`^${conditionReasonFmt}$`);
const conditionReasonErrMsg =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const maxConditionReasonLen = 1024;
const maxConditionMessageLen = 32 * 1024;

/** metav1validation.ValidateCondition */
function validateCondition(c: Condition, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [...validateLabelName(str(c.type), path.child('type'))];
  if (!supportedConditionStatuses.includes(str(c.status))) errs.push(fieldErrors.notSupported(path.child('status'), c.status ?? '', supportedConditionStatuses));
  if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) {
    errs.push(fieldErrors.invalid(path.child('observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
  }
  if (!c.lastTransitionTime) errs.push(fieldErrors.required(path.child('lastTransitionTime'), 'must be set'));
  const reason = str(c.reason);
  if (reason.length === 0) errs.push(fieldErrors.required(path.child('reason'), 'must be set'));
  else {
    if (!conditionReasonRegexp.test(reason)) {
      errs.push(fieldErrors.invalid(path.child('reason'), reason, regexError(conditionReasonErrMsg, conditionReasonFmt, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    }
    if (reason.length > maxConditionReasonLen) errs.push(fieldErrors.tooLong(path.child('reason'), reason, maxConditionReasonLen));
  }
  const message = str(c.message);
  if (message.length > maxConditionMessageLen) errs.push(fieldErrors.tooLong(path.child('message'), message, maxConditionMessageLen));
  return errs;
}

/** metav1validation.ValidateConditions: each condition, and condition types unique. */
export function validateConditions(conditions: readonly Condition[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = obj(raw);
    const type = str(c.type);
    if (types.has(type)) errs.push(fieldErrors.duplicate(path.index(i).child('type'), type));
    else types.add(type);
    errs.push(...validateCondition(c, path.index(i)));
  });
  return errs;
}

/**
 * validateFieldRef: a JSONPath kube's jsonpath parser accepts inside `{…}`. Only the syntax is checked ("for an
 * easier upgrade/rollback"): balanced brackets and quotes, no empty segments.
 */
export function validateFieldRef(fieldRef: string, path: FieldPath): FieldError[] {
  const ref = trimSpace(fieldRef);
  if (ref === '') return [fieldErrors.required(path)];
  const problem = jsonPathProblem(ref);
  return problem ? [fieldErrors.invalid(path, ref, `invalid JSONPath: ${problem}`)] : [];
}

// The parts of client-go's jsonpath parser that a fieldRef like "spec.validations[0].expression" can trip.
function jsonPathProblem(ref: string): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (const ch of ref) {
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') {
      if (depth === 0) return 'unexpected right bracket';
      depth--;
    }
  }
  if (quote) return 'unclosed quote';
  if (depth > 0) return 'unterminated array';
  return undefined;
}

/** ValidateValidatingAdmissionPolicyStatusUpdate: only status is validated on writes to /status. */
export function validateValidatingAdmissionPolicyStatus(p: ValidatingAdmissionPolicy): FieldError[] {
  const status = obj(p.status);
  const path = FieldPath.root('status');
  const errs: FieldError[] = [];
  if (isSet(status.typeChecking)) {
    list(obj(status.typeChecking).expressionWarnings).forEach((raw, i) => {
      const w = obj(raw);
      const p2 = path.child('typeChecking', 'expressionWarnings').index(i);
      if (str(w.warning) === '') errs.push(fieldErrors.required(p2.child('warning')));
      errs.push(...validateFieldRef(str(w.fieldRef), p2.child('fieldRef')));
    });
  }
  errs.push(...validateConditions(list(status.conditions), path.child('conditions')));
  return errs;
}

// ---- bindings ---------------------------------------------------------------------------------------------

function validatePolicyName(policyName: unknown, path: FieldPath): FieldError[] {
  const name = str(policyName);
  if (name.length === 0) return [fieldErrors.required(path)];
  return isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid(path, name, msg));
}

function validateValidationActions(actions: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!supportedValidationActions.includes(action)) errs.push(fieldErrors.notSupported(path.index(i), action, supportedValidationActions));
    if (seen.has(action)) errs.push(fieldErrors.duplicate(path.index(i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid(path, [...actions], 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

/** ValidateValidatingAdmissionPolicyBinding: create, update (kube validates both the same way) and manifests. */
export function validateValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding, opts: PolicyValidationOptions = {}): FieldError[] {
  const spec = obj(b.spec);
  const path = FieldPath.root('spec');
  return [
    ...metaErrors(b, opts),
    ...validatePolicyName(spec.policyName, path.child('policyName')),
    ...validateParamRef(spec.paramRef, path.child('paramRef')),
    ...validateMatchResources(spec.matchResources, path.child('matchResources')),
    ...validateValidationActions(list(spec.validationActions).map(str), path.child('validationActions')),
  ];
}

/** ValidateValidatingAdmissionPolicyBindingUpdate */
export function validateValidatingAdmissionPolicyBindingUpdate(b: ValidatingAdmissionPolicyBinding, _old: ValidatingAdmissionPolicyBinding, opts: PolicyValidationOptions = {}): FieldError[] {
  return validateValidatingAdmissionPolicyBinding(b, opts);
}

// ---- MutatingAdmissionPolicy ------------------------------------------------------------------------------

// kube reports unsupported operations at the list path without an index
function mutatingOperationErrors(mr: MatchResources | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const rule of list(mr?.resourceRules)) {
    for (const op of list(obj(rule).operations).map(str)) {
      if (!supportedMutatingOperations.includes(op)) errs.push(fieldErrors.notSupported(path, op, supportedMutatingOperations));
    }
  }
  return errs;
}

function validateMutationExpression(expression: unknown, ctx: PolicyCompileContext, patchType: 'ApplyConfiguration' | 'JSONPatch', path: FieldPath): FieldError[] {
  const trimmed = trimSpace(str(expression));
  if (trimmed.length === 0) return [fieldErrors.required(path.child('expression'))];
  return compileAt(ctx, path.child('expression'), trimmed, trimmed, { kind: 'any', hasAuthorizer: true, mutation: patchType });
}

function validateMutation(m: Mutation, ctx: PolicyCompileContext, path: FieldPath): FieldError[] {
  const patchType = str(m.patchType);
  if (patchType.length === 0) return [fieldErrors.required(path.child('patchType'))];
  const errs: FieldError[] = [];
  switch (patchType) {
    case 'JSONPatch':
      if (!isSet(m.jsonPatch)) errs.push(fieldErrors.required(path.child('jsonPatch'), 'must be specified when patchType is JSONPatch'));
      else errs.push(...validateMutationExpression(obj(m.jsonPatch).expression, ctx, 'JSONPatch', path.child('jsonPatch')));
      if (isSet(m.applyConfiguration)) errs.push(fieldErrors.invalid(path.child('applyConfiguration'), '{applyConfiguration}', 'must not be specified when patchType is JSONPatch'));
      break;
    case 'ApplyConfiguration':
      if (!isSet(m.applyConfiguration)) errs.push(fieldErrors.required(path.child('applyConfiguration'), 'must be specified when patchType is ApplyConfiguration'));
      else errs.push(...validateMutationExpression(obj(m.applyConfiguration).expression, ctx, 'ApplyConfiguration', path.child('applyConfiguration')));
      if (isSet(m.jsonPatch)) errs.push(fieldErrors.invalid(path.child('jsonPatch'), '{jsonPatch}', 'must not be specified when patchType is ApplyConfiguration'));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('patchType'), patchType, supportedPatchTypes));
  }
  return errs;
}

function validateMutatingAdmissionPolicySpec(p: MutatingAdmissionPolicy, rules: RuleOptions, opts: PolicyValidationOptions): FieldError[] {
  const spec = obj(p.spec);
  const path = FieldPath.root('spec');
  const { hasParams, variables, ctx, errs } = validateCommonPolicySpec(spec, path, opts);
  if (isSet(spec.matchConstraints)) {
    errs.push(...mutatingOperationErrors(spec.matchConstraints, path.child('matchConstraints', 'resourceRules', 'operations')));
  }
  if (!rules.ignoreMatchConditions) errs.push(...validateMatchConditions(list(spec.matchConditions), ctx, path.child('matchConditions')));
  variables.forEach((v, i) => errs.push(...validateVariable(obj(v), ctx, ctx.variableNames.slice(0, i), path.child('variables').index(i))));
  const mutations = list(spec.mutations);
  if (mutations.length === 0) errs.push(fieldErrors.required(path.child('mutations'), 'mutations must contain at least one item'));
  else mutations.forEach((m, i) => errs.push(...validateMutation(obj(m), ctx, path.child('mutations').index(i))));
  const reinvocation = str(spec.reinvocationPolicy);
  if (reinvocation.length === 0) errs.push(fieldErrors.required(path.child('reinvocationPolicy')));
  else if (!supportedReinvocationPolicies.includes(reinvocation)) errs.push(fieldErrors.notSupported(path.child('reinvocationPolicy'), reinvocation, supportedReinvocationPolicies));
  return errs;
}

/** ValidateMutatingAdmissionPolicy: create (and static manifests). */
export function validateMutatingAdmissionPolicy(p: MutatingAdmissionPolicy, opts: PolicyValidationOptions = {}): FieldError[] {
  return [...metaErrors(p, opts), ...validateMutatingAdmissionPolicySpec(p, createRules, opts)];
}

/** ValidateMutatingAdmissionPolicyUpdate */
export function validateMutatingAdmissionPolicyUpdate(p: MutatingAdmissionPolicy, old: MutatingAdmissionPolicy, opts: PolicyValidationOptions = {}): FieldError[] {
  return [...metaErrors(p, opts), ...validateMutatingAdmissionPolicySpec(p, { ignoreMatchConditions: sameMatchConditions(p.spec, old.spec) }, opts)];
}

/** ValidateMutatingAdmissionPolicyBinding: no validationActions; matchResources may not select DELETE. */
export function validateMutatingAdmissionPolicyBinding(b: MutatingAdmissionPolicyBinding, opts: PolicyValidationOptions = {}): FieldError[] {
  const spec = obj(b.spec);
  const path = FieldPath.root('spec');
  return [
    ...metaErrors(b, opts),
    ...validatePolicyName(spec.policyName, path.child('policyName')),
    ...validateParamRef(spec.paramRef, path.child('paramRef')),
    ...validateMatchResources(spec.matchResources, path.child('matchResources')),
    ...(isSet(spec.matchResources) ? mutatingOperationErrors(spec.matchResources, path.child('matchResources', 'resourceRules', 'operations')) : []),
  ];
}

/** ValidateMutatingAdmissionPolicyBindingUpdate */
export function validateMutatingAdmissionPolicyBindingUpdate(b: MutatingAdmissionPolicyBinding, _old: MutatingAdmissionPolicyBinding, opts: PolicyValidationOptions = {}): FieldError[] {
  return validateMutatingAdmissionPolicyBinding(b, opts);
}

// ---- defaults (admissionregistration/v1 SetDefaults_*) ----------------------------------------------------

type Mutable = Record<string, unknown>;

const isObject = (v: unknown): v is Mutable => v !== null && typeof v === 'object' && !Array.isArray(v);

function setDefault(o: Mutable, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

/** SetDefaults_MatchResources and SetDefaults_Rule of every (exclude)resourceRule, in place. */
export function setDefaultsMatchResources(mr: unknown): void {
  if (!isObject(mr)) return;
  setDefault(mr, 'matchPolicy', 'Equivalent');
  setDefault(mr, 'namespaceSelector', {});
  setDefault(mr, 'objectSelector', {});
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    for (const rule of list(mr[key] as unknown[] | undefined)) if (isObject(rule)) setDefault(rule, 'scope', '*');
  }
}

// The spec is a struct in Go, always there to be defaulted: an object without one gets one.
function specOf(o: Mutable): Mutable {
  if (!isObject(o['spec'])) o['spec'] = {};
  return o['spec'] as Mutable;
}

/** SetDefaults_ValidatingAdmissionPolicySpec (failurePolicy Fail) and the matchConstraints defaults, in place. */
export function setDefaultsValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy): void {
  const spec = specOf(p as Mutable);
  setDefault(spec, 'failurePolicy', 'Fail');
  setDefaultsMatchResources(spec['matchConstraints']);
}

/**
 * The matchResources defaults, in place. v1 has no default for paramRef.parameterNotFoundAction (v1alpha1 had
 * Deny): kube-apiserver requires it, and so does this server.
 */
export function setDefaultsValidatingAdmissionPolicyBinding(b: ValidatingAdmissionPolicyBinding): void {
  setDefaultsMatchResources(specOf(b as Mutable)['matchResources']);
}

/**
 * SetDefaults_MutatingAdmissionPolicySpec (failurePolicy Fail) and the matchConstraints defaults, in place.
 * reinvocationPolicy has no default in kube-apiserver: it is required.
 */
export function setDefaultsMutatingAdmissionPolicy(p: MutatingAdmissionPolicy): void {
  const spec = specOf(p as Mutable);
  setDefault(spec, 'failurePolicy', 'Fail');
  setDefaultsMatchResources(spec['matchConstraints']);
}

/** The matchResources defaults, in place. */
export function setDefaultsMutatingAdmissionPolicyBinding(b: MutatingAdmissionPolicyBinding): void {
  setDefaultsMatchResources(specOf(b as Mutable)['matchResources']);
}
