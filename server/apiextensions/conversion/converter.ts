// Converting custom resources between the versions of their CRD, as kube's apiextensions-apiserver conversion
// package does: strategy None only rewrites apiVersion (nopConverter); strategy Webhook posts a ConversionReview
// to the CRD's conversion webhook (webhookConverter) through the admission webhooks' HTTPS client.
//
// Objects are converted one at a time, as kube does when its storage codec decodes each object read from etcd
// (and encodes each one written): an object already in the desired version is returned unchanged without a call.
// Failures are kube's plain errors, which kube-apiserver answers as 500 Status with no reason and the error as
// the message (`conversion webhook for stable.example.com/v1, Kind=CronTab failed: …`).
import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from '../../api/apiextensions.js';
import { errors, StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { WebhookClient } from '../../admission/webhook/client.js';
import type { WebhookClientConfig } from '../../api/admissionregistration.js';
import { formatGroupVersion, formatGvk, gvkOf, rawExtensionObject, restoreObjectMeta, validateConvertedObject } from './converted-object.js';
import {
  conversionReviewVersionFor,
  convertedObjectsFromResponse,
  createConversionReview,
  decodeConversionReview,
  noSupportedConversionReviewVersionsMessage,
} from './review.js';
import { parseGroupVersion } from '../../api/go-json-document.js';

export interface CustomResourceConverter {
  /**
   * Each object in `desiredAPIVersion` ("group/version"), in order. Throws a StatusError with kube's message when
   * any conversion fails (no partial results).
   */
  convert(objects: KubeObject[], desiredAPIVersion: string): Promise<KubeObject[]>;
}

export interface ConverterDeps {
  /**
   * The HTTPS client conversion webhooks are called with. kube's conversion webhooks use the service resolver
   * but not the admission kubeconfig credentials: build it with `createWebhookClient({ serviceResolver })`.
   * Its client-wide timeout (default 30 s, kube's) bounds every call.
   */
  webhookClient: WebhookClient;
  /** request uids (default: random UUIDs) */
  newUid?: () => string;
}

/** An error kube-apiserver answers with ErrorToAPIStatus's fallback: 500, no reason, the error text as message. */
export function conversionFailure(message: string): StatusError {
  const err = new StatusError(500, '', message);
  delete err.status.reason;
  return err;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** isEmptyUnstructuredObject: only apiVersion and kind (kube's cacher smoke-tests the converter with these). */
function isEmptyObject(obj: KubeObject): boolean {
  const keys = Object.keys(obj);
  return keys.length === 2 && 'kind' in obj && 'apiVersion' in obj;
}

/** crConverter's checks before delegating: both versions must be versions of the CRD (served or not). */
function checkVersions(crd: CustomResourceDefinition, obj: KubeObject, desiredAPIVersion: string): void {
  const valid = new Set(crd.spec.versions.map((v) => `${crd.spec.group}/${v.name}`));
  const to = parseGroupVersion(desiredAPIVersion);
  const toGv = to.ok ? formatGroupVersion(to) : '';
  if (!valid.has(toGv)) throw conversionFailure(`request to convert CR to an invalid group/version: ${toGv}`);
  const from = gvkOf(obj as Record<string, unknown>);
  const fromGv = formatGroupVersion(from);
  if (!valid.has(fromGv)) throw conversionFailure(`request to convert CR from an invalid group/version: ${fromGv}`);
}

/** nopConverter: the object as it is, in the desired version. */
function nopConvert(obj: KubeObject, desiredAPIVersion: string): KubeObject {
  return { ...structuredClone(obj), apiVersion: desiredAPIVersion };
}

/** webhookClientConfigForCRD: a service port defaults to 443 (v1 defaulting). */
function clientConfigOf(crd: CustomResourceDefinition): WebhookClientConfig {
  const cc = crd.spec.conversion?.webhook?.clientConfig ?? {};
  const out: WebhookClientConfig = {};
  if (cc.url !== undefined) out.url = cc.url;
  if (cc.service) out.service = { ...cc.service, port: cc.service.port ?? 443 };
  if (cc.caBundle) out.caBundle = cc.caBundle;
  return out;
}

function webhookConverter(crd: CustomResourceDefinition, deps: ConverterDeps): (obj: KubeObject, desiredAPIVersion: string) => Promise<KubeObject> {
  const clientConfig = clientConfigOf(crd);
  const reviewVersions = crd.spec.conversion?.webhook?.conversionReviewVersions ?? [];
  const newUid = deps.newUid ?? randomUUID;
  return async (obj, desiredAPIVersion) => {
    if (isEmptyObject(obj)) return nopConvert(obj, desiredAPIVersion);
    const inGvk = formatGvk(gvkOf(obj as Record<string, unknown>));
    const uid = newUid();
    const version = conversionReviewVersionFor(reviewVersions);
    // kube builds the review before it looks at whether anything needs converting
    if (!version) throw conversionFailure(noSupportedConversionReviewVersionsMessage);
    if (obj.apiVersion === desiredAPIVersion) return obj;

    const posted = await deps.webhookClient.post({ clientConfig, body: createConversionReview(version, uid, [obj], desiredAPIVersion) });
    if (!posted.ok) {
      // kube fails to build the webhook's REST client when it sets up the CRD's storage, and answers every request
      // for the resource with this internal error.
      if (posted.stage === 'client') throw errors.internal(new Error('error resolving resource'));
      throw conversionFailure(`conversion webhook for ${inGvk} failed: ${posted.error}`);
    }
    const decoded = decodeConversionReview(posted.body, posted.contentType, posted.statusCode, version);
    if (!decoded.ok) throw conversionFailure(`conversion webhook for ${inGvk} failed: ${decoded.error}`);
    const got = convertedObjectsFromResponse(uid, version, decoded.review);
    if (!got.ok) throw conversionFailure(`conversion webhook for ${inGvk} failed: ${got.error}`);
    if (got.objects.length !== 1) throw conversionFailure(`conversion webhook for ${inGvk} returned ${got.objects.length} objects, expected 1`);

    const raw = rawExtensionObject(got.objects[0]);
    // kube returns this error without the usual prefix
    if (!raw.ok) throw conversionFailure(raw.error);
    const converted = raw.object;
    const to = parseGroupVersion(desiredAPIVersion);
    const expectedGv = to.ok ? formatGroupVersion(to) : desiredAPIVersion;
    const receivedGv = formatGroupVersion(gvkOf(converted));
    if (expectedGv !== receivedGv) {
      throw conversionFailure(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid groupVersion (expected ${expectedGv}, received ${receivedGv})`);
    }
    const expectedKind = gvkOf(obj as Record<string, unknown>).kind;
    const receivedKind = gvkOf(converted).kind;
    if (expectedKind !== receivedKind) {
      throw conversionFailure(`conversion webhook for ${inGvk} returned invalid object at index 0: invalid kind (expected ${expectedKind}, received ${receivedKind})`);
    }
    const invalid = validateConvertedObject(obj, converted);
    if (invalid) throw conversionFailure(`conversion webhook for ${inGvk} returned invalid object: ${invalid}`);
    const restored = restoreObjectMeta(obj, converted);
    if (!restored.ok) throw conversionFailure(`conversion webhook for ${inGvk} returned invalid metadata: ${restored.error}`);
    return restored.object;
  };
}

/** The converter for the CRD's spec.conversion (strategy None when absent, as v1 defaulting sets it). */
export function converterFor(crd: CustomResourceDefinition, deps: ConverterDeps): CustomResourceConverter {
  const strategy = crd.spec.conversion?.strategy ?? 'None';
  let convertOne: (obj: KubeObject, desiredAPIVersion: string) => Promise<KubeObject>;
  switch (strategy) {
    case 'None':
      convertOne = (obj, desired) => Promise.resolve(obj.apiVersion === desired ? obj : nopConvert(obj, desired));
      break;
    case 'Webhook':
      convertOne = webhookConverter(crd, deps);
      break;
    default:
      // NewConverter's error for a strategy validation should have rejected
      throw new Error(`unknown conversion strategy ${JSON.stringify(strategy)} for CRD ${crd.metadata?.name ?? ''}`);
  }
  return {
    async convert(objects, desiredAPIVersion) {
      const out: KubeObject[] = [];
      for (const obj of objects) {
        if (!isObject(obj)) throw errors.internal(new Error(`unexpected type ${typeof obj}`));
        checkVersions(crd, obj, desiredAPIVersion);
        out.push(await convertOne(obj, desiredAPIVersion));
      }
      return out;
    },
  };
}
