import type { ValidatingAdmissionPolicy } from '../../../api/admissionregistration.js';
import type { KubeObject } from '../../../api/types.js';
import { builtinResourcesFor } from '../../../registry/catalogue/index.js';
import { newRequestContext } from '../../../registry/request-context.js';
import { everything } from '../../../registry/selectors/label-selector.js';
import { ResourceIndex } from '../../../registry/resource-index.js';
import type { ResourceInfo } from '../../../registry/resource.js';
import { ResourceStore } from '../../../registry/store.js';
import { MemoryStorage } from '../../../storage/memory.js';
import { emptyAdmissionChain } from '../../chain.js';
import { storeParamLookup } from '../generic/store-params.js';
import { ValidatingAdmissionPolicyStatusController } from './status.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const eventually = async (check: () => Promise<void>, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
};

function storesOver(storage: MemoryStorage) {
  const index = new ResourceIndex(builtinResourcesFor());
  const stores = new Map<string, ResourceStore>();
  const storeFor = (info: ResourceInfo): ResourceStore => {
    const key = `${info.group}/${info.resource}`;
    if (!stores.has(key)) stores.set(key, new ResourceStore(info, { storage, prefix: '/registry', admission: emptyAdmissionChain }));
    return stores.get(key)!;
  };
  return { index, storeFor };
}

const policy = (name: string): KubeObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] }, validations: [{ expression: 'object.spec.replicas > 1' }] },
});

describe('ValidatingAdmissionPolicy status controller', () => {
  it('writes observedGeneration and typeChecking for new and changed policies, through /status', async () => {
    const storage = new MemoryStorage();
    const { index, storeFor } = storesOver(storage);
    const store = storeFor(index.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!);
    const ctx = () => newRequestContext(admin, '');
    const options = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };
    await store.create(ctx(), policy('before-start'), options);
    const controller = new ValidatingAdmissionPolicyStatusController({
      store,
      typeCheck: (p) => (p.spec?.validations?.[0]?.expression.includes("'1'") ? [{ fieldRef: 'spec.validations[0].expression', warning: 'type confusion' }] : []),
      log: () => {},
    });
    await controller.start();
    try {
      await eventually(async () => expect(((await store.get(ctx(), 'before-start')) as ValidatingAdmissionPolicy).status).toEqual({ observedGeneration: 1, typeChecking: {} }));
      await store.create(ctx(), policy('after-start'), options);
      await eventually(async () => expect(((await store.get(ctx(), 'after-start')) as ValidatingAdmissionPolicy).status).toEqual({ observedGeneration: 1, typeChecking: {} }));
      await store.update(ctx(), 'after-start', '', (cur) => ({ ...cur, spec: { ...(cur['spec'] as object), validations: [{ expression: "object.spec.replicas > '1'" }] } }), { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
      await eventually(async () =>
        expect(((await store.get(ctx(), 'after-start')) as ValidatingAdmissionPolicy).status).toEqual({
          observedGeneration: 2,
          typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'type confusion' }] },
        }),
      );
    } finally {
      controller.stop();
    }
  });
});

describe('the store-backed param lookup', () => {
  it('resolves served kinds, reads params by name and by selector, and knows none of the virtual kinds', async () => {
    const storage = new MemoryStorage();
    const { index, storeFor } = storesOver(storage);
    const cms = storeFor(index.lookup('', 'v1', 'configmaps')!);
    const options = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' };
    await cms.create(newRequestContext(admin, 'team-a'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', labels: { tier: 'gold' } }, data: { max: '3' } }, options);
    await cms.create(newRequestContext(admin, 'team-b'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', labels: { tier: 'gold' } }, data: { max: '5' } }, options);
    const lookup = storeParamLookup(index, storeFor);
    const cm = lookup.resolve({ group: '', version: 'v1', kind: 'ConfigMap' })!;
    expect(cm).toEqual({ resource: { group: '', version: 'v1', resource: 'configmaps' }, kind: { group: '', version: 'v1', kind: 'ConfigMap' }, namespaced: true });
    expect(lookup.resolve({ group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' })).toBeUndefined();
    expect(lookup.resolve({ group: 'example.com', version: 'v1', kind: 'Nope' })).toBeUndefined();
    expect((await lookup.get(cm, 'team-a', 'limits'))?.['data']).toEqual({ max: '3' });
    expect(await lookup.get(cm, 'team-a', 'missing')).toBeUndefined();
    expect((await lookup.list(cm, 'team-b', everything())).map((o) => o.metadata?.namespace)).toEqual(['team-b']);
    expect((await lookup.list(cm, '', everything())).length).toBe(2);
  });
});
