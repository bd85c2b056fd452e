// kube-apiserver-style command line: flags, feature gates and admission plugin names.
export { parseServerOptions, serverOptionsUsage, supportedAuthorizationModes } from './server-options.js';
export type { AuthorizationMode, ServerOptions, ServerOptionsResult, StorageBackend } from './server-options.js';
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
