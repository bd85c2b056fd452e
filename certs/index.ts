// Certificates for the apiserver and its clients: CA, serving and client certificates, the reusable bundle
// in --cert-dir, and kubeconfigs that embed them.
export { generateCA, escapeDnValue } from './ca.js';
export type { CAOptions, CertKeyPair, ValidityOptions } from './ca.js';
export { defaultServingHosts, issueClientCert, issueServingCert, splitHosts } from './issue.js';
export type { ClientCertOptions, ServingCertOptions } from './issue.js';
export { certCoversHosts, certIssuedBy, certValidAt, inspectCert, keyMatchesCert } from './inspect.js';
export type { CertInfo } from './inspect.js';
export { adminGroups, adminUser, ensureServingBundle, servingBundlePaths, writeCertBundle } from './bundle.js';
export type { CertBundleResult, CertBundleSpec, ServingBundle, ServingBundleOptions, ServingBundlePaths, ServingBundleResult, WrittenCertBundle } from './bundle.js';
export { certDirMode, certDirModeProblem, prepareCertDir } from './cert-dir.js';
export type { CertDirResult } from './cert-dir.js';
export { buildKubeconfig, defaultClusterName, writeKubeconfig, writeKubeconfigSync } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
