// Cases of kube's plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go (TestAdmission).
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../api/types.js';
import { DefaultStorageClass } from './default-storage-class.js';
import { fakeAttributes, fakeLister } from './fake-admission.js';

const sc = (name: string, isDefault: string | undefined, created = '2024-01-01T00:00:00Z', beta = false): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {
    name,
    creationTimestamp: created,
    ...(isDefault === undefined ? {} : { annotations: { [beta ? 'storageclass.beta.kubernetes.io/is-default-class' : 'storageclass.kubernetes.io/is-default-class']: isDefault } }),
  },
  provisioner: 'p',
});
const defaultV1 = sc('default1', 'true');
const defaultBeta = sc('default2', 'true', '2024-01-01T00:00:00Z', true);
const nonDefault = sc('nondefault1', 'false');
const noAnnotation = sc('nondefault2', undefined);
const newerDefault = sc('newer', 'true', '2024-06-01T00:00:00Z');

async function admit(classes: KubeObject[] | undefined, pvcSpec: Record<string, unknown>, annotations?: Record<string, string>): Promise<unknown> {
  const pvc: KubeObject = { metadata: { name: 'claim', ...(annotations ? { annotations } : {}) }, spec: pvcSpec };
  const lister = fakeLister(classes ? { 'storage.k8s.io/storageclasses': classes } : {});
  await new DefaultStorageClass({ lister }).admit(fakeAttributes({ object: pvc, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' }));
  return (pvc['spec'] as Record<string, unknown>)['storageClassName'];
}

describe('DefaultStorageClass', () => {
  it.each<[string, KubeObject[] | undefined, Record<string, unknown>, unknown]>([
    ['no default, no modification of PVCs', [nonDefault, noAnnotation], {}, undefined],
    ['one default, modify PVC with class=nil', [defaultV1, nonDefault], {}, 'default1'],
    ['one default (beta annotation), modify PVC with class=nil', [defaultBeta, nonDefault], {}, 'default2'],
    ['one default, no modification of PVC with class=""', [defaultV1], { storageClassName: '' }, ''],
    ['one default, no modification of PVC with class set', [defaultV1], { storageClassName: 'foo' }, 'foo'],
    ['two defaults, the newest is chosen', [defaultV1, newerDefault], {}, 'newer'],
    ['two defaults created together, the first by name is chosen', [defaultV1, defaultBeta], {}, 'default1'],
    ['storage.k8s.io not served: no modification', undefined, {}, undefined],
  ])('%s', async (_name, classes, spec, want) => {
    expect(await admit(classes, spec)).toBe(want);
  });

  it('leaves a PVC with the beta storage-class annotation alone', async () => {
    expect(await admit([defaultV1], {}, { 'volume.beta.kubernetes.io/storage-class': 'x' })).toBeUndefined();
  });
});
