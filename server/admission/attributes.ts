// admission.Attributes: everything an admission plugin may look at for one request.
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../api/types.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  name: string;
  namespace: string;
  /** the object being written; mutating plugins may change it in place (undefined for DELETE) */
  object: KubeObject | undefined;
  /** the stored object for UPDATE and DELETE */
  oldObject: KubeObject | undefined;
  /** CreateOptions / UpdateOptions / DeleteOptions as sent, with kind and apiVersion meta.k8s.io/v1 */
  options: KubeObject;
  dryRun: boolean;
  userInfo: UserInfo;
  /** audit annotations added by plugins (key → value) */
  annotations: Record<string, string>;
  /** warnings for the client (Warning headers) */
  warnings: string[];
}
