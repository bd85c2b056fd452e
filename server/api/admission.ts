// admission.k8s.io/v1 and v1beta1 AdmissionReview: what the apiserver sends to a webhook and what it reads back.
// Field names are the v1 JSON ones (k8s.io/api/admission/v1/types.go); v1beta1 has the same shape on the wire.
import type { GroupVersionKind, GroupVersionResource, KubeObject, ListMeta, StatusDetails, StatusReason, UserInfo } from './types.js';

export const admissionGroup = 'admission.k8s.io';
export type AdmissionReviewVersion = 'v1' | 'v1beta1';
export type AdmissionReviewApiVersion = 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
export const admissionReviewApiVersions: readonly AdmissionReviewApiVersion[] = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The only patch type admission webhooks may return. */
export type AdmissionPatchType = 'JSONPatch';

export interface AdmissionRequest {
  /** Echoed back in the response; distinguishes reinvocations of the same request. */
  uid: string;
  /** The kind of `object` as sent to the webhook (after conversion to the matched version). */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** The kind originally requested, when matchPolicy Equivalent converted it. */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  /** The new object: absent for DELETE. */
  object?: KubeObject | null;
  /** The existing object: set for UPDATE and DELETE. */
  oldObject?: KubeObject | null;
  dryRun?: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions / PatchOptions of the request. */
  options?: KubeObject | null;
}

/**
 * metav1.Status as a webhook returns it in `response.status`: webhooks usually send only a few fields
 * (`{code, message}`), so nothing is required here, unlike the server's own `Status`.
 */
export interface AdmissionResponseStatus {
  kind?: 'Status';
  apiVersion?: 'v1';
  metadata?: ListMeta;
  status?: 'Success' | 'Failure' | string;
  message?: string;
  reason?: StatusReason | string;
  details?: StatusDetails;
  code?: number;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionResponseStatus;
  /** Base64 of a JSON patch (RFC 6902) document. */
  patch?: string;
  patchType?: AdmissionPatchType;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: AdmissionReviewApiVersion;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** An AdmissionReview as the apiserver sends it: the request is always set. */
export interface AdmissionReviewRequest extends AdmissionReview {
  request: AdmissionRequest;
}

/** An AdmissionReview as a webhook answers it: the response is always set. */
export interface AdmissionReviewResponse extends AdmissionReview {
  response: AdmissionResponse;
}

export function isAdmissionReviewApiVersion(v: unknown): v is AdmissionReviewApiVersion {
  return typeof v === 'string' && (admissionReviewApiVersions as readonly string[]).includes(v);
}
