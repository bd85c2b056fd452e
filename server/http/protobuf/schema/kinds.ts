// Which apiVersion/kind pairs have a protobuf message: a small table read on every content negotiation, separate
// from the messages themselves (which load with the codec, on the first protobuf body).
import { kubeKinds } from './kube-kinds.generated.js';

/** The message an envelope's apiVersion and kind name, undefined for kinds without one (custom resources, Table). */
export function messageForKind(apiVersion: string, kind: string): string | undefined {
  const gv = kubeKinds.groupVersions[apiVersion];
  if (!gv) return undefined;
  if (Object.hasOwn(gv, kind)) return gv[kind];
  if (Object.hasOwn(kubeKinds.everyGroupVersion, kind)) return kubeKinds.everyGroupVersion[kind];
  if (apiVersion === 'v1' && Object.hasOwn(kubeKinds.unversioned, kind)) return kubeKinds.unversioned[kind];
  return undefined;
}

/** Whether a group version is one of kube's built-in ones (served with protobuf), not a custom resource's. */
export function isBuiltinGroupVersion(group: string, version: string): boolean {
  return Object.hasOwn(kubeKinds.groupVersions, group ? `${group}/${version}` : version);
}
