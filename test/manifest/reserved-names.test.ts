// What the REST API says about objects named "*.static.k8s.io" (KEP-5793 "Naming"), with the gate off and on, on
// create and on update, through a real server over one etcd, as kube's registry strategies decide it
// (pkg/registry/admissionregistration/*/strategy.go):
//   - create, gate off: accepted, with WarningsForStaticSuffix's warning (WarningsOnCreate);
//   - create, gate on: 422 Invalid from ValidateStaticSuffix (Validate);
//   - update, either gate: accepted (ValidateUpdate has no suffix check, so objects stored before the gate was
//     turned on stay manageable), always with the warning (WarningsOnUpdate).
// Texts from pkg/apis/admissionregistration/validation/static_suffix.go; the create refusals are kube's
// TestStaticWebhookBlocksAPICreation / TestStaticPolicyBlocksAPICreation.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { api } from '../admission/support.js';

const group = 'admissionregistration.k8s.io';
const warning = 'metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';
const invalid = 'metadata.name: Invalid value: "%s": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';

const kinds = [
  { resource: 'validatingwebhookconfigurations', body: (name: string) => ({ apiVersion: `${group}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks: [] }) },
  { resource: 'mutatingwebhookconfigurations', body: (name: string) => ({ apiVersion: `${group}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks: [] }) },
  {
    resource: 'validatingadmissionpolicies',
    body: (name: string) => ({
      apiVersion: `${group}/v1`,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'true' }],
      },
    }),
  },
  {
    resource: 'validatingadmissionpolicybindings',
    body: (name: string) => ({ apiVersion: `${group}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: 'some-policy', validationActions: ['Deny'] } }),
  },
];

let etcd: EtcdProcess;
let server: ApiServerHandle | undefined;

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await server?.cleanup();
  await etcd?.cleanup();
});

async function startWithGate(on: boolean): Promise<ApiServerHandle> {
  await server?.cleanup();
  server = await startApiServer({ etcdServers: etcd.endpoint, featureGates: { ManifestBasedAdmissionControlConfig: on } });
  return server;
}

const path = (resource: string, name = ''): string => `/apis/${group}/v1/${resource}${name ? `/${name}` : ''}`;

/** GET then PUT, again on a conflict (the policy status controller writes status meanwhile), as client-go's RetryOnConflict. */
async function update(s: ApiServerHandle, resource: string, name: string) {
  for (let attempt = 0; ; attempt++) {
    const current = await api(s, 'GET', path(resource, name));
    expect(current.status).toBe(200);
    const metadata = { ...(current.json['metadata'] as Record<string, unknown>), labels: { touched: String(attempt) } };
    const r = await api(s, 'PUT', path(resource, name), { ...current.json, metadata });
    if (r.status !== 409 || attempt >= 5) return r;
  }
}

describe('names ending in .static.k8s.io through the REST API', () => {
  it('with the gate off: created with the warning, updated with the warning', async () => {
    const s = await startWithGate(false);
    for (const k of kinds) {
      const created = await api(s, 'POST', path(k.resource), k.body('kept.static.k8s.io'));
      expect([k.resource, created.status]).toEqual([k.resource, 201]);
      expect(created.warnings).toEqual([warning]);
      const updated = await update(s, k.resource, 'kept.static.k8s.io');
      expect([k.resource, updated.status]).toEqual([k.resource, 200]);
      expect(updated.warnings).toEqual([warning]);
      // a name without the suffix gets no warning
      const plain = await api(s, 'POST', path(k.resource), k.body('plain.example.com'));
      expect([k.resource, plain.status, plain.warnings]).toEqual([k.resource, 201, []]);
    }
  });

  it('with the gate on: refused on create, while an object stored before stays updatable, with the warning', async () => {
    const s = await startWithGate(true);
    for (const k of kinds) {
      const created = await api(s, 'POST', path(k.resource), k.body('new.static.k8s.io'));
      expect([k.resource, created.status, created.json['reason']]).toEqual([k.resource, 422, 'Invalid']);
      expect(String(created.json['message'])).toContain(invalid.replace('%s', 'new.static.k8s.io'));
      // no warning on a refused create: WarningsOnCreate says nothing with the gate on
      expect(created.warnings).toEqual([]);
      const updated = await update(s, k.resource, 'kept.static.k8s.io');
      expect([k.resource, updated.status]).toEqual([k.resource, 200]);
      expect(updated.warnings).toEqual([warning]);
      const deleted = await api(s, 'DELETE', path(k.resource, 'kept.static.k8s.io'));
      expect([k.resource, deleted.status]).toEqual([k.resource, 200]);
    }
  });
});
