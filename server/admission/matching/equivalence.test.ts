import { defaultEquivalentResourceMapper, newEquivalentResourceMapper } from './equivalence.js';

const gvr = (group: string, version: string, resource: string) => ({ group, version, resource });

describe('the default equivalence table', () => {
  const m = defaultEquivalentResourceMapper;

  it('lists every version deployments were served at, the served one included, in kube\'s registration order', () => {
    expect(m.equivalentResourcesFor(gvr('apps', 'v1', 'deployments'), '')).toEqual([
      gvr('extensions', 'v1beta1', 'deployments'),
      gvr('apps', 'v1', 'deployments'),
      gvr('apps', 'v1beta2', 'deployments'),
      gvr('apps', 'v1beta1', 'deployments'),
    ]);
  });

  it('finds the class from any member, whatever the version asked for', () => {
    expect(m.equivalentResourcesFor(gvr('extensions', 'v1beta1', 'deployments'), '')).toHaveLength(4);
    expect(m.equivalentResourcesFor(gvr('apps', 'v9', 'deployments'), '')).toHaveLength(4);
  });

  it('keeps subresources apart', () => {
    expect(m.equivalentResourcesFor(gvr('apps', 'v1', 'deployments'), 'scale')).toHaveLength(4);
    expect(m.equivalentResourcesFor(gvr('apps', 'v1', 'deployments'), 'rollback')).toEqual([]);
  });

  it.each([
    [gvr('apps', 'v1', 'deployments'), '', { group: 'apps', version: 'v1', kind: 'Deployment' }],
    [gvr('apps', 'v1', 'deployments'), 'status', { group: 'apps', version: 'v1', kind: 'Deployment' }],
    [gvr('apps', 'v1', 'deployments'), 'scale', { group: 'autoscaling', version: 'v1', kind: 'Scale' }],
    [gvr('extensions', 'v1beta1', 'deployments'), '', { group: 'extensions', version: 'v1beta1', kind: 'Deployment' }],
    [gvr('extensions', 'v1beta1', 'deployments'), 'scale', { group: 'extensions', version: 'v1beta1', kind: 'Scale' }],
    [gvr('apps', 'v1beta2', 'deployments'), 'scale', { group: 'apps', version: 'v1beta2', kind: 'Scale' }],
    [gvr('apps', 'v1beta1', 'deployments'), '', { group: 'apps', version: 'v1beta1', kind: 'Deployment' }],
  ])('knows the kind of %j subresource %j', (resource, sub, kind) => {
    expect(m.kindFor(resource, sub)).toEqual(kind);
  });

  it('has nothing for resources served at one version only', () => {
    expect(m.equivalentResourcesFor(gvr('', 'v1', 'pods'), '')).toEqual([]);
    expect(m.kindFor(gvr('', 'v1', 'pods'), '')).toBeUndefined();
  });
});

describe('a pluggable table', () => {
  it('maps the classes it is given', () => {
    const m = newEquivalentResourceMapper([
      [
        { resource: gvr('networking.k8s.io', 'v1', 'ingresses'), subresource: '', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' } },
        { resource: gvr('extensions', 'v1beta1', 'ingresses'), subresource: '', kind: { group: 'extensions', version: 'v1beta1', kind: 'Ingress' } },
      ],
    ]);
    expect(m.equivalentResourcesFor(gvr('networking.k8s.io', 'v1', 'ingresses'), '')).toEqual([gvr('networking.k8s.io', 'v1', 'ingresses'), gvr('extensions', 'v1beta1', 'ingresses')]);
    expect(m.kindFor(gvr('extensions', 'v1beta1', 'ingresses'), '')).toEqual({ group: 'extensions', version: 'v1beta1', kind: 'Ingress' });
    expect(m.equivalentResourcesFor(gvr('apps', 'v1', 'deployments'), '')).toEqual([]);
  });
});
