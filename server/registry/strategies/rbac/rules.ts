// The PolicyRule and Subject checks of kube's pkg/apis/rbac/validation/validation.go, and SetDefaults_Subject /
// SetDefaults_*RoleBinding (pkg/apis/rbac/v1/defaults.go), shared by the four RBAC kinds.
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../../validation/name.js';
import { validateLabelSelector, type LabelSelectorLike } from '../../selectors/label-selector.js';
import { listAt, type Obj } from '../fields.js';

export const rbacGroup = 'rbac.authorization.k8s.io';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export function validatePolicyRules(rules: Obj[], namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const path = FieldPath.root('rules').index(i);
    if (strings(rule['verbs']).length === 0) errs.push(fieldErrors.required(path.child('verbs'), 'verbs must contain at least one value'));
    const urls = strings(rule['nonResourceURLs']);
    if (urls.length > 0) {
      if (namespaced) errs.push(fieldErrors.invalid(path.child('nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (strings(rule['apiGroups']).length > 0 || strings(rule['resources']).length > 0 || strings(rule['resourceNames']).length > 0) {
        errs.push(fieldErrors.invalid(path.child('nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (strings(rule['apiGroups']).length === 0) errs.push(fieldErrors.required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
    if (strings(rule['resources']).length === 0) errs.push(fieldErrors.required(path.child('resources'), 'resource rules must supply at least one resource'));
    if (strings(rule['resourceNames']).length > 0 && strings(rule['resources']).length > 1) {
      errs.push(fieldErrors.required(path.child('resourceNames'), 'resource names cannot apply to multiple resources'));
    }
  });
  return errs;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateServiceAccountName is a DNS subdomain. */
function validateSubject(s: Obj, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s['name']);
  const apiGroup = str(s['apiGroup']);
  if (name === '') errs.push(fieldErrors.required(path.child('name')));
  switch (s['kind']) {
    case 'ServiceAccount':
      if (name !== '') for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(path.child('name'), name, m));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && str(s['namespace']) === '') errs.push(fieldErrors.required(path.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (name === '') errs.push(fieldErrors.invalid(path.child('name'), name, `${s['kind'] === 'User' ? 'user' : 'group'} name cannot be empty`));
      if (apiGroup !== rbacGroup) errs.push(fieldErrors.notSupported(path.child('apiGroup'), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('kind'), str(s['kind']), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

export function validateBinding(o: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = (o['roleRef'] ?? {}) as Obj;
  const refPath = FieldPath.root('roleRef');
  if (ref['apiGroup'] !== rbacGroup) errs.push(fieldErrors.notSupported(refPath.child('apiGroup'), str(ref['apiGroup']), [rbacGroup]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref['kind']))) errs.push(fieldErrors.notSupported(refPath.child('kind'), str(ref['kind']), kinds));
  const refName = str(ref['name']);
  if (refName === '') errs.push(fieldErrors.required(refPath.child('name')));
  else for (const m of isValidPathSegmentName(refName)) errs.push(fieldErrors.invalid(refPath.child('name'), refName, m));
  listAt(o, 'subjects').forEach((s, i) => errs.push(...validateSubject(s, namespaced, FieldPath.root('subjects').index(i))));
  return errs;
}

/** ValidateRoleBindingUpdate: "cannot change roleRef", the new roleRef printed as Go's %#v of rbac.RoleRef. */
export function roleRefChange(o: Obj, old: Obj): FieldError[] {
  const r = (o['roleRef'] ?? {}) as Obj;
  const p = (old['roleRef'] ?? {}) as Obj;
  if (str(r['apiGroup']) === str(p['apiGroup']) && str(r['kind']) === str(p['kind']) && str(r['name']) === str(p['name'])) return [];
  const shown = `rbac.RoleRef{APIGroup:${JSON.stringify(str(r['apiGroup']))}, Kind:${JSON.stringify(str(r['kind']))}, Name:${JSON.stringify(str(r['name']))}}`;
  return [fieldErrors.invalid('roleRef', new GoStructValue(shown), 'cannot change roleRef')];
}

/** SetDefaults_RoleBinding/ClusterRoleBinding (roleRef.apiGroup) and SetDefaults_Subject. */
export function defaultBinding(o: Obj): void {
  const ref = o['roleRef'];
  if (ref && typeof ref === 'object' && !(ref as Obj)['apiGroup']) (ref as Obj)['apiGroup'] = rbacGroup;
  for (const s of listAt(o, 'subjects')) {
    if (s['apiGroup']) continue;
    // a ServiceAccount's group is "" (omitted on the wire)
    if (s['kind'] === 'User' || s['kind'] === 'Group') s['apiGroup'] = rbacGroup;
  }
}

/** ValidateClusterRole's aggregationRule part: at least one selector, each a valid label selector. */
export function validateAggregationRule(o: Obj): FieldError[] {
  const rule = o['aggregationRule'];
  if (rule === undefined || rule === null || typeof rule !== 'object') return [];
  const path = FieldPath.root('aggregationRule').child('clusterRoleSelectors');
  const selectors = listAt(rule as Obj, 'clusterRoleSelectors');
  if (selectors.length === 0) return [fieldErrors.required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((sel, i) => validateLabelSelector(sel as LabelSelectorLike, path.index(i)));
}
