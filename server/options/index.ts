// kube-apiserver-style command line: flags, feature gates, admission plugin names and the
// --admission-control-config-file (AdmissionConfiguration) loader.
export { parseServerOptions, parseWebhookServiceMapping, serverOptionsUsage, supportedAuthorizationModes } from './server-options.js';
export type { AuthorizationMode, ServerOptions, ServerOptionsResult, StorageBackend, WebhookServiceMapping } from './server-options.js';
export { defaultFeatureGates, knownFeatures, parseFeatureGates, setFeatureGates } from './feature-gates.js';
export type { FeatureGates, FeatureGatesResult, FeatureName, FeatureSpec, FeatureStage } from './feature-gates.js';
export {
  allOrderedAdmissionPlugins,
  enabledAdmissionPlugins,
  implementedAdmissionPlugins,
  isImplementedAdmissionPlugin,
  validateAdmissionPluginFlags,
} from './admission-plugins.js';
export type { ImplementedAdmissionPlugin } from './admission-plugins.js';
export { loadAdmissionConfiguration, validateStaticManifestsDir } from './admission-config.js';
export type {
  AdmissionConfig,
  AdmissionConfigResult,
  JsonValue,
  LoadAdmissionConfigurationOptions,
  OtherAdmissionPluginConfig,
  PolicyAdmissionPluginConfig,
  WebhookAdmissionPluginConfig,
} from './admission-config.js';
