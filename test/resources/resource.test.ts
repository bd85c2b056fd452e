// resource.k8s.io/v1 (dynamic resource allocation) through the real server: one walk per kind with kube's
// defaults (ExactCount, count 1) and its texts for required fields and names; claims' spec is immutable.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks } from '../support/resource-walk.js';

const env = useApiServer({ storage: 'memory' });

const claimSpec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } };

describeResourceWalks(env, 'walk-resource', [
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'deviceclasses', kind: 'DeviceClass', namespaced: false,
    object: () => ({ spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } }),
    defaulted: [],
    invalid: [{ name: 'a selector without cel', object: { spec: { selectors: [{}] } }, causes: [{ reason: 'FieldValueRequired', field: 'spec.selectors[0].cel', message: 'Required value' }] }],
  },
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaims', kind: 'ResourceClaim', namespaced: true,
    object: () => ({ spec: claimSpec }),
    defaulted: [
      { path: 'spec.devices.requests.0.exactly.allocationMode', value: 'ExactCount' },
      { path: 'spec.devices.requests.0.exactly.count', value: 1 },
    ],
    invalid: [
      {
        name: 'a request with neither exactly nor firstAvailable, a bad name',
        object: { spec: { devices: { requests: [{ name: 'GPU' }] } } },
        causes: [
          { reason: 'FieldValueRequired', field: 'spec.devices.requests[0]', message: 'Required value: exactly one of `exactly` or `firstAvailable` is required' },
          { reason: 'FieldValueInvalid', field: 'spec.devices.requests[0].name', message: expect.stringMatching(/^Invalid value: "GPU": a lowercase RFC 1123 label must consist of/) as unknown as string },
        ],
      },
      {
        name: 'a request without device class',
        object: { spec: { devices: { requests: [{ name: 'gpu', exactly: {} }] } } },
        message: 'ResourceClaim.resource.k8s.io "walk-resourceclaim-invalid" is invalid: spec.devices.requests[0].exactly.deviceClassName: Required value',
      },
    ],
  },
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'resourceclaimtemplates', kind: 'ResourceClaimTemplate', namespaced: true,
    object: () => ({ spec: { spec: { devices: { requests: [{ name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: 'gpu.example.com' }] }] } } } }),
    defaulted: [
      { path: 'spec.spec.devices.requests.0.firstAvailable.0.allocationMode', value: 'ExactCount' },
      { path: 'spec.spec.devices.requests.0.firstAvailable.0.count', value: 1 },
    ],
    invalid: [
      {
        name: 'both exactly and firstAvailable',
        object: { spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'a' }, firstAvailable: [{ name: 'b', deviceClassName: 'b' }] }] } } } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.spec.devices.requests[0]', message: 'Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set' }],
      },
    ],
  },
  {
    group: 'resource.k8s.io', version: 'v1', resource: 'resourceslices', kind: 'ResourceSlice', namespaced: false,
    object: () => ({ spec: { driver: 'gpu.example.com', nodeName: 'node-1', pool: { name: 'pool-1', generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'gpu-0' }] } }),
    defaulted: [],
    invalid: [
      {
        name: 'no driver, pool or node selection',
        object: { spec: { pool: {} } },
        causes: [
          { reason: 'FieldValueRequired', field: 'spec.driver', message: 'Required value' },
          { reason: 'FieldValueRequired', field: 'spec.pool.name', message: 'Required value' },
          { reason: 'FieldValueInvalid', field: 'spec.pool.resourceSliceCount', message: 'Invalid value: 0: must be greater than zero' },
          { reason: 'FieldValueRequired', field: 'spec', message: 'Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required' },
        ],
      },
      {
        name: 'two node selections',
        object: { spec: { driver: 'gpu.example.com', nodeName: 'node-1', allNodes: true, pool: { name: 'p', resourceSliceCount: 1 } } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set' }],
      },
    ],
  },
]);

describe('resource.k8s.io claims', () => {
  it('refuse a spec change (field is immutable); kubectl prints the claim pending', async () => {
    const ns = 'walk-resource';
    const path = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;
    const body = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'fixed' }, spec: claimSpec };
    expect((await env.server.request(path, { method: 'POST', body })).status).toBe(201);
    const res = await env.server.request(`${path}/fixed`, { method: 'PUT', body: { ...body, spec: { devices: { requests: [{ name: 'other', exactly: { deviceClassName: 'gpu.example.com' } }] } } } });
    expect(res.status).toBe(422);
    expect(res.json<{ details: { causes: unknown[] } }>().details.causes).toContainEqual(expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec', message: expect.stringMatching(/: field is immutable$/) as unknown }));
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'resourceclaims', 'fixed', '-n', ns]);
    expect(table.stdout).toMatch(/^NAME\s+STATE\s+AGE\nfixed\s+pending\s+\S+\n$/);
  });
});
