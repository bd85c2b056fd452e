// The OpenAPI documents through the real kubectl: `kubectl explain` at any depth (it reads /openapi/v3), with
// --recursive and --api-version, for built-in kinds and custom resources; kubectl's validation of an unknown nested
// field; server-side apply and client-side apply (kubectl computes the strategic merge patch from the v3 schema's
// patch tags). Expected output is kube's explain template (kubectl/pkg/explain/v2/templates/plaintext.tmpl).
import { useApiServer } from '../../harness/jest.js';
import { crontabCRD } from '../crd/fixtures.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: 'memory' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

async function clean(args: string[], input?: string): Promise<string> {
  const r = await k(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  expect(r.stderr).toBe('');
  return r.stdout;
}

describe('kubectl explain', () => {
  it('explains a Pod\'s containers with kube\'s descriptions, types and required markers', async () => {
    const out = await clean(['explain', 'pod.spec.containers']);
    expect(out).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: containers <\[\]Container>\n/);
    expect(out).toContain('List of containers belonging to the pod.');
    expect(out).toContain('A single application container that you want to run within a pod.');
    expect(out).toMatch(/\n  name\t<string> -required-\n/);
    expect(out).toMatch(/\n  ports\t<\[\]ContainerPort>\n/);
    expect(out).toMatch(/\n  resources\t<ResourceRequirements>\n/);
  });

  it('explains a field that is a reference with kube\'s field description, then its type\'s', async () => {
    const out = await clean(['explain', 'pod.spec']);
    expect(out).toContain('FIELD: spec <PodSpec>\n\n\nDESCRIPTION:\n    Specification of the desired behavior of the pod. More info:\n');
    expect(out).toContain('    PodSpec is a description of a pod.\n');
  });

  it('explains a Deployment\'s pod template ports with --api-version, five levels down', async () => {
    const out = await clean(['explain', 'deployment.spec.template.spec.containers.ports', '--api-version=apps/v1']);
    expect(out).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: ports <\[\]ContainerPort>\n/);
    expect(out).toMatch(/\n  containerPort\t<integer> -required-\n    Number of port to expose on the pod's IP address/);
    expect(out).toContain('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".');
  });

  it.each([
    ['deployment.spec.strategy.rollingUpdate.maxSurge', /FIELD: maxSurge <IntOrString>/],
    ['pod.spec.containers.resources.limits', /FIELD: limits <map\[string\]Quantity>/],
    ['validatingwebhookconfiguration.webhooks.clientConfig.service.port', /FIELD: port <integer>/],
    ['mutatingadmissionpolicies.spec.mutations.applyConfiguration', /FIELD: applyConfiguration <ApplyConfiguration>/],
    ['crd.spec.versions.schema.openAPIV3Schema.properties', /FIELD: properties <map\[string\]JSONSchemaProps>/],
    ['secret.data', /FIELD: data <map\[string\]string>/],
    ['subjectaccessreview.spec.resourceAttributes.fieldSelector', /FIELD: fieldSelector <FieldSelectorAttributes>/],
  ])('explains %s', async (path, want) => {
    expect(await clean(['explain', path])).toMatch(want);
  });

  it('lists nested fields with --recursive', async () => {
    const out = await clean(['explain', 'deployment', '--recursive']);
    expect(out).toMatch(/\n {8}containers\t<\[\]Container> -required-\n/);
    expect(out).toMatch(/\n {10}ports\t<\[\]ContainerPort>\n {12}containerPort\t<integer> -required-\n/);
    expect(out).toMatch(/\n {6}rollingUpdate\t<RollingUpdateDeployment>\n {8}maxSurge\t<IntOrString>\n/);
  });

  it('reports a field that does not exist as kubectl does', async () => {
    const r = await k(['explain', 'pod.spec.containers.imagee']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: field "imagee" does not exist\n');
  });

  it('explains a custom resource from its CRD\'s schema', async () => {
    await clean(['apply', '-f', '-'], crontabCRD);
    await clean(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    // discovery and the v3 root move once the CRD is served; kubectl refetches them
    const out = await eventually(() => clean(['explain', 'crontabs.spec']), 15_000, 200);
    expect(out).toMatch(/^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n\nFIELD: spec <Object>\n/);
    expect(out).toMatch(/\n  cronSpec\t<string>\n/);
    expect(await clean(['explain', 'crontabs.metadata.ownerReferences'])).toMatch(/FIELD: ownerReferences <\[\]OwnerReference>/);
  });
});

const pod = (name: string, portExtra: string, image = 'nginx') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
spec:
  containers:
  - name: web
    image: ${image}
    ports:
    - containerPort: 80${portExtra}
  - name: sidecar
    image: busybox
`;

describe('kubectl writes with the OpenAPI documents', () => {
  it('refuses an unknown nested field with --validate=true and --validate=strict, naming its path', async () => {
    for (const args of [['create', '--validate=true'], ['apply', '--validate=strict']]) {
      const r = await k([...args, '-f', '-'], pod('bad', '\n      protocoll: TCP'));
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].ports[0].protocoll"\n');
    }
  });

  it('applies client-side: the strategic merge patch from the v3 schema merges containers by name', async () => {
    expect(await clean(['apply', '-f', '-'], pod('csa', ''))).toBe('pod/csa created\n');
    expect(await clean(['apply', '-f', '-'], pod('csa', '', 'nginx:2'))).toBe('pod/csa configured\n');
    const out = JSON.parse(await clean(['get', 'pod', 'csa', '-o', 'json']));
    expect(out.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['web=nginx:2', 'sidecar=busybox']);
  });

  it('applies server-side twice, merging the container ports by their list-map keys', async () => {
    const deployment = (replicas: number, port: number) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ssa, namespace: default }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ssa } }
  template:
    metadata: { labels: { app: ssa } }
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{ containerPort: ${port} }]
`;
    expect(await clean(['apply', '--server-side', '-f', '-'], deployment(1, 80))).toBe('deployment.apps/ssa serverside-applied\n');
    expect(await clean(['apply', '--server-side', '-f', '-'], deployment(2, 81))).toBe('deployment.apps/ssa serverside-applied\n');
    const out = JSON.parse(await clean(['get', 'deployment', 'ssa', '-o', 'json']));
    expect(out.spec.replicas).toBe(2);
    expect(out.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 81, protocol: 'TCP' }]);
  });
});
