// spec.conversion validation as apiextensions-apiserver's validateCustomResourceConversion does it. kube validates
// the internal type, where the v1 `webhook.clientConfig` and `webhook.conversionReviewVersions` sit directly under
// `conversion`, so the errors name `spec.conversion.webhookClientConfig…` and `spec.conversion.conversionReviewVersions`.
import { X509Certificate } from 'node:crypto';
import type { CustomResourceDefinition, CustomResourceDefinitionSpec } from '../../api/apiextensions.js';
import { fieldErrors, type FieldError, type FieldPath } from '../../api/field.js';
import { validateWebhookService, validateWebhookURL } from '../../admission/webhook/validation.js';
import { isDNS1035Label } from '../../registry/validation/name.js';

/** The ConversionReview versions this apiserver accepts, sorted as kube's sets.String.List() prints them. */
export const acceptedConversionReviewVersions = ['v1', 'v1beta1'] as const;

export interface ConversionValidationOptions {
  /** Create: true. Update: only if the old CRD had a recognized version or none (see conversionValidationOptionsForUpdate). */
  requireRecognizedVersion?: boolean;
  /** Create: false. Update: true while the old CRD is not Established or its own caBundle was invalid. */
  allowInvalidCABundle?: boolean;
}

const isAccepted = (v: string): boolean => (acceptedConversionReviewVersions as readonly string[]).includes(v);

/** cert.ParseCertsPEM's complaint about a CA bundle, or undefined if it holds a certificate. */
export function caBundleProblem(pem: string): string | undefined {
  let found = false;
  for (const m of pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    // only CERTIFICATE blocks without PEM headers count
    if (m[1] !== 'CERTIFICATE' || /^[A-Za-z-]+:/m.test(m[2]!)) continue;
    try {
      new X509Certificate(m[0]);
    } catch {
      return 'x509: malformed certificate';
    }
    found = true;
  }
  return found ? undefined : 'data does not contain any valid RSA or ECDSA certificates';
}

function validateConversionReviewVersions(versions: readonly unknown[] | undefined, requireRecognized: boolean, path: FieldPath): FieldError[] {
  const list = (versions ?? []).map((v) => (typeof v === 'string' ? v : String(v)));
  if (list.length === 0) return [fieldErrors.required(path, '')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let hasAccepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(path.index(i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(path.index(i), v, msg));
    if (isAccepted(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted) errs.push(fieldErrors.invalid(path, list, `must include at least one of ${acceptedConversionReviewVersions.join(', ')}`));
  return errs;
}

/**
 * validateCustomResourceConversion. `fldPath` is the path of `spec.conversion`. A missing conversion is not an
 * error (v1 defaulting sets strategy None).
 */
export function validateCustomResourceConversion(spec: CustomResourceDefinitionSpec, fldPath: FieldPath, opts: ConversionValidationOptions = {}): FieldError[] {
  const conversion = spec.conversion;
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = typeof conversion.strategy === 'string' ? conversion.strategy : '';
  if (strategy === '') errs.push(fieldErrors.required(fldPath.child('strategy'), ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(fieldErrors.notSupported(fldPath.child('strategy'), strategy, ['None', 'Webhook']));
  const cc = conversion.webhook?.clientConfig ?? undefined;
  const reviewVersions = conversion.webhook?.conversionReviewVersions ?? undefined;
  const ccPath = fldPath.child('webhookClientConfig');
  if (strategy === 'Webhook') {
    if (!cc) {
      errs.push(fieldErrors.required(ccPath, 'required when strategy is set to Webhook'));
    } else {
      const hasURL = cc.url !== undefined && cc.url !== null;
      const hasService = cc.service !== undefined && cc.service !== null;
      if (hasURL === hasService) errs.push(fieldErrors.required(ccPath, 'exactly one of url or service is required'));
      else if (hasURL) errs.push(...validateWebhookURL(ccPath.child('url'), String(cc.url), true));
      else {
        const svc = cc.service!;
        // kube passes (name, namespace) to ValidateWebhookService(namespace, name, …): an empty namespace is
        // reported as the name and vice versa (kubernetes/kubernetes#141353).
        errs.push(...validateWebhookService(ccPath.child('service'), svc.name ?? '', svc.namespace ?? '', svc.path ?? undefined, svc.port ?? 443));
      }
      if (cc.caBundle && !opts.allowInvalidCABundle) {
        const problem = caBundleProblem(Buffer.from(cc.caBundle, 'base64').toString('utf8'));
        if (problem) errs.push(fieldErrors.invalid(ccPath.child('caBundle'), cc.caBundle, problem));
      }
    }
    errs.push(...validateConversionReviewVersions(reviewVersions, opts.requireRecognizedVersion ?? true, fldPath.child('conversionReviewVersions')));
  } else {
    if (cc) errs.push(fieldErrors.forbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions && reviewVersions.length > 0) {
      errs.push(fieldErrors.forbidden(fldPath.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

const establishedTrue = (crd: CustomResourceDefinition): boolean => (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');

/** The update options kube derives from the old CRD (hasValidConversionReviewVersionOrEmpty, allowInvalidCABundle). */
export function conversionValidationOptionsForUpdate(oldCrd: CustomResourceDefinition): ConversionValidationOptions {
  const oldVersions = oldCrd.spec.conversion?.webhook?.conversionReviewVersions ?? [];
  const requireRecognizedVersion = oldVersions.length === 0 || oldVersions.some(isAccepted);
  let allowInvalidCABundle: boolean;
  if (!establishedTrue(oldCrd)) allowInvalidCABundle = true;
  else {
    const oldBundle = oldCrd.spec.conversion?.webhook?.clientConfig?.caBundle;
    allowInvalidCABundle = !!oldBundle && caBundleProblem(Buffer.from(oldBundle, 'base64').toString('utf8')) !== undefined;
  }
  return { requireRecognizedVersion, allowInvalidCABundle };
}
