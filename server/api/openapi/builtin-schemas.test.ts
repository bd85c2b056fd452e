// Built-in kinds' schemas rebuilt from client-node's models, typed as kube types them in CEL.
import { celTypeOfSchema } from '../../admission/cel/schema-types.js';
import { CelEngineEnv } from '../../admission/cel/engine/env.js';
import { formatType, type CelType } from '../../admission/cel/engine/types.js';
import { BuiltinSchemaResolver } from './builtin-schemas.js';
import { chainSchemaResolvers, formatGroupVersionKind } from './resolver.js';

const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const pod = { group: '', version: 'v1', kind: 'Pod' };
const secret = { group: '', version: 'v1', kind: 'Secret' };

describe('BuiltinSchemaResolver', () => {
  const resolver = new BuiltinSchemaResolver();
  const env = new CelEngineEnv();
  beforeAll(() => resolver.load([deployment, pod, secret, { group: 'example.com', version: 'v1', kind: 'Widget' }]));

  const typeIn = (gvk: typeof pod, expr: string): string => {
    const vars = new Map<string, CelType>([['object', celTypeOfSchema(resolver.schemaFor(gvk)!, gvk.kind)]]);
    const c = env.compile(expr, { variables: vars });
    return c.ok ? formatType(c.program.type) : c.message.split('\n')[0]!;
  };

  it('answers only after load and only for built-in kinds', async () => {
    expect(new BuiltinSchemaResolver().schemaFor(deployment)).toBeUndefined();
    expect(resolver.schemaFor(deployment)?.properties?.['spec']?.properties?.['replicas']).toEqual({ type: 'integer', format: 'int32' });
    expect(resolver.schemaFor({ group: 'example.com', version: 'v1', kind: 'Widget' })).toBeUndefined();
    expect(resolver.knows({ group: 'example.com', version: 'v1', kind: 'Job' })).toBe(false);
    // a built-in group's kind takes its model by client-node's naming, so new resources need no table entry
    expect(resolver.knows({ group: 'apps', version: 'v1', kind: 'ReplicaSet' })).toBe(true);
    const job = { group: 'batch', version: 'v1', kind: 'Job' };
    await resolver.load([job]);
    expect(resolver.schemaFor(job)?.properties?.['spec']?.properties?.['backoffLimit']).toEqual({ type: 'integer', format: 'int32' });
  });

  it.each([
    [deployment, 'object.spec.replicas', 'int'],
    [deployment, 'object.spec.template.spec.containers[0].image', 'string'],
    [deployment, 'object.spec.strategy.rollingUpdate.maxSurge', 'dyn'],
    [deployment, 'object.metadata.labels', 'map(string, string)'],
    [deployment, 'object.metadata.namespace', 'string'],
    [deployment, 'object.metadata.creationTimestamp', 'google.protobuf.Timestamp'],
    [deployment, 'object.metadata.managedFields[0].fieldsV1', 'Deployment.metadata.managedFields.@idx.fieldsV1'],
    [deployment, 'object.status.conditions.exists(c, c.type == "Available")', 'bool'],
    [pod, 'object.spec.containers.all(c, c.securityContext.privileged == false)', 'bool'],
    [pod, 'object.spec.containers[0].ports[0].containerPort', 'int'],
    [pod, 'object.spec.containers[0].resources.limits', "ERROR: <input>:1:36: undefined field 'limits'"],
    [secret, 'object.data', 'map(string, bytes)'],
    [secret, 'object.stringData', 'map(string, string)'],
    [deployment, 'object.spec.replicass', "ERROR: <input>:1:12: undefined field 'replicass'"],
  ])('types %j %s as %s', (gvk, expr, want) => {
    expect(typeIn(gvk, expr)).toBe(want);
  });

  it('chains resolvers, first answer wins', () => {
    const custom = { schemaFor: (g: { kind: string }) => (g.kind === 'Widget' ? { type: 'object' } : undefined) };
    const chained = chainSchemaResolvers(resolver, custom);
    expect(chained.schemaFor({ group: 'example.com', version: 'v1', kind: 'Widget' })).toEqual({ type: 'object' });
    expect(chained.schemaFor(deployment)).toBe(resolver.schemaFor(deployment));
  });

  it('formats kinds as kube prints a GroupVersionKind', () => {
    expect(formatGroupVersionKind(deployment)).toBe('apps/v1, Kind=Deployment');
    expect(formatGroupVersionKind(pod)).toBe('/v1, Kind=Pod');
  });
});
