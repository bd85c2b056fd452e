// Table-driven checks of the core/v1 strategies' pure logic (defaulting and validation), with kube's texts
// (pkg/apis/core/v1/defaults.go, pkg/apis/core/validation/validation.go).
import { formatFieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { compareQuantities, quantityValue } from '../../validation/quantity.js';
import { toScale } from '../../../endpoints/scale.js';
import { endpointsStrategy } from './endpoints.js';
import { repackSubsets } from './endpoints-repack.js';
import { limitRangeStrategy } from './limitrange.js';
import { cidrFamily, nodeStrategy } from './node.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaim.js';
import { persistentVolumeStrategy } from './persistentvolume.js';
import { replicationControllerStrategy } from './replicationcontroller.js';
import { resourceQuotaStrategy } from './resourcequota.js';
import { persistentVolumeClaimWarnings, persistentVolumeWarnings } from './storage-warnings.js';

const messages = (errs: Parameters<typeof formatFieldError>[0][]): string[] => errs.map(formatFieldError);
const obj = (o: Record<string, unknown>): KubeObject => o as KubeObject;

describe('quantities', () => {
  it.each([
    ['500m', 0.5], ['1Gi', 2 ** 30], ['1024Mi', 2 ** 30], ['1e3', 1000], ['1.5k', 1500], ['-1', -1], ['2', 2], ['bogus', undefined], ['1Qi', undefined],
  ])('reads %s as %s', (q, v) => expect(quantityValue(q)).toBe(v));
  it('compares across units as Quantity.Cmp does', () => {
    expect([compareQuantities('1Gi', '1024Mi'), compareQuantities('100m', '1'), compareQuantities('2', '1500m')]).toEqual([0, -1, 1]);
  });
});

describe('nodes', () => {
  it.each([['10.0.0.0/8', 4], ['2001:db8::/64', 6], ['10.0.0.0/33', undefined], ['10.0.0.0', undefined], ['fe80::/129', undefined]])('parses CIDR %s', (c, f) => expect(cidrFamily(c)).toBe(f));
  it('refuses two CIDRs of one family and duplicate taints', () => {
    const errs = nodeStrategy.validate!(obj({ spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'], taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }] } }));
    expect(messages(errs)).toEqual([
      'spec.taints[1]: Duplicate value: "a:NoSchedule": taints must be unique by key and effect pair',
      'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family',
    ]);
    expect(nodeStrategy.validate!(obj({ spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } }))).toEqual([]);
  });
});

describe('node updates', () => {
  it('refuses a duplicate status address, printed as kube prints the struct', () => {
    const addresses = [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }];
    expect(messages(nodeStrategy.validateUpdate!(obj({ status: { addresses } }), obj({})))).toEqual([
      'status.addresses[1]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}',
    ]);
  });
});

describe('endpoints', () => {
  it.each([
    ['0.0.0.0', 'may not be unspecified (0.0.0.0)'],
    ['169.254.1.1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
    ['224.0.0.5', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
    ['::1', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
    ['fe80::1', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
  ])('refuses %s', (ip, detail) => {
    const errs = endpointsStrategy.validate!(obj({ subsets: [{ addresses: [{ ip }] }] }));
    expect(messages(errs)).toEqual([`subsets[0].addresses[0].ip: Invalid value: "${ip}": ${detail}`]);
  });
  it('refuses a non-IP with both of kube\'s messages, and an unsupported protocol', () => {
    const errs = endpointsStrategy.validate!(obj({ subsets: [{ addresses: [{ ip: 'host' }], ports: [{ port: 70000, protocol: 'HTTP' }] }] }));
    expect(messages(errs)).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "host": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'subsets[0].addresses[0].ip: Invalid value: "host": must be a valid IP address',
      'subsets[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'subsets[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });
});

describe('endpoints repacking (RepackSubsets)', () => {
  const a = (ip: string) => ({ ip });
  it.each([
    ['sorts addresses by IP bytes', [{ addresses: [a('10.0.0.9'), a('10.0.0.10')], ports: [{ port: 80 }] }], [{ addresses: [a('10.0.0.10'), a('10.0.0.9')], ports: [{ port: 80 }] }]],
    [
      'merges the ports of one address set',
      [{ addresses: [a('10.0.0.1')], ports: [{ port: 80 }] }, { addresses: [a('10.0.0.1')], ports: [{ port: 443 }] }],
      [{ addresses: [a('10.0.0.1')], ports: [{ port: 80 }, { port: 443 }] }],
    ],
    [
      'keeps an address once per port, ready over not ready',
      [{ addresses: [a('10.0.0.1'), a('10.0.0.1')], notReadyAddresses: [a('10.0.0.1'), a('10.0.0.2')], ports: [{ port: 80 }] }],
      [{ addresses: [a('10.0.0.1')], notReadyAddresses: [a('10.0.0.2')], ports: [{ port: 80 }] }],
    ],
    ['keeps port-less subsets', [{ addresses: [a('10.0.0.2'), a('10.0.0.1')] }], [{ addresses: [a('10.0.0.1'), a('10.0.0.2')] }]],
    [
      'splits ports offered by different address sets',
      [{ addresses: [a('10.0.0.1'), a('10.0.0.2')], ports: [{ port: 80 }] }, { addresses: [a('10.0.0.1')], ports: [{ port: 443 }] }],
      [{ addresses: [a('10.0.0.1'), a('10.0.0.2')], ports: [{ port: 80 }] }, { addresses: [a('10.0.0.1')], ports: [{ port: 443 }] }],
    ],
  ])('%s', (_name, input, output) => expect(repackSubsets(input)).toEqual(output));
});

describe('limit ranges', () => {
  it('checks min <= defaultRequest <= default <= max and the ratio', () => {
    const errs = limitRangeStrategy.validate!(obj({ spec: { limits: [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, default: { cpu: '2' }, defaultRequest: { cpu: '50m' }, maxLimitRequestRatio: { cpu: '20' } }] } }));
    // in kube's order of checks
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'spec.limits[0].defaultRequest[cpu]: min value 100m is greater than default request value 50m',
      'spec.limits[0].default[cpu]: default value 2 is greater than max value 1',
      'spec.limits[0].maxLimitRequestRatio[cpu]: ratio 20 is greater than max/min = 10.000000',
    ]);
  });
  it('refuses non-container resources in a Container item and duplicate types', () => {
    const errs = limitRangeStrategy.validate!(obj({ spec: { limits: [{ type: 'Container', max: { pods: '1' } }, { type: 'Container' }] } }));
    expect(messages(errs)).toEqual([
      'spec.limits[0].max[pods]: Invalid value: "pods": must be a standard resource for containers',
      'spec.limits[1].type: Duplicate value: "Container"',
    ]);
  });
});

describe('resource quotas', () => {
  it('refuses a scope that does not fit a resource, and scope selector operators', () => {
    const errs = resourceQuotaStrategy.validate!(obj({ spec: { hard: { cpu: '1' }, scopes: ['BestEffort'], scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } } }));
    expect(messages(errs)).toEqual([
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource',
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ]);
  });
  it('refuses fractional object counts', () => {
    expect(messages(resourceQuotaStrategy.validate!(obj({ spec: { hard: { pods: '1500m' } } })))).toEqual(['spec.hard[pods]: Invalid value: "1500m": must be an integer']);
  });
});

describe('persistent volumes and claims', () => {
  it('refuses a Recycle policy for a hostPath of /', () => {
    const errs = persistentVolumeStrategy.validate!(obj({ spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/' }, persistentVolumeReclaimPolicy: 'Recycle' } }));
    expect(messages(errs)).toEqual(["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]);
  });
  it('allows a storage class to be set on a claim that had none, and volumeAttributesClassName changes, but not its removal', () => {
    const old = obj({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeAttributesClassName: 'gold' }, status: { phase: 'Pending' } });
    const next = obj({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast', volumeAttributesClassName: 'silver' }, status: { phase: 'Pending' } });
    expect(persistentVolumeClaimStrategy.validateUpdate!(next, old)).toEqual([]);
    const removed = obj({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } });
    expect(messages(persistentVolumeClaimStrategy.validateUpdate!(removed, old))).toEqual(['spec.volumeAttributesClassName: Forbidden: update from non-nil value to nil is forbidden']);
  });
});

describe('replication controllers', () => {
  it('defaults selector and labels from the template only when unset', () => {
    const rc = obj({ metadata: { labels: { own: 'x' } }, spec: { selector: { app: 'a' }, template: { metadata: { labels: { app: 'a', v: '1' } }, spec: { containers: [] } } } });
    replicationControllerStrategy.applyDefaults!(rc);
    expect([rc.metadata?.labels, (rc['spec'] as Record<string, unknown>)['selector']]).toEqual([{ own: 'x' }, { app: 'a' }]);
  });
  it('refuses status counts above status.replicas on update', () => {
    const spec = { selector: { app: 'a' }, template: { metadata: { labels: { app: 'a' } }, spec: { restartPolicy: 'Always', containers: [{ name: 'c', image: 'i' }] } } };
    const errs = replicationControllerStrategy.validateUpdate!(obj({ spec, status: { replicas: 1, readyReplicas: 2, availableReplicas: 2 } }), obj({ spec }));
    expect(messages(errs)).toEqual([
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas',
    ]);
  });
  it('answers /scale with the selector of its label map', () => {
    const scale = toScale(obj({ metadata: { name: 'r' }, spec: { replicas: 2, selector: { b: '2', a: '1' } }, status: { replicas: 1 } }), { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' });
    expect([scale['spec'], scale['status']]).toEqual([{ replicas: 2 }, { replicas: 1, selector: 'a=1,b=2' }]);
  });
});

describe('warnings (kube\'s pkg/api/persistentvolume and persistentvolumeclaim util tests)', () => {
  it('warns of deprecated annotations and node labels on a volume', () => {
    const pv = obj({
      metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': '', 'volume.beta.kubernetes.io/mount-options': '' } },
      spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'beta.kubernetes.io/os', operator: 'In', values: ['windows'] }] }] } } },
    });
    expect(persistentVolumeWarnings(pv)).toEqual([
      'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use "mountOptions" attribute instead',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
    ]);
  });
  it.each([
    [{ persistentVolumeReclaimPolicy: 'Recycle' }, 'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.'],
    [{ cephfs: {} }, 'spec.cephfs: deprecated in v1.28, non-functional in v1.31+'],
    [{ photonPersistentDisk: {} }, 'spec.photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+'],
    [{ rbd: {} }, 'spec.rbd: deprecated in v1.28, non-functional in v1.31+'],
    [{ scaleIO: {} }, 'spec.scaleIO: deprecated in v1.16, non-functional in v1.22+'],
    [{ storageos: {} }, 'spec.storageOS: deprecated in v1.22, non-functional in v1.25+'],
    [{ glusterfs: {} }, 'spec.glusterfs: deprecated in v1.25, non-functional in v1.26+'],
  ])('warns of %j', (spec, warning) => expect(persistentVolumeWarnings(obj({ spec }))).toEqual([warning]));
  it('warns of fractional byte values on a claim', () => {
    expect(persistentVolumeClaimWarnings(obj({ spec: { resources: { requests: { storage: '1500m' }, limits: { storage: '2Gi' } } } }))).toEqual([
      'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
    ]);
  });
});

describe('claim data sources', () => {
  it('mirrors dataSource into dataSourceRef on create and refuses a core kind other than a claim', () => {
    const pvc = obj({ spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } } });
    persistentVolumeClaimStrategy.applyDefaults!(pvc);
    expect((pvc['spec'] as Record<string, unknown>)['dataSourceRef']).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
    const errs = persistentVolumeClaimStrategy.validate!(obj({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource: { kind: 'Pod' } } }));
    expect(messages(errs)).toEqual(['spec.dataSource.name: Required value', 'spec.dataSource: Unsupported value: "Pod": supported values: "PersistentVolumeClaim"']);
  });
});
