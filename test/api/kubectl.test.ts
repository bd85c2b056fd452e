// The real kubectl against the apiserver: the everyday commands a webhook author runs must work unchanged.
import { useApiServer } from '../../harness/jest.js';
import { kubectl, KubectlStream } from '../support/kubectl.js';

const env = useApiServer({ storage: 'etcd3' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

const configMap = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
  labels:
    app: demo
data:
  mode: ${value}
`;

const deployment = (replicas: number, image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
        env:
        - name: A
          value: "1"
`;

/** kubectl must succeed without warnings or errors about discovery, OpenAPI or validation. */
function expectClean(r: { code: number | null; stdout: string; stderr: string }): void {
  if (r.code !== 0) throw new Error(`kubectl exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  expect(r.stderr).toBe('');
}

describe('kubectl against the apiserver', () => {
  it('creates a namespace', async () => {
    const r = await k(['create', 'namespace', 'team-a']);
    expectClean(r);
    expect(r.stdout).toContain('namespace/team-a created');
  });

  it('applies a ConfigMap (create, then configure) and gets it as YAML', async () => {
    let r = await k(['apply', '-f', '-'], configMap('blue'));
    expectClean(r);
    expect(r.stdout).toContain('configmap/settings created');
    r = await k(['apply', '-f', '-'], configMap('green'));
    expectClean(r);
    expect(r.stdout).toContain('configmap/settings configured');
    r = await k(['get', 'configmap', 'settings', '-n', 'team-a', '-o', 'yaml']);
    expectClean(r);
    expect(r.stdout).toContain('mode: green');
    expect(r.stdout).toContain('kubectl.kubernetes.io/last-applied-configuration');
    expect(r.stdout).toMatch(/resourceVersion: "\d+"/);
    expect(r.stdout).toMatch(/uid: [0-9a-f-]{36}/);
  });

  it('applies a Deployment, then a changed one, merging its containers by name', async () => {
    let r = await k(['apply', '-f', '-'], deployment(1, 'nginx:1.25'));
    expectClean(r);
    expect(r.stdout).toContain('deployment.apps/web created');
    r = await k(['apply', '-f', '-'], deployment(3, 'nginx:1.27'));
    expectClean(r);
    expect(r.stdout).toContain('deployment.apps/web configured');
    r = await k(['get', 'deployment', 'web', '-n', 'team-a', '-o', 'json']);
    expectClean(r);
    const d = JSON.parse(r.stdout);
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.template.spec.containers).toHaveLength(1);
    expect(d.spec.template.spec.containers[0].image).toBe('nginx:1.27');
    expect(d.metadata.generation).toBe(2);
    // defaults applied by the server
    expect(d.spec.strategy.type).toBe('RollingUpdate');
    expect(d.spec.template.spec.containers[0].terminationMessagePath).toBe('/dev/termination-log');
  });

  it('creates objects with kubectl create generators (protobuf bodies) and scales a deployment', async () => {
    let r = await k(['create', 'configmap', 'literal', '-n', 'team-a', '--from-literal=a=b']);
    expectClean(r);
    r = await k(['create', 'secret', 'generic', 'creds', '-n', 'team-a', '--from-literal=password=s3cret']);
    expectClean(r);
    r = await k(['create', 'deployment', 'gen', '-n', 'team-a', '--image=nginx', '--replicas=2', '--port=80']);
    expectClean(r);
    r = await k(['scale', 'deployment', 'gen', '-n', 'team-a', '--replicas=5']);
    expectClean(r);
    expect(r.stdout).toContain('deployment.apps/gen scaled');
    r = await k(['get', 'secret', 'creds', '-n', 'team-a', '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(r.stdout, 'base64').toString()).toBe('s3cret');
    r = await k(['get', 'deployment', 'gen', '-n', 'team-a', '-o', 'jsonpath={.spec.replicas}/{.spec.template.spec.containers[0].image}']);
    expect(r.stdout).toBe('5/nginx');
    r = await k(['delete', 'deployment', 'gen', '-n', 'team-a']);
    expectClean(r);
  });

  it('prints tables for get', async () => {
    const r = await k(['get', 'configmaps,deployments', '-n', 'team-a']);
    expectClean(r);
    expect(r.stdout).toMatch(/NAME\s+DATA\s+AGE/);
    expect(r.stdout).toMatch(/settings\s+1\s+\d+s/);
    expect(r.stdout).toMatch(/literal\s+1\s+\d+s/);
    expect(r.stdout).toMatch(/NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/);
    expect(r.stdout).toMatch(/web\s+0\/3/);
  });

  it('sees a change with get -w', async () => {
    const watch = new KubectlStream(env.server.kubeconfigPath, ['get', 'configmap', 'settings', '-n', 'team-a', '-w', '-o', 'jsonpath={.data.mode}{"\\n"}']);
    try {
      await watch.waitFor((out) => out.includes('green'));
      const r = await k(['patch', 'configmap', 'settings', '-n', 'team-a', '--type=merge', '-p', '{"data":{"mode":"watched"}}']);
      expectClean(r);
      await watch.waitFor((out) => out.includes('watched'));
    } finally {
      await watch.stop();
    }
  });

  it('patches with all three patch types', async () => {
    let r = await k(['patch', 'configmap', 'settings', '-n', 'team-a', '--type=merge', '-p', '{"data":{"merge":"yes"}}']);
    expectClean(r);
    r = await k(['patch', 'configmap', 'settings', '-n', 'team-a', '--type=json', '-p', '[{"op":"add","path":"/data/json","value":"yes"}]']);
    expectClean(r);
    r = await k(['patch', 'deployment', 'web', '-n', 'team-a', '--type=strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}}}']);
    expectClean(r);
    r = await k(['get', 'configmap', 'settings', '-n', 'team-a', '-o', 'json']);
    const cm = JSON.parse(r.stdout);
    expect(cm.data).toMatchObject({ merge: 'yes', json: 'yes' });
    r = await k(['get', 'deployment', 'web', '-n', 'team-a', '-o', 'json']);
    const env = JSON.parse(r.stdout).spec.template.spec.containers[0].env;
    // strategic merge: env merged by name, not replaced; kube puts the patch's new items before the server-only ones
    expect(env).toEqual([{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
  });

  it('labels an object and selects by label', async () => {
    let r = await k(['label', 'configmap', 'settings', '-n', 'team-a', 'tier=gold']);
    expectClean(r);
    expect(r.stdout).toContain('configmap/settings labeled');
    r = await k(['get', 'configmaps', '-n', 'team-a', '-l', 'tier=gold', '-o', 'name']);
    expectClean(r);
    expect(r.stdout.trim()).toBe('configmap/settings');
    r = await k(['get', 'configmaps', '-n', 'team-a', '-l', 'tier!=gold', '-o', 'name']);
    expect(r.stdout).not.toContain('configmap/settings');
  });

  it('deletes objects and reports NotFound afterwards', async () => {
    let r = await k(['delete', 'configmap', 'settings', '-n', 'team-a']);
    expectClean(r);
    expect(r.stdout).toContain('configmap "settings" deleted');
    r = await k(['get', 'configmap', 'settings', '-n', 'team-a']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error from server (NotFound): configmaps "settings" not found');
  });

  it('deletes a namespace through Terminating, removing its contents', async () => {
    const r = await k(['delete', 'namespace', 'team-a', '--wait=true', '--timeout=30s']);
    expectClean(r);
    const after = await k(['get', 'deployments', '-n', 'team-a', '-o', 'name']);
    expect(after.stdout.trim()).toBe('');
    const ns = await k(['get', 'namespace', 'team-a']);
    expect(ns.stderr).toContain('namespaces "team-a" not found');
  });
});
