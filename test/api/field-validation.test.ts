// Server-side field validation through the real kubectl: its default --validate=strict sends fieldValidation=Strict,
// and unknown fields at any depth of a built-in kind fail as kube-apiserver fails them; --validate=warn prints them.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: 'memory' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

function expectClean(r: { code: number | null; stdout: string; stderr: string }): void {
  if (r.code !== 0) throw new Error(`kubectl exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  expect(r.stderr).toBe('');
}

const deployment = (name: string, containerExtra: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      containers:
      - name: web
${containerExtra}`;

// A Pod spec using much of PodSpec, as real manifests do: any field the server wrongly thought unknown fails the test.
const richPodSpec = (indent: string) =>
  `restartPolicy: Always
terminationGracePeriodSeconds: 30
dnsPolicy: ClusterFirst
dnsConfig: { nameservers: [1.1.1.1], searches: [example.com], options: [{ name: ndots, value: "2" }] }
hostAliases: [{ ip: 127.0.0.1, hostnames: [local.example] }]
imagePullSecrets: [{ name: registry }]
serviceAccountName: default
automountServiceAccountToken: false
enableServiceLinks: false
priorityClassName: ""
nodeSelector: { kubernetes.io/os: linux }
tolerations: [{ key: dedicated, operator: Equal, value: web, effect: NoSchedule, tolerationSeconds: 60 }]
readinessGates: [{ conditionType: example.com/ready }]
schedulingGates: [{ name: example.com/gate }]
os: { name: linux }
hostUsers: false
shareProcessNamespace: true
securityContext:
  runAsNonRoot: true
  runAsUser: 1000
  runAsGroup: 1000
  fsGroup: 2000
  fsGroupChangePolicy: OnRootMismatch
  supplementalGroups: [3000]
  seccompProfile: { type: RuntimeDefault }
  sysctls: [{ name: net.ipv4.ip_local_port_range, value: "1024 65535" }]
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{ matchExpressions: [{ key: kubernetes.io/arch, operator: In, values: [amd64, arm64] }] }]
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchFields: [{ key: metadata.name, operator: NotIn, values: [n1] }] } }]
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm: { topologyKey: kubernetes.io/hostname, labelSelector: { matchLabels: { app: web } }, matchLabelKeys: [pod-template-hash] }
topologySpreadConstraints:
- { maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: { matchLabels: { app: web } }, minDomains: 1, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore, matchLabelKeys: [pod-template-hash] }
volumes:
- { name: config, configMap: { name: settings, items: [{ key: a, path: a.txt, mode: 0444 }], defaultMode: 0644, optional: true } }
- { name: secret, secret: { secretName: creds, optional: true } }
- { name: scratch, emptyDir: { medium: Memory, sizeLimit: 64Mi } }
- name: projected
  projected:
    defaultMode: 0440
    sources:
    - serviceAccountToken: { audience: api, expirationSeconds: 3600, path: token }
    - downwardAPI: { items: [{ path: labels, fieldRef: { fieldPath: metadata.labels } }] }
    - configMap: { name: settings, optional: true }
- name: data
  ephemeral:
    volumeClaimTemplate:
      metadata: { labels: { app: web } }
      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } }, storageClassName: standard }
initContainers:
- name: migrate
  image: busybox
  command: [sh, -c, "true"]
  resources: { requests: { cpu: 10m } }
- name: sidecar
  image: busybox
  restartPolicy: Always
  startupProbe: { exec: { command: ["true"] }, periodSeconds: 1 }
containers:
- name: web
  image: nginx:1.27
  imagePullPolicy: IfNotPresent
  args: [--port=8080]
  workingDir: /srv
  ports: [{ name: http, containerPort: 8080, protocol: TCP }]
  env:
  - { name: MODE, value: prod }
  - { name: POD, valueFrom: { fieldRef: { fieldPath: metadata.name } } }
  - { name: MEM, valueFrom: { resourceFieldRef: { containerName: web, resource: limits.memory, divisor: 1Mi } } }
  - { name: KEY, valueFrom: { configMapKeyRef: { name: settings, key: a, optional: true } } }
  - { name: PASS, valueFrom: { secretKeyRef: { name: creds, key: password, optional: true } } }
  envFrom: [{ prefix: CFG_, configMapRef: { name: settings, optional: true } }, { secretRef: { name: creds, optional: true } }]
  resources: { requests: { cpu: 100m, memory: 64Mi }, limits: { memory: 128Mi } }
  resizePolicy: [{ resourceName: cpu, restartPolicy: NotRequired }]
  volumeMounts: [{ name: config, mountPath: /etc/config, readOnly: true }, { name: scratch, mountPath: /tmp, subPath: x }]
  livenessProbe: { httpGet: { path: /healthz, port: http, scheme: HTTP, httpHeaders: [{ name: X, value: "y" }] }, initialDelaySeconds: 5, failureThreshold: 3 }
  readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5, successThreshold: 1, timeoutSeconds: 2 }
  startupProbe: { grpc: { port: 9090, service: health }, failureThreshold: 30 }
  lifecycle: { postStart: { exec: { command: ["true"] } }, preStop: { sleep: { seconds: 5 } } }
  securityContext:
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities: { drop: [ALL], add: [NET_BIND_SERVICE] }
    seccompProfile: { type: RuntimeDefault }
  terminationMessagePolicy: FallbackToLogsOnError
  stdin: false
  tty: false
`
    .split('\n')
    .map((line) => (line ? indent + line : line))
    .join('\n');

describe('strict field validation with kubectl', () => {
  it('rejects a Deployment with an unknown container field with kube-apiserver\'s message', async () => {
    const r = await k(['apply', '-f', '-'], deployment('typo', '        imagee: nginx\n'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
    );
    const get = await k(['get', 'deployment', 'typo']);
    expect(get.code).not.toBe(0);
  });

  it('prints each unknown field as a warning with --validate=warn and creates the object', async () => {
    const r = await k(['apply', '--validate=warn', '-f', '-'], deployment('warned', '        image: nginx\n        imagee: nginx\n        portz: []\n'));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Warning: unknown field "spec.template.spec.containers[0].imagee"');
    expect(r.stderr).toContain('Warning: unknown field "spec.template.spec.containers[0].portz"');
    expect(r.stdout).toContain('deployment.apps/warned created');
  });

  it('accepts a Pod and a Deployment that use many PodSpec fields', async () => {
    const pod = `apiVersion: v1
kind: Pod
metadata:
  name: rich
  namespace: default
  labels: { app: web, app.kubernetes.io/name: web }
  annotations: { example.com/note: "anything" }
spec:
${richPodSpec('  ')}`;
    expectClean(await k(['apply', '-f', '-'], pod));
    const dep = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: rich
  namespace: default
spec:
  replicas: 2
  revisionHistoryLimit: 3
  progressDeadlineSeconds: 600
  minReadySeconds: 5
  strategy: { type: RollingUpdate, rollingUpdate: { maxSurge: 25%, maxUnavailable: 1 } }
  selector:
    matchLabels: { app: web }
    matchExpressions: [{ key: tier, operator: NotIn, values: [db] }]
  template:
    metadata:
      labels: { app: web }
    spec:
${richPodSpec('      ')}`;
    expectClean(await k(['apply', '-f', '-'], dep));
  });

  it('rejects an unknown field added by a later apply (a strategic merge patch)', async () => {
    expectClean(await k(['apply', '-f', '-'], deployment('later', '        image: nginx\n')));
    const r = await k(['apply', '-f', '-'], deployment('later', '        image: nginx\n        imagee: nginx\n'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.template.spec.containers[0].imagee"');
  });

  it('warns about an unknown field in a merge patch (kubectl patch sends no fieldValidation: Warn, the default)', async () => {
    expectClean(await k(['apply', '-f', '-'], deployment('patched', '        image: nginx\n')));
    const r = await k(['patch', 'deployment', 'patched', '--type=merge', '-p', '{"spec":{"replicas":3,"replicaz":3}}']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe('Warning: unknown field "spec.replicaz"');
    const get = await k(['get', 'deployment', 'patched', '-o', 'jsonpath={.spec.replicas}']);
    expect(get.stdout).toBe('3');
  });

  it('rejects an unknown field on replace (an update)', async () => {
    const r = await k(['replace', '-f', '-'], deployment('patched', '        image: nginx\n        resources: { limitz: {} }\n'));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'Error from server (BadRequest): error when replacing "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].resources.limitz"',
    );
  });
});

describe('YAML request bodies with duplicate keys', () => {
  const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-NAME\ndata:\n  a: "1"\n  a: "2"\n';
  const post = (name: string, mode: string) =>
    env.server.request(`/api/v1/namespaces/default/configmaps?fieldValidation=${mode}`, {
      method: 'POST',
      body: body.replace('NAME', name),
      headers: { 'Content-Type': 'application/yaml' },
    });

  it('fail with Strict as a strict decoding error naming the line, as YAMLToJSONStrict reports it', async () => {
    const r = await post('strict', 'Strict');
    expect(r.status).toBe(400);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({
      reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
    });
  });

  it('are created with Warn, the last value winning, with the duplicate as a warning', async () => {
    const r = await post('warn', 'Warn');
    expect(r.status).toBe(201);
    // one warning per duplicate, without yaml.v2's "yaml: unmarshal errors:" prefix (handlers' parseYAMLWarnings)
    expect(r.headers['warning']).toBe('299 - "line 7: key \\"a\\" already set in map"');
    expect(r.json<{ data: Record<string, string> }>().data).toEqual({ a: '2' });
  });
});
