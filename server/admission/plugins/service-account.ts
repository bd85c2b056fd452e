// kube's ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/admission.go): a pod without a
// service account gets `default`, the service account must exist, and unless automounting is turned off (pod first,
// then service account) every container and init container mounts the projected API token volume
// kube-api-access-<5 random> at /var/run/secrets/kubernetes.io/serviceaccount. Mirror pods are left alone but may
// not reference service accounts or secrets.
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { generateName } from '../../registry/object-fields.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { asObj, isMainResource, objList, podSpecOf, type Obj, type ObjectLister } from './object-lister.js';

export const defaultServiceAccountName = 'default';
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
export const serviceAccountVolumeName = 'kube-api-access';
/** kubelet's ConfigMirrorAnnotationKey */
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
const serviceAccounts = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** kube's TokenVolumeSource: token (3607s, which the kubelet extends), the root CA bundle and the namespace. */
export function tokenVolumeSource(): Obj {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 0o644,
  };
}

export interface ServiceAccountDeps {
  lister: ObjectLister;
  /** the pause between live lookups of a missing `default` service account (kube: 100–200ms, 10 attempts) */
  retryMs?: number;
  /** the volume name suffix; random as kube's SimpleNameGenerator unless a test pins it */
  generateName?: (base: string) => string;
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = 'ServiceAccount';
  constructor(private readonly deps: ServiceAccountDeps) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  // nothing to do for other resources: answered at once, without a promise
  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'pods')) return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    const spec = podSpecOf(pod);
    // kube leaves mirror pods to Validate: the kubelet deletes a mirror pod whose spec differs from its file
    if (isMirrorPod(pod)) return;
    // the deprecated spec.serviceAccount is what v1 clients may still send; conversion keeps the two equal
    let saName = typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] ? spec['serviceAccountName'] : typeof spec['serviceAccount'] === 'string' ? spec['serviceAccount'] : '';
    if (!saName) saName = defaultServiceAccountName;
    spec['serviceAccountName'] = saName;
    spec['serviceAccount'] = saName;
    const sa = await this.getServiceAccount(attrs, saName);
    if (shouldAutomount(sa, spec)) mountServiceAccountToken(spec, this.deps.generateName ?? generateName);
    // the service account's imagePullSecrets, when the pod names none
    const podPullSecrets = objList(spec['imagePullSecrets']);
    const saPullSecrets = objList(sa['imagePullSecrets']);
    if (podPullSecrets.length === 0 && saPullSecrets.length > 0) spec['imagePullSecrets'] = structuredClone(saPullSecrets);
  }

  // nothing to do for other resources: answered at once, without a promise
  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'pods')) return;
    return this.validatePod(attrs);
  }

  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as KubeObject;
    const spec = podSpecOf(pod);
    if (isMirrorPod(pod)) {
      this.checkMirrorPod(attrs, spec);
      return;
    }
    // a later mutating plugin or webhook may have changed the service account: it must still exist
    const saName = typeof spec['serviceAccountName'] === 'string' ? spec['serviceAccountName'] : '';
    if (!saName) throw forbidden(attrs, `no service account specified for pod ${attrs.namespace}/${podName(attrs)}`);
    await this.getServiceAccount(attrs, saName);
  }

  private checkMirrorPod(attrs: AdmissionAttributes, spec: Obj): void {
    if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '') throw forbidden(attrs, 'a mirror pod may not reference service accounts');
    for (const v of objList(spec['volumes'])) {
      if (asObj(v['secret'])) throw forbidden(attrs, 'a mirror pod may not reference secrets');
      for (const s of objList(asObj(v['projected'])?.['sources'])) {
        if (asObj(s['secret'])) throw forbidden(attrs, 'a mirror pod may not reference secrets');
        if (asObj(s['serviceAccountToken'])) throw forbidden(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
    }
  }

  /**
   * kube's getServiceAccount: the informer cache, then live lookups — ten for `default`, which the service account
   * controller is expected to create any moment in a new namespace — then NotFound.
   */
  private async getServiceAccount(attrs: AdmissionAttributes, name: string): Promise<Obj> {
    const attempts = name === defaultServiceAccountName ? 10 : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, this.deps.retryMs ?? 100 + Math.floor(Math.random() * 100)));
      const sa = await this.deps.lister.get(serviceAccounts, attrs.namespace, name);
      if (sa) return sa as Obj;
    }
    throw forbidden(attrs, `error looking up service account ${attrs.namespace}/${name}: serviceaccount "${name}" not found`);
  }
}

function podName(attrs: AdmissionAttributes): string {
  return attrs.name || ((asObj((attrs.object as Obj | undefined)?.['metadata'])?.['name'] as string | undefined) ?? '');
}

function forbidden(attrs: AdmissionAttributes, why: string) {
  return errors.forbidden({ group: '', resource: 'pods' }, podName(attrs), why);
}

function isMirrorPod(pod: KubeObject): boolean {
  const annotations = asObj(asObj((pod as Obj)['metadata'])?.['annotations']);
  return annotations !== undefined && mirrorPodAnnotation in annotations;
}

/** kube's shouldAutomount: the pod's automountServiceAccountToken wins over the service account's; default true. */
function shouldAutomount(sa: Obj, spec: Obj): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  if (typeof sa['automountServiceAccountToken'] === 'boolean') return sa['automountServiceAccountToken'];
  return true;
}

/**
 * kube's mountServiceAccountToken: reuse an existing kube-api-access-* volume, else name a new one; every init
 * container and container without a mount at the token path gets one (read-only); the volume is added only when a
 * container needed it.
 */
export function mountServiceAccountToken(spec: Obj, nameFor: (base: string) => string): void {
  const volumes = objList(spec['volumes']);
  const existing = volumes.find((v) => typeof v['name'] === 'string' && v['name'].startsWith(`${serviceAccountVolumeName}-`));
  const volumeName = existing ? (existing['name'] as string) : nameFor(`${serviceAccountVolumeName}-`);
  let needsVolume = false;
  for (const key of ['initContainers', 'containers']) {
    for (const c of objList(spec[key])) {
      const mounts = objList(c['volumeMounts']);
      if (mounts.some((m) => m['mountPath'] === defaultAPITokenMountPath)) continue;
      c['volumeMounts'] = [...mounts, { name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath }];
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) spec['volumes'] = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}
