// CertificateSigningRequests: kube's csrStrategy, csrStatusStrategy and csrApprovalStrategy
// (pkg/registry/certificates/certificates/strategy.go) and validateCertificateSigningRequest /
// validateCertificateSigningRequestUpdate (pkg/apis/certificates/validation/validation.go).
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';
import { objAt, type Obj } from '../fields.js';
import { checkCertificateRequest, checkIssuedCertificate, goBytes } from './csr-request.js';

interface Condition {
  type?: string;
  status?: string;
}

const allValidUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const trueConditionTypes = new Set(['Approved', 'Denied', 'Failed']);
const allStatusValues = ['False', 'True', 'Unknown'];
const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';

const conditionsOf = (o: KubeObject): Condition[] => {
  const v = (o['status'] as Obj | undefined)?.['conditions'];
  return Array.isArray(v) ? (v as Condition[]) : [];
};

/** ValidateSignerName of kube's core validation: "<domain>/<path>", the domain DNS labels with at least one dot. */
function validateSignerName(path: FieldPath, signerName: string): FieldError[] {
  if (signerName.length === 0) return [fieldErrors.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldErrors.tooLong(path, domain, 253));
  const labels = domain.split('.');
  for (const lbl of labels) {
    const msgs = isDNS1123Label(lbl);
    if (msgs.length > 0) {
      for (const msg of msgs) errs.push(fieldErrors.invalid(path, domain, `validating label ${JSON.stringify(lbl)}: ${msg}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  if (rest.length === 0) errs.push(fieldErrors.invalid(path, rest, 'must be a valid path segment'));
  return errs;
}

function hasDuplicateTypes(conds: Condition[]): boolean {
  const seen = new Set<string | undefined>();
  return conds.some((c) => (seen.has(c.type) ? true : (seen.add(c.type), false)));
}

function validateCSR(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj['spec'] ?? {}) as Obj;
  const specPath = FieldPath.root('spec');
  const request = Buffer.from(typeof spec['request'] === 'string' ? spec['request'] : '', 'base64');
  const problem = checkCertificateRequest(request);
  if (problem) errs.push(fieldErrors.invalid(specPath.child('request'), new GoStructValue(goBytes(request)), problem));
  const usages = Array.isArray(spec['usages']) ? (spec['usages'] as unknown[]) : [];
  if (usages.length === 0) errs.push(fieldErrors.required(specPath.child('usages')));
  // compatibility with stored data: what an old object already has is tolerated on update
  const oldUsages = old ? (((old['spec'] as Obj | undefined)?.['usages'] as unknown[] | undefined) ?? []) : [];
  if (!oldUsages.some((u) => !allValidUsages.includes(String(u)))) {
    usages.forEach((u, i) => {
      if (!allValidUsages.includes(String(u))) errs.push(fieldErrors.notSupported(specPath.child('usages').index(i), u, allValidUsages));
    });
  }
  if (new Set(oldUsages).size === oldUsages.length) {
    const seen = new Set<unknown>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(fieldErrors.duplicate(specPath.child('usages').index(i), u));
      seen.add(u);
    });
  }
  const signerName = typeof spec['signerName'] === 'string' ? spec['signerName'] : '';
  const oldSigner = (old?.['spec'] as Obj | undefined)?.['signerName'];
  if (signerName === legacyUnknownSignerName && oldSigner !== legacyUnknownSignerName) {
    errs.push(fieldErrors.invalid(specPath.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...validateSignerName(specPath.child('signerName'), signerName));
  const exp = spec['expirationSeconds'];
  if (typeof exp === 'number' && exp < 600) errs.push(fieldErrors.invalid(specPath.child('expirationSeconds'), exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  errs.push(...validateConditions(obj, old));
  return errs;
}

function validateConditions(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('status', 'conditions');
  const oldConds = old ? conditionsOf(old) : [];
  const allowEmptyType = oldConds.some((c) => !c.type);
  const allowBoth = oldConds.some((c) => c.type === 'Approved') && oldConds.some((c) => c.type === 'Denied');
  const allowDuplicates = hasDuplicateTypes(oldConds);
  const seen = new Set<string | undefined>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    if (!allowEmptyType && !c.type) errs.push(fieldErrors.required(path.index(i).child('type')));
    const allowed = trueConditionTypes.has(c.type ?? '') ? ['True'] : allStatusValues;
    if (!c.status) errs.push(fieldErrors.required(path.index(i).child('status')));
    else if (!allowed.includes(c.status)) errs.push(fieldErrors.notSupported(path.index(i).child('status'), c.status, allowed));
    if (!allowBoth) {
      if (c.type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldErrors.invalid(path.index(i).child('type'), c.type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (c.type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldErrors.invalid(path.index(i).child('type'), c.type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allowDuplicates && seen.has(c.type)) errs.push(fieldErrors.duplicate(path.index(i).child('type'), c.type));
    seen.add(c.type);
  });
  return errs;
}

/**
 * validateCertificateSigningRequestUpdate. The per-path rules (no approval conditions but through /approval, no
 * certificate but through /status) are enforced by prepareForUpdate, which resets what each path may not write,
 * as kube's three strategies do; what is left to check here is the removal of a condition.
 */
function validateCSRUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCSR(obj, old);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(obj).filter((c) => c.type === t).length < conditionsOf(old).filter((c) => c.type === t).length) {
      errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
    }
  }
  const cert = (obj['status'] as Obj | undefined)?.['certificate'];
  const oldCert = (old['status'] as Obj | undefined)?.['certificate'];
  if (!jsonEqual(cert ?? '', oldCert ?? '')) {
    if (typeof oldCert === 'string' && oldCert.length > 0) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
    // allowArbitraryCertificate: content is checked only when it changes (and stored bad content is tolerated)
    const oldBad = typeof oldCert === 'string' && checkIssuedCertificate(Buffer.from(oldCert, 'base64')) !== undefined;
    const problem = typeof cert === 'string' && !oldBad ? checkIssuedCertificate(Buffer.from(cert, 'base64')) : undefined;
    if (problem) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', problem));
  }
  return errs;
}

export const certificateSigningRequestStrategy: Strategy = {
  prepareForCreate(obj, user) {
    // the requestor is who sent the request, whatever the body says; users cannot create pre-approved requests
    const spec = objAt(obj as Obj, 'spec');
    delete spec['username'];
    delete spec['uid'];
    delete spec['groups'];
    delete spec['extra'];
    if (user.username) spec['username'] = user.username;
    if (user.uid) spec['uid'] = user.uid;
    if (user.groups && user.groups.length > 0) spec['groups'] = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) spec['extra'] = structuredClone(user.extra);
    obj['status'] = {};
  },
  prepareForUpdate(next, old, subresource) {
    next['spec'] = structuredClone(old['spec']);
    if (subresource === '') {
      // csrStrategy: spec and status are immutable through the main resource
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = structuredClone(old['status']);
    } else if (subresource === 'status') {
      // csrStatusStrategy: status, but not the approval conditions
      const status = objAt(next, 'status');
      const oldConds = (old['status'] as Obj | undefined)?.['conditions'];
      if (oldConds === undefined) delete status['conditions'];
      else status['conditions'] = structuredClone(oldConds);
    } else if (subresource === 'approval') {
      // csrApprovalStrategy: the old status with the new conditions
      const conditions = (next['status'] as Obj | undefined)?.['conditions'];
      const status: Obj = structuredClone((old['status'] as Obj | undefined) ?? {});
      if (conditions === undefined) delete status['conditions'];
      else status['conditions'] = conditions;
      next['status'] = status;
    }
  },
  validate: (obj) => validateCSR(obj),
  validateUpdate: (obj, old) => validateCSRUpdate(obj, old),
};
