// The package's public API: processes (etcd, apiserver), startup-failure checks, the test webhook server, jest
// helpers, certificates and kubeconfigs, and the API types a webhook test needs.

export { startEtcd, resolveEtcdBinary } from './etcd-process.js';
export type { EtcdExit, EtcdProcess, EtcdStartOptions } from './etcd-process.js';

export {
  ApiServerStartError,
  buildAdmissionConfig,
  buildApiServerArgs,
  defaultServerEntry,
  formatFeatureGates,
  parseFeatureGates,
  startApiServer,
} from './apiserver-process.js';
export type {
  ApiServerExit,
  ApiServerHandle,
  ApiServerOptions,
  ApiServerRequestOptions,
  ApiServerResponse,
  StaticManifestPlugin,
} from './apiserver-process.js';

export { expectStartupFailure, UnexpectedStartupError } from './startup-failure.js';
export type { StartupFailure } from './startup-failure.js';

export {
  admissionReviewProblem,
  allow,
  closeConnection,
  delay,
  deny,
  hang,
  httpError,
  nonJSON,
  patch,
  respond,
  startWebhookServer,
  status,
  withAuditAnnotations,
  withWarnings,
  wrongApiVersion,
  wrongUid,
} from './webhook-server.js';
export type {
  BadWebhookRequest,
  CertificateAuthority,
  ReceivedReview,
  WebhookFault,
  WebhookHandler,
  WebhookReply,
  WebhookResponse,
  WebhookServer,
  WebhookServerOptions,
} from './webhook-server.js';

export {
  changeApiVersionOnly,
  conversionFaults,
  conversionReviewProblem,
  startConversionWebhookServer,
} from './conversion-webhook-server.js';
export type {
  ConversionFailure,
  ConversionFault,
  ConversionWebhookServer,
  ConversionWebhookServerOptions,
  ConvertFunction,
  ReceivedConversionReview,
} from './conversion-webhook-server.js';

export { fileOfLoaderError, hashInForce, manifestDirHash, ManifestReloadError, waitForManifestsInForce, writeManifestsAndWait } from './manifest-reload.js';
export type { ManifestFileChanges, ManifestsInForce, ManifestWaitOptions } from './manifest-reload.js';

export { useApiServer, useWebhookServer } from './jest.js';
export type { ApiServerEnv, UseWebhookServerOptions, WebhookEnv } from './jest.js';

export { cleanupAll, trackedResources } from './cleanup.js';
export { freePort } from './ports.js';

export * from '../certs/index.js';

// The scenario runner (runScenario, runScenarios, …): the same YAML scenarios `kah scenario run` takes, from TypeScript.
export * from '../scenarios/index.js';

export type {
  AdmissionOperation,
  AdmissionPatchType,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionResponseStatus,
  AdmissionReview,
  AdmissionReviewApiVersion,
  AdmissionReviewRequest,
  AdmissionReviewResponse,
} from '../server/api/admission.js';
export type { GroupVersionKind, GroupVersionResource, KubeObject, ObjectMeta, Status, UserInfo } from '../server/api/types.js';
