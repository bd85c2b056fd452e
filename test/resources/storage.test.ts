// storage.k8s.io/v1 through the real server: one walk per kind (kube's defaults, its validation texts), the
// immutable fields of StorageClass, VolumeAttachment and VolumeAttributesClass, and kubectl's columns.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks } from '../support/resource-walk.js';

const env = useApiServer({ storage: 'memory' });

const subdomainMsg = (v: string): string =>
  `Invalid value: ${JSON.stringify(v)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

describeResourceWalks(env, 'walk-storage', [
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false,
    object: () => ({ provisioner: 'example.com/disk', parameters: { type: 'fast' } }),
    defaulted: [
      { path: 'reclaimPolicy', value: 'Delete' },
      { path: 'volumeBindingMode', value: 'Immediate' },
    ],
    invalid: [
      { name: 'no provisioner', object: {}, message: 'StorageClass.storage.k8s.io "walk-storageclass-invalid" is invalid: provisioner: Required value' },
      {
        name: 'unknown reclaim policy and binding mode',
        object: { provisioner: 'example.com/disk', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' },
        causes: [
          { reason: 'FieldValueNotSupported', field: 'reclaimPolicy', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' },
          { reason: 'FieldValueNotSupported', field: 'volumeBindingMode', message: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' },
        ],
      },
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', namespaced: false,
    object: () => ({ spec: {} }),
    defaulted: [
      { path: 'spec.attachRequired', value: true },
      { path: 'spec.podInfoOnMount', value: false },
      { path: 'spec.volumeLifecycleModes', value: ['Persistent'] },
      { path: 'spec.fsGroupPolicy', value: 'ReadWriteOnceWithFSType' },
      { path: 'spec.storageCapacity', value: false },
      { path: 'spec.requiresRepublish', value: false },
      { path: 'spec.seLinuxMount', value: false },
    ],
    invalid: [
      {
        name: 'unknown lifecycle mode and fsGroupPolicy',
        object: { spec: { volumeLifecycleModes: ['Forever'], fsGroupPolicy: 'Some' } },
        causes: [
          { reason: 'FieldValueNotSupported', field: 'spec.volumeLifecycleModes[0]', message: 'Unsupported value: "Forever": supported values: "Ephemeral", "Persistent"' },
          { reason: 'FieldValueNotSupported', field: 'spec.fsGroupPolicy', message: 'Unsupported value: "Some": supported values: "File", "None", "ReadWriteOnceWithFSType"' },
        ],
      },
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csinodes', kind: 'CSINode', namespaced: false,
    object: () => ({ spec: { drivers: [{ name: 'example.com', nodeID: 'node-1' }] } }),
    defaulted: [],
    invalid: [
      {
        name: 'a driver without nodeID, named twice',
        object: { spec: { drivers: [{ name: 'example.com', nodeID: 'n' }, { name: 'example.com' }] } },
        causes: [
          { reason: 'FieldValueDuplicate', field: 'spec.drivers[1].name', message: 'Duplicate value: "example.com"' },
          { reason: 'FieldValueRequired', field: 'spec.drivers[1].nodeID', message: 'Required value: nodeID must be provided' },
        ],
      },
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true,
    object: () => ({ storageClassName: 'fast', capacity: '10Gi' }),
    defaulted: [],
    invalid: [{ name: 'a bad storage class name', object: { storageClassName: 'Fast_Class' }, causes: [{ reason: 'FieldValueInvalid', field: 'storageClassName', message: subdomainMsg('Fast_Class') }] }],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false,
    object: () => ({ spec: { attacher: 'example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' } }),
    defaulted: [],
    invalid: [
      {
        name: 'no attacher, no source, no node',
        object: { spec: { source: {} } },
        causes: [
          { reason: 'FieldValueRequired', field: 'spec.attacher', message: 'Required value' },
          { reason: 'FieldValueRequired', field: 'spec.source', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
          { reason: 'FieldValueInvalid', field: 'spec.nodeName', message: subdomainMsg('') },
        ],
      },
    ],
  },
  {
    group: 'storage.k8s.io', version: 'v1', resource: 'volumeattributesclasses', kind: 'VolumeAttributesClass', namespaced: false,
    object: () => ({ driverName: 'example.com', parameters: { iops: '1000' } }),
    defaulted: [],
    invalid: [{ name: 'no driver name', object: { parameters: { iops: '1' } }, causes: [{ reason: 'FieldValueRequired', field: 'driverName', message: 'Required value' }] }],
  },
]);

describe('storage.k8s.io immutable fields and columns', () => {
  const put = (path: string, body: unknown) => env.server.request(path, { method: 'PUT', body });

  it("refuses changes of a StorageClass's provisioner and parameters with kube's texts", async () => {
    const base = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'example.com/disk', parameters: { a: '1' } };
    expect((await env.server.request('/apis/storage.k8s.io/v1/storageclasses', { method: 'POST', body: base })).status).toBe(201);
    const res = await put('/apis/storage.k8s.io/v1/storageclasses/fixed', { ...base, provisioner: 'example.com/other', parameters: { a: '2' } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([
      422,
      'StorageClass.storage.k8s.io "fixed" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden.]',
    ]);
  });

  it("refuses a change of a VolumeAttachment's spec; its status goes through /status", async () => {
    const base = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' } };
    expect((await env.server.request('/apis/storage.k8s.io/v1/volumeattachments', { method: 'POST', body: base })).status).toBe(201);
    const res = await put('/apis/storage.k8s.io/v1/volumeattachments/va', { ...base, spec: { ...base.spec, nodeName: 'node-2' } });
    expect(res.status).toBe(422);
    expect(res.json<{ details: { causes: unknown[] } }>().details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec', message: expect.stringMatching(/: field is immutable$/) as unknown }));
    const status = await put('/apis/storage.k8s.io/v1/volumeattachments/va/status', { ...base, status: { attached: true } });
    expect([status.status, status.json<{ status: unknown }>().status]).toEqual([200, { attached: true }]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'volumeattachments', 'va']);
    expect(table.stdout).toMatch(/^NAME\s+ATTACHER\s+PV\s+NODE\s+ATTACHED\s+AGE\nva\s+example\.com\s+pv-1\s+node-1\s+true\s+\S+\n$/);
  });

  it('refuses changes of a VolumeAttributesClass driverName and parameters', async () => {
    const base = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttributesClass', metadata: { name: 'vac' }, driverName: 'example.com', parameters: { iops: '1' } };
    expect((await env.server.request('/apis/storage.k8s.io/v1/volumeattributesclasses', { method: 'POST', body: base })).status).toBe(201);
    const res = await put('/apis/storage.k8s.io/v1/volumeattributesclasses/vac', { ...base, driverName: 'other.example.com', parameters: { iops: '2' } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([
      422,
      'VolumeAttributesClass.storage.k8s.io "vac" is invalid: [parameters: Forbidden: updates to parameters are forbidden., driverName: Forbidden: updates to driverName are forbidden.]',
    ]);
  });

  it("kubectl get sc prints kube's columns", async () => {
    const body = {
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'printed', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/disk', allowVolumeExpansion: true, volumeBindingMode: 'WaitForFirstConsumer',
    };
    expect((await env.server.request('/apis/storage.k8s.io/v1/storageclasses', { method: 'POST', body })).status).toBe(201);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'sc', 'printed']);
    // kube's printStorageClass marks the default class in the Name cell
    expect(table.stdout).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\nprinted \(default\)\s+example\.com\/disk\s+Delete\s+WaitForFirstConsumer\s+true\s+\S+\n$/);
    const driver = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'printed.example.com' }, spec: { tokenRequests: [{ audience: 'vault' }] } };
    expect((await env.server.request('/apis/storage.k8s.io/v1/csidrivers', { method: 'POST', body: driver })).status).toBe(201);
    const drivers = await kubectl(env.server.kubeconfigPath, ['get', 'csidrivers', 'printed.example.com']);
    expect(drivers.stdout).toMatch(/^NAME\s+ATTACHREQUIRED\s+PODINFOONMOUNT\s+STORAGECAPACITY\s+TOKENREQUESTS\s+REQUIRESREPUBLISH\s+MODES\s+AGE\nprinted\.example\.com\s+true\s+false\s+false\s+vault\s+false\s+Persistent\s+\S+\n$/);
  });
});
