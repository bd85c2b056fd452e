// The Kubernetes version whose API this server mirrors (discovery, /version, kubectl's version skew checks).
export const kubernetesMajor = '1';
export const kubernetesMinor = '36';
export const kubernetesGitVersion = `v${kubernetesMajor}.${kubernetesMinor}.0-kah`;
