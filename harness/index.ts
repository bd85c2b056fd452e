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
  ApiServerCoverageOptions,
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
export type { ApiServerEnv, JestStyleHooks, NodeTestHooks, TestHooks, UseWebhookServerOptions, WebhookEnv } from './jest.js';

// The client-node this package is built and tested with (a 1.x: 2.x needs Node 22), so that a test gets a working
// client without installing a second, possibly incompatible copy: `env.client(k8s.CoreV1Api)`.
export * as k8s from '@kubernetes/client-node';

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

// Admission coverage (startApiServer({ coverage: true }), --admission-coverage, `kah report`)
export { mergeCoverageReports } from '../server/admission/coverage/build-report.js';
export { renderCoverageHtml } from '../server/admission/coverage/html-report.js';
export { coverageSchemaVersion, parseCoverageReport } from '../server/admission/coverage/report-schema.js';
export type {
  AdmissionCoverageReport,
  BindingCoverage,
  ConfigurationCoverage,
  CoverageConfigurationKind,
  CoverageDecision,
  DecisionCounts,
  ErrorCount,
  MatchedRequest,
  MessageCount,
  RuleCell,
} from '../server/admission/coverage/report-schema.js';
export { formatCoverageSummary } from '../server/admission/coverage/summary-table.js';
