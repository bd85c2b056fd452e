// Protobuf bodies built with protobufjs from the same descriptors, decoded to the v1 JSON Go would marshal.
import protobuf from 'protobufjs';
import { StatusError } from '../../api/errors.js';
import { maxNestingDepth } from '../../api/nesting-depth.js';
import { decodeKubernetesProtobuf, decodeMessageAsJSON } from './index.js';
import { kubeKinds } from './schema/kube-kinds.generated.js';
import { kubernetesProtoRoot } from './schema/root.js';

const magic = Buffer.from('k8s\0', 'latin1');

function encode(messageName: string, object: Record<string, unknown>): Uint8Array {
  return kubernetesProtoRoot().lookupType(messageName).encode(object).finish();
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra: Record<string, unknown> = {}): Buffer {
  const unknown = encode('k8s.io.apimachinery.pkg.runtime.Unknown', { typeMeta: { apiVersion, kind }, raw, ...extra });
  return Buffer.concat([magic, unknown]);
}

function body(apiVersion: string, kind: string, messageName: string, object: Record<string, unknown>): Buffer {
  return envelope(apiVersion, kind, encode(messageName, object));
}

/** A string field appended to a message (protobuf messages concatenate), standing in for a field the schema lacks. */
function withExtraStringField(message: Uint8Array, id: number, value: string): Uint8Array {
  return Buffer.concat([message, protobuf.Writer.create().uint32((id << 3) | 2).string(value).finish()]);
}

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

const core = (kind: string): string => `k8s.io.api.core.v1.${kind}`;
const utc = (iso: string): number => Date.parse(iso) / 1000;

describe('decodeKubernetesProtobuf', () => {
  it('resolves every kind the group versions register to a message of the schema', () => {
    const messages = Object.values(kubeKinds.groupVersions).flatMap((kinds) => Object.values(kinds));
    expect(messages.length).toBeGreaterThan(150);
    for (const message of messages) expect(kubernetesProtoRoot().lookupType(message).fieldsArray.length).toBeGreaterThan(0);
  });

  it('renders a Namespace that gogo wrote with every zero field present the way kubectl renders it as JSON', () => {
    // gogo-protobuf writes non-pointer fields even when empty; Go's JSON then omits them (omitempty) or keeps
    // structs ({}) and zero times (null).
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'Namespace', core('Namespace'), {
        metadata: { name: 'x', generateName: '', namespace: '', selfLink: '', uid: '', resourceVersion: '', generation: 0, creationTimestamp: {} },
        spec: {},
        status: { phase: '' },
      }),
    );
    expect(decoded).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x', creationTimestamp: null }, spec: {}, status: {} });
    expect(Object.keys(decoded)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  });

  it('renders ConfigMap data, base64 binaryData, and immutable: false because it is a pointer', () => {
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'ConfigMap', core('ConfigMap'), {
        metadata: { name: 'c', namespace: 'ns', labels: { app: 'web' }, annotations: { note: 'a=b' } },
        immutable: false,
        data: { a: 'b', empty: '' },
        binaryData: { bin: Buffer.from([0, 1, 2, 255]) },
      }),
    );
    expect(decoded).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', namespace: 'ns', creationTimestamp: null, labels: { app: 'web' }, annotations: { note: 'a=b' } },
      immutable: false,
      data: { a: 'b', empty: '' },
      binaryData: { bin: 'AAEC/w==' },
    });
  });

  it('renders Secret data as base64 strings, as the JSON API carries them, plus stringData and type', () => {
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'Secret', core('Secret'), {
        metadata: { name: 's' },
        data: { k: Buffer.from('v'), empty: Buffer.alloc(0) },
        stringData: { plain: 'text' },
        type: 'Opaque',
      }),
    );
    expect(decoded).toEqual({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's', creationTimestamp: null },
      data: { k: 'dg==', empty: '' },
      stringData: { plain: 'text' },
      type: 'Opaque',
    });
  });

  it('renders a ServiceAccount with secrets, imagePullSecrets and automountServiceAccountToken: false', () => {
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'ServiceAccount', core('ServiceAccount'), {
        metadata: { name: 'sa' },
        secrets: [{ name: 'tok', kind: '', namespace: '' }],
        imagePullSecrets: [{ name: 'regcred' }],
        automountServiceAccountToken: false,
      }),
    );
    expect(decoded).toEqual({
      kind: 'ServiceAccount',
      apiVersion: 'v1',
      metadata: { name: 'sa', creationTimestamp: null },
      secrets: [{ name: 'tok' }],
      imagePullSecrets: [{ name: 'regcred' }],
      automountServiceAccountToken: false,
    });
  });

  it('renders ObjectMeta times, owner references, finalizers and managed fields', () => {
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'ConfigMap', core('ConfigMap'), {
        metadata: {
          name: 'c',
          uid: 'u-1',
          resourceVersion: '42',
          generation: 3,
          creationTimestamp: { seconds: utc('2024-05-01T12:34:56Z'), nanos: 999 },
          deletionTimestamp: { seconds: utc('2024-05-02T00:00:00Z') },
          deletionGracePeriodSeconds: 0,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-0', controller: true }],
          finalizers: ['example.com/keep'],
          managedFields: [
            {
              manager: 'kubectl-create',
              operation: 'Update',
              apiVersion: 'v1',
              time: { seconds: utc('2024-05-01T12:34:56Z') },
              fieldsType: 'FieldsV1',
              fieldsV1: { Raw: Buffer.from('{"f:data":{".":{},"f:a":{}}}') },
            },
          ],
        },
      }),
    );
    expect(decoded.metadata).toEqual({
      name: 'c',
      uid: 'u-1',
      resourceVersion: '42',
      generation: 3,
      // metav1.Time keeps whole seconds only: its protobuf Unmarshal drops the nanos.
      creationTimestamp: '2024-05-01T12:34:56Z',
      deletionTimestamp: '2024-05-02T00:00:00Z',
      deletionGracePeriodSeconds: 0,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-0', controller: true }],
      finalizers: ['example.com/keep'],
      managedFields: [
        {
          manager: 'kubectl-create',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2024-05-01T12:34:56Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
        },
      ],
    });
  });

  describe('Deployment', () => {
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            env: [
              { name: 'PLAIN', value: 'x' },
              { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { localObjectReference: { name: 'creds' }, key: 'password' } } },
              { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
            ],
            resources: { limits: { cpu: { string: '500m' }, memory: { string: '128Mi' } }, requests: { cpu: { string: '250m' } } },
            readinessProbe: { handler: { httpGet: { path: '/healthz', port: { type: 1, strVal: 'http' } } }, periodSeconds: 5 },
            livenessProbe: { handler: { tcpSocket: { port: { type: 0, intVal: 80 } } } },
            volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }],
            securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes: [{ name: 'config', volumeSource: { configMap: { localObjectReference: { name: 'web-config' }, defaultMode: 420 } } }],
      },
    };

    it('keeps replicas: 0, renders IntOrString members, quantities, inline selectors and probe handlers', () => {
      const decoded = decodeKubernetesProtobuf(
        body('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', {
          metadata: { name: 'web', labels: { app: 'web' } },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
            template,
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: { type: 0, intVal: 1 }, maxSurge: { type: 1, strVal: '25%' } } },
            minReadySeconds: 0,
            paused: false,
          },
          status: {},
        }),
      );
      expect(decoded).toEqual({
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        metadata: { name: 'web', creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
          template: {
            metadata: { creationTimestamp: null, labels: { app: 'web' } },
            spec: {
              containers: [
                {
                  name: 'nginx',
                  image: 'nginx:1.27',
                  ports: [{ containerPort: 80, protocol: 'TCP' }],
                  env: [
                    { name: 'PLAIN', value: 'x' },
                    { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
                    // divisor is a non-pointer Quantity: Go writes its zero value as "0".
                    { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } },
                  ],
                  resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } },
                  readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
                  livenessProbe: { tcpSocket: { port: 80 } },
                  volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }],
                  securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
                },
              ],
              volumes: [{ name: 'config', configMap: { name: 'web-config', defaultMode: 420 } }],
            },
          },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } },
        },
        status: {},
      });
    });

    it('leaves replicas out when the body does not set it', () => {
      const decoded = decodeKubernetesProtobuf(
        body('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', { metadata: { name: 'web' }, spec: { template } }),
      );
      const spec = decoded['spec'] as Record<string, unknown>;
      expect(spec).not.toHaveProperty('replicas');
      // `Selector *metav1.LabelSelector json:"selector"`: a pointer without omitempty marshals as null
      expect(spec['selector']).toBeNull();
      expect(spec['strategy']).toEqual({});
      expect(decoded['status']).toEqual({});
    });
  });

  it('renders Service ports with numeric, named and unset targetPort and always writes status.loadBalancer', () => {
    const decoded = decodeKubernetesProtobuf(
      body('v1', 'Service', core('Service'), {
        metadata: { name: 'svc' },
        spec: {
          ports: [
            { name: 'web', protocol: 'TCP', port: 80, targetPort: { type: 0, intVal: 8080 } },
            { name: 'named', port: 443, targetPort: { type: 1, strVal: 'https' }, nodePort: 0 },
            { name: 'unset', port: 9090 },
          ],
          selector: { app: 'svc' },
          type: 'ClusterIP',
          clusterIP: '',
          ipFamilyPolicy: 'SingleStack',
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
        },
      }),
    );
    expect(decoded).toEqual({
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc', creationTimestamp: null },
      spec: {
        ports: [
          { name: 'web', protocol: 'TCP', port: 80, targetPort: 8080 },
          { name: 'named', port: 443, targetPort: 'https' },
          // A non-pointer IntOrString: Go writes 0 for an unset targetPort, and the server defaults it from port.
          { name: 'unset', port: 9090, targetPort: 0 },
        ],
        selector: { app: 'svc' },
        type: 'ClusterIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
        ipFamilyPolicy: 'SingleStack',
      },
      status: { loadBalancer: {} },
    });
  });

  it('renders Pod pointer zeros, omitempty zeros, packed and unpacked repeated int64 and scheduling fields', () => {
    const podSpec = encode(core('PodSpec'), {
      containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'sleep 1'], stdin: false }],
      hostNetwork: false,
      terminationGracePeriodSeconds: 0,
      securityContext: { runAsUser: 0, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
          },
        },
      },
    });
    // supplementalGroups: one element unpacked (gogo's proto2 form), two packed.
    const securityExtra = Buffer.concat([
      protobuf.Writer.create().uint32((4 << 3) | 0).int64(1000).finish(),
      protobuf.Writer.create().uint32((4 << 3) | 2).fork().int64(1001).int64(1002).ldelim().finish(),
    ]);
    const specWithGroups = Buffer.concat([podSpec, protobuf.Writer.create().uint32((14 << 3) | 2).bytes(securityExtra).finish()]);
    const pod = Buffer.concat([
      encode(core('Pod'), { metadata: { name: 'p', namespace: 'default' } }),
      protobuf.Writer.create().uint32((2 << 3) | 2).bytes(specWithGroups).finish(),
    ]);
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'Pod', pod));
    expect(decoded).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'p', namespace: 'default', creationTimestamp: null },
      spec: {
        containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'sleep 1'], resources: {} }],
        terminationGracePeriodSeconds: 0,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        // PodSecurityContext appears twice on the wire; protobuf merges the occurrences.
        securityContext: { runAsUser: 0, supplementalGroups: [1000, 1001, 1002], fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
            },
          },
        },
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      },
      status: {},
    });
  });

  it('skips field numbers the schema does not know, zero or not, as gogo-protobuf generated Unmarshal skips them', () => {
    const namespace = encode(core('Namespace'), { metadata: { name: 'x' } });
    const zeroString = protobuf.Writer.create().uint32((99 << 3) | 2).string('').finish();
    const zeroVarint = protobuf.Writer.create().uint32((98 << 3) | 0).int32(0).finish();
    const zeroStruct = protobuf.Writer.create().uint32((97 << 3) | 2).bytes(Buffer.from([0x0a, 0x00, 0x10, 0x00])).finish();
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'Namespace', withExtraStringField(Buffer.concat([namespace, zeroString, zeroVarint, zeroStruct]), 9, 'newer')));
    expect(decoded['metadata']).toEqual({ name: 'x', creationTimestamp: null });
  });

  it("ignores the envelope's contentEncoding and contentType, as kube's Serializer.Decode does", () => {
    const decoded = decodeKubernetesProtobuf(envelope('v1', 'Namespace', encode(core('Namespace'), { metadata: { name: 'x' } }), { contentEncoding: 'gzip', contentType: 'x' }));
    expect(decoded).toMatchObject({ kind: 'Namespace', metadata: { name: 'x' } });
  });

  describe('rejections', () => {
    it.each<[string, () => Buffer, number, RegExp]>([
      ['a body without the k8s\\0 prefix', () => Buffer.from('{"kind":"Namespace"}'), 400, /^provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]$/],
      ['the prefix alone', () => magic, 400, /^empty body$/],
      ['a truncated envelope', () => body('v1', 'Namespace', core('Namespace'), { metadata: { name: 'x' } }).subarray(0, 12), 400, /malformed/],
      ['an envelope without typeMeta', () => Buffer.concat([magic, encode('k8s.io.apimachinery.pkg.runtime.Unknown', { raw: Buffer.alloc(0) })]), 400, /^Object 'Kind' is missing in 'runtime.TypeMeta\{APIVersion:"", Kind:""\}'$/],
      ['an envelope without apiVersion', () => envelope('', 'Pod', new Uint8Array(0)), 400, /^Object 'apiVersion' is missing in/],
      ['a kind no group version registers', () => body('apps/v1', 'Widget', 'k8s.io.api.apps.v1.Deployment', {}), 400, /^no kind "Widget" is registered for version "apps\/v1"/],
      [
        'a string field sent as a varint',
        () => envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0x02, 0x08, 0x01])),
        400,
        /metadata\.name: a string field cannot have wire type 0/,
      ],
      [
        'a malformed quantity',
        () =>
          body('v1', 'Pod', core('Pod'), {
            spec: { containers: [{ name: 'c', resources: { limits: { cpu: { string: 'lots' } } } }] },
          }),
        400,
        /spec\.containers\[0\]\.resources\.limits\["cpu"\]: quantities must match/,
      ],
      [
        'an IntOrString of unknown type',
        () => body('v1', 'Service', core('Service'), { spec: { ports: [{ port: 80, targetPort: { type: 2 } }] } }),
        400,
        /IntOrString type must be 0 \(int\) or 1 \(string\), got 2/,
      ],
    ])('rejects %s', (_name, make, code, message) => {
      const err = statusOf(() => decodeKubernetesProtobuf(make()));
      expect(err.code).toBe(code);
      expect(err.status.message).toMatch(message);
    });

    it('skips an unknown field nested 200000 messages deep without walking it', () => {
      const depth = 200_000;
      const varintLength = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : 4);
      const lengths = [2]; // innermost payload: field 1 = 1
      for (let i = 1; i <= depth; i++) lengths.push(1 + varintLength(lengths[i - 1]!) + lengths[i - 1]!);
      const w = protobuf.Writer.create().uint32((99 << 3) | 2).uint32(lengths[depth]!);
      for (let i = depth; i >= 1; i--) w.uint32((1 << 3) | 2).uint32(lengths[i - 1]!);
      const nested = Buffer.concat([w.finish(), Buffer.from([0x08, 0x01])]);
      const decoded = decodeKubernetesProtobuf(envelope('v1', 'Namespace', Buffer.concat([encode(core('Namespace'), {}), nested])));
      expect(decoded).toMatchObject({ kind: 'Namespace', spec: {}, status: {} });
    });

    it('refuses a known recursive field nested deeper than the limit (JSONSchemaProps.not) as a bad request', () => {
      const props = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
      // not = 28 (tag 0xe2 0x01), each level wrapping the one inside
      let inner: Buffer = Buffer.from(encode(props, { type: 'string' }));
      for (let i = 0; i < maxNestingDepth + 5; i++) inner = Buffer.concat([protobuf.Writer.create().uint32((28 << 3) | 2).uint32(inner.length).finish(), inner]);
      const err = statusOf(() => decodeMessageAsJSON(props, inner));
      expect(err.code).toBe(400);
      expect(err.status.message).toBe(`the protobuf body nests messages deeper than ${maxNestingDepth} levels`);
    });

    it.each([
      [maxNestingDepth - 10, 201],
      [maxNestingDepth, 400],
    ])('bounds JSON carried in FieldsV1 (%d levels below managedFields) by the nesting limit of every body', (levels, code) => {
      const raw = '{"f:a":'.repeat(levels) + '{}' + '}'.repeat(levels);
      const make = () =>
        decodeKubernetesProtobuf(body('v1', 'ConfigMap', core('ConfigMap'), { metadata: { name: 'c', managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1: { Raw: Buffer.from(raw) } }] } }));
      if (code === 201) {
        expect(make().metadata?.name).toBe('c');
        return;
      }
      const err = statusOf(make);
      expect(err.code).toBe(400);
      expect(err.status.message).toBe(`the protobuf body nests messages deeper than ${maxNestingDepth} levels`);
    });
  });
});

describe('decodeMessageAsJSON', () => {
  const microTime = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';
  const time = 'k8s.io.apimachinery.pkg.apis.meta.v1.Time';

  it.each<[string, string, Record<string, unknown>, unknown]>([
    ['MicroTime to the microsecond, truncating nanos', microTime, { seconds: utc('2024-05-01T12:34:56Z'), nanos: 123456789 }, '2024-05-01T12:34:56.123456Z'],
    ['MicroTime with whole seconds', microTime, { seconds: utc('1999-12-31T23:59:59Z') }, '1999-12-31T23:59:59.000000Z'],
    ['the empty MicroTime as null', microTime, {}, null],
    ['the epoch Time, which is not zero', time, { seconds: 0 }, '1970-01-01T00:00:00Z'],
    ["Go's zero Time as null", time, { seconds: -62135596800 }, null],
    ['a Time before the epoch', time, { seconds: utc('1960-01-01T00:00:00Z') }, '1960-01-01T00:00:00Z'],
  ])('renders %s', (_name, message, object, expected) => {
    expect(decodeMessageAsJSON(message, encode(message, object))).toEqual(expected);
  });

  it('renders an empty IntOrString as 0 and an empty Quantity as "0"', () => {
    expect(decodeMessageAsJSON('k8s.io.apimachinery.pkg.util.intstr.IntOrString', new Uint8Array(0))).toBe(0);
    expect(decodeMessageAsJSON('k8s.io.apimachinery.pkg.api.resource.Quantity', new Uint8Array(0))).toBe('0');
  });

  it('rejects a time outside the years RFC 3339 can write', () => {
    const err = statusOf(() => decodeMessageAsJSON(time, encode(time, { seconds: 253402300800 })));
    expect(err.code).toBe(400);
    expect(err.status.message).toMatch(/outside the years 0000-9999/);
  });
});
