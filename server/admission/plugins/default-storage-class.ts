// kube's DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault/admission.go): a PVC created
// without a class (no spec.storageClassName, no beta annotation) gets the default StorageClass. Several defaults:
// the newest wins, ties by name (GetDefaultClass in pkg/volume/util/storageclass.go, since kube 1.26).
import type { KubeObject } from '../../api/types.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { asObj, isMainResource, type Obj, type ObjectLister } from './object-lister.js';

const isDefaultAnnotation = 'storageclass.kubernetes.io/is-default-class';
const betaIsDefaultAnnotation = 'storageclass.beta.kubernetes.io/is-default-class';
const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
/** read by GVR, so the plugin works wherever storage.k8s.io is served */
export const storageClasses = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

export function isDefaultStorageClass(sc: KubeObject): boolean {
  const a = sc.metadata?.annotations ?? {};
  return a[isDefaultAnnotation] === 'true' || a[betaIsDefaultAnnotation] === 'true';
}

/** GetDefaultClass: undefined when no class is marked default. */
export function defaultStorageClass(classes: readonly KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter(isDefaultStorageClass);
  defaults.sort((a, b) => {
    const ta = a.metadata?.creationTimestamp ?? '';
    const tb = b.metadata?.creationTimestamp ?? '';
    if (ta !== tb) return ta > tb ? -1 : 1;
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  });
  return defaults[0];
}

export class DefaultStorageClass implements AdmissionPlugin {
  readonly name = 'DefaultStorageClass';
  constructor(private readonly deps: { lister: ObjectLister }) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  // nothing to do for other resources: answered at once, without a promise
  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'persistentvolumeclaims')) return;
    return this.admitClaim(attrs);
  }

  private async admitClaim(attrs: AdmissionAttributes): Promise<void> {
    const pvc = attrs.object as Obj;
    const spec = asObj(pvc['spec']) ?? {};
    // PersistentVolumeClaimHasClass: a class set either way, even "" (which asks for no class)
    if (spec['storageClassName'] !== undefined && spec['storageClassName'] !== null) return;
    if (asObj(asObj(pvc['metadata'])?.['annotations'])?.[betaStorageClassAnnotation] !== undefined) return;
    const def = defaultStorageClass((await this.deps.lister.list(storageClasses, '')) ?? []);
    if (!def) return;
    pvc['spec'] = { ...spec, storageClassName: def.metadata?.name ?? '' };
  }
}
