// apiregistration.k8s.io/v1 through the real server: the local APIServices kube-apiserver's autoregister
// controller creates (one per served group version, Local and Available), `kubectl get apiservices`, the walk
// with kube-aggregator's validation texts.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks } from '../support/resource-walk.js';

const env = useApiServer({ storage: 'memory' });
const base = '/apis/apiregistration.k8s.io/v1/apiservices';

interface APIService {
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: { conditions?: Array<Record<string, unknown>> };
}

describeResourceWalks(env, 'walk-apiregistration', [
  {
    group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false,
    // kube requires the name version.group: the walk's objects are v1.walk.example.com, v1.walk.example.com-kubectl, …
    name: 'v1.walk.example.com',
    object: (name) => ({ spec: { group: name.slice('v1.'.length), version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'default', name: 'api' } } }),
    defaulted: [{ path: 'spec.service.port', value: 443 }],
    invalid: [
      {
        name: 'a name that is not version.group, priorities out of range',
        object: { spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001 } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "v1.walk.example.com-invalid": must be `spec.version+"."+spec.group`: "v1.example.com"' },
          { reason: 'FieldValueInvalid', field: 'spec.groupPriorityMinimum', message: 'Invalid value: 0: must be positive and less than 20000' },
          { reason: 'FieldValueInvalid', field: 'spec.versionPriority', message: 'Invalid value: 1001: must be positive and less than 1000' },
        ],
      },
    ],
  },
]);

describe('local APIServices', () => {
  it('exist at startup for every served group version, Local and Available', async () => {
    const list = (await env.server.request(base)).json<{ items: APIService[] }>();
    const names = list.items.map((i) => i.metadata.name);
    for (const n of ['v1.', 'v1.apps', 'v1.storage.k8s.io', 'v1.certificates.k8s.io', 'v1.flowcontrol.apiserver.k8s.io', 'v1.apiregistration.k8s.io', 'v1.admissionregistration.k8s.io', 'v1.authentication.k8s.io']) {
      expect(names).toContain(n);
    }
    const core = list.items.find((i) => i.metadata.name === 'v1.')!;
    expect(core.spec).toEqual({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    expect(core.status?.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' })]);
    const apps = list.items.find((i) => i.metadata.name === 'v1.apps')!;
    expect([apps.spec['groupPriorityMinimum'], apps.spec['versionPriority']]).toEqual([17800, 15]);
  });

  it('kubectl get apiservices shows the local ones', async () => {
    const res = await kubectl(env.server.kubeconfigPath, ['get', 'apiservices']);
    expect([res.code, res.stderr]).toEqual([0, '']);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(lines).toContainEqual(expect.stringMatching(/^v1\.\s+Local\s+True\s+\S+$/));
    expect(lines).toContainEqual(expect.stringMatching(/^v1\.apps\s+Local\s+True\s+\S+$/));
  });

  it('an aggregated APIService is stored and printed with its service; its status is Unknown until written', async () => {
    const body = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.example.com' }, spec: { group: 'metrics.example.com', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics' } } };
    expect((await env.server.request(base, { method: 'POST', body })).status).toBe(201);
    const res = await kubectl(env.server.kubeconfigPath, ['get', 'apiservice', 'v1beta1.metrics.example.com', '--no-headers']);
    expect(res.stdout).toMatch(/^v1beta1\.metrics\.example\.com\s+kube-system\/metrics\s+Unknown\s+\S+\n$/);
    const status = await env.server.request(`${base}/v1beta1.metrics.example.com/status`, {
      method: 'PUT',
      body: { ...body, status: { conditions: [{ type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'service/metrics in "kube-system" is not present' }] } },
    });
    expect(status.status).toBe(200);
    const after = await kubectl(env.server.kubeconfigPath, ['get', 'apiservice', 'v1beta1.metrics.example.com', '--no-headers']);
    expect(after.stdout).toMatch(/^v1beta1\.metrics\.example\.com\s+kube-system\/metrics\s+False \(ServiceNotFound\)\s+\S+\n$/);
  });

  it('refuses a local APIService with a caBundle', async () => {
    const body = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.local.example.com' }, spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 100, caBundle: Buffer.from('abc').toString('base64') } };
    const res = await env.server.request(base, { method: 'POST', body });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([
      422,
      'APIService.apiregistration.k8s.io "v1.local.example.com" is invalid: spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
    ]);
  });
});
