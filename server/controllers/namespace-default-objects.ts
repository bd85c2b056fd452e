// The objects kube-controller-manager puts in every namespace, which pods rely on: the `default` ServiceAccount
// (pkg/controller/serviceaccount/serviceaccounts_controller.go) and the kube-root-ca.crt ConfigMap
// (pkg/controller/certificates/rootcacertpublisher/publisher.go) the projected token volume mounts.
import type { KubeObject } from '../api/types.js';

export const rootCaConfigMapName = 'kube-root-ca.crt';
/** publisher.go's DescriptionAnnotation value */
const rootCaDescription =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export function defaultServiceAccountObject(namespace: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } };
}

export function rootCaConfigMapObject(namespace: string, caPem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: rootCaConfigMapName, namespace, annotations: { 'kubernetes.io/description': rootCaDescription } },
    data: { 'ca.crt': caPem },
  };
}

/** The publisher rewrites the bundle when it differs from the apiserver's. */
export function rootCaDrifted(stored: KubeObject, desired: KubeObject): boolean {
  const data = (o: KubeObject) => JSON.stringify((o['data'] as Record<string, string> | undefined) ?? {});
  return data(stored) !== data(desired);
}
