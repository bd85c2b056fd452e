// discovery.k8s.io/v1 EndpointSlices as kube-apiserver serves them: kube's port defaults (name "", protocol TCP),
// ValidateEndpointSlice texts (addressType enum and immutability, addresses by type, ports), kube's columns.
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });
const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

const walks: ResourceWalk[] = [
  {
    group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true,
    object: () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true } }], ports: [{ port: 8080 }] }),
    defaulted: [
      { path: 'ports.0.protocol', value: 'TCP' },
      { path: 'ports.0.name', value: '' },
    ],
    invalid: [
      {
        name: 'an unknown address type',
        object: { addressType: 'IPv5', endpoints: [] },
        message: 'EndpointSlice.discovery.k8s.io "walk-endpointslice-invalid" is invalid: addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"',
      },
      {
        name: 'an endpoint without addresses',
        object: { addressType: 'IPv4', endpoints: [{ addresses: [] }] },
        causes: [{ reason: 'FieldValueRequired', field: 'endpoints[0].addresses', message: 'Required value: must contain at least 1 address' }],
      },
      {
        name: 'an address that is not an IP',
        object: { addressType: 'IPv4', endpoints: [{ addresses: ['not-an-ip'] }] },
        causes: [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' }],
      },
      {
        name: 'an unsupported port protocol',
        object: { addressType: 'IPv4', endpoints: [], ports: [{ port: 80, protocol: 'HTTP' }] },
        causes: [{ reason: 'FieldValueNotSupported', field: 'ports[0].protocol', message: 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"' }],
      },
    ],
  },
];

describeResourceWalks(env, 'discovery-walk', walks);

describe('discovery.k8s.io/v1 EndpointSlice', () => {
  it('keeps its addressType immutable, bumps generation and prints kube\'s columns', async () => {
    const body = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }], ports: [{ name: 'http', port: 80 }] };
    const created = await env.server.request(path, { method: 'POST', body });
    expect([created.status, created.json<{ metadata: { generation?: number } }>().metadata.generation]).toEqual([201, 1]);
    const changed = await env.server.request(`${path}/web-abc`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { addressType: 'FQDN' } });
    expect([changed.status, changed.json<{ message: string }>().message]).toEqual([422, 'EndpointSlice.discovery.k8s.io "web-abc" is invalid: addressType: Invalid value: "FQDN": field is immutable']);
    const moved = await env.server.request(`${path}/web-abc`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { endpoints: [{ addresses: ['10.0.0.3'] }] } });
    expect(moved.json<{ metadata: { generation?: number } }>().metadata.generation).toBe(2);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'endpointslices', 'web-abc', '-n', 'default']);
    expect(table.stdout).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\nweb-abc\s+IPv4\s+80\s+10\.0\.0\.3\s+/);
  });
});
