// The static configuration sources: a manifest controller's snapshot as webhook accessors or policy objects,
// unsynced until the initial load, composed before the API source.
import type { KubeObject } from '../../server/api/types.js';
import type { ManifestSnapshot } from '../../server/admission/manifest/controller.js';
import { StaticManifestController } from '../../server/admission/manifest/controller.js';
import type { ManifestPlugin } from '../../server/admission/manifest/plugins.js';
import { staticPolicySource, staticPolicySources, staticWebhookSource, type ManifestSnapshotProvider } from '../../server/admission/manifest/static-source.js';
import { compositePolicySources } from '../../server/admission/policy/sources.js';
import { compositeSource } from '../../server/admission/sources/api-source.js';
import { staticSnapshotSource } from '../../server/admission/sources/source.js';
import { eventually } from '../support/eventually.js';
import { docs, ManifestDir, mutatingWebhookYaml, validatingWebhookYaml, vapbYaml, vapYaml } from './support.js';

/** A provider whose snapshot the test sets. */
class FakeProvider implements ManifestSnapshotProvider {
  current: ManifestSnapshot = Object.freeze({ generation: 0, objects: [], hash: '' });
  synced = false;
  constructor(readonly plugin: ManifestPlugin) {}
  snapshot(): ManifestSnapshot {
    return this.current;
  }
  hasSynced(): boolean {
    return this.synced;
  }
  set(objects: KubeObject[]): void {
    this.current = Object.freeze({ generation: this.current.generation + 1, objects: Object.freeze(objects), hash: `sha256:${this.current.generation + 1}` });
    this.synced = true;
  }
}

const vwc = (name: string, ...hooks: string[]): KubeObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: hooks.map((h) => ({ name: h, clientConfig: { url: 'https://127.0.0.1/x' } })),
});

describe('staticWebhookSource', () => {
  it('is not synced before the initial load', () => {
    const p = new FakeProvider('ValidatingAdmissionWebhook');
    const source = staticWebhookSource(p);
    expect(source.hasSynced()).toBe(false);
    expect(source.snapshot().items).toEqual([]);
  });

  it('hands out the webhooks of every configuration as static accessors, in order', () => {
    const p = new FakeProvider('ValidatingAdmissionWebhook');
    p.set([vwc('a.static.k8s.io', 'one', 'two'), vwc('b.static.k8s.io', 'three')]);
    const snap = staticWebhookSource(p).snapshot();
    expect(snap.items.map((a) => [a.uid, a.kind, a.source, a.configurationName, a.webhook.name])).toEqual([
      ['static:a.static.k8s.io/one/0', 'validating', 'static', 'a.static.k8s.io', 'one'],
      ['static:a.static.k8s.io/two/1', 'validating', 'static', 'a.static.k8s.io', 'two'],
      ['static:b.static.k8s.io/three/0', 'validating', 'static', 'b.static.k8s.io', 'three'],
    ]);
    expect(Object.isFrozen(snap.items)).toBe(true);
  });

  it('keeps one snapshot between reloads and follows the controller generation', () => {
    const p = new FakeProvider('MutatingAdmissionWebhook');
    const source = staticWebhookSource(p);
    p.set([vwc('a.static.k8s.io', 'one')]);
    const first = source.snapshot();
    expect(source.snapshot()).toBe(first);
    expect(first.items[0]!.kind).toBe('mutating');
    p.set([]);
    const second = source.snapshot();
    expect(second).not.toBe(first);
    expect(second.generation).toBeGreaterThan(first.generation);
    expect(second.items).toEqual([]);
  });

  it('is refused for a policy plugin', () => {
    expect(() => staticWebhookSource(new FakeProvider('ValidatingAdmissionPolicy'))).toThrow(/not a webhook plugin/);
  });

  it('comes first in the composite source, before the API configurations', () => {
    const p = new FakeProvider('ValidatingAdmissionWebhook');
    p.set([vwc('z.static.k8s.io', 'static-hook')]);
    const api = staticSnapshotSource([{ uid: 'api:a/api-hook/0', kind: 'validating' as const, source: 'api' as const, configurationName: 'a', webhook: { name: 'api-hook', clientConfig: {} } }]);
    const composite = compositeSource(staticWebhookSource(p), api);
    expect(composite.snapshot().items.map((a) => a.webhook.name)).toEqual(['static-hook', 'api-hook']);
  });
});

describe('staticPolicySource', () => {
  it('hands out the policies and bindings as loaded', () => {
    const p = new FakeProvider('ValidatingAdmissionPolicy');
    const objs: KubeObject[] = [
      { kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' } },
      { kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b.static.k8s.io' } },
    ];
    p.set(objs);
    const source = staticPolicySource(p);
    expect(source.hasSynced()).toBe(true);
    expect(source.snapshot().items).toEqual(objs);
  });

  it('is refused for a webhook plugin', () => {
    expect(() => staticPolicySource(new FakeProvider('MutatingAdmissionWebhook'))).toThrow(/not a policy plugin/);
    expect(() => staticPolicySources(new FakeProvider('ValidatingAdmissionWebhook'))).toThrow(/not a policy plugin/);
  });
});

describe('staticPolicySources', () => {
  it('splits policies and bindings into static items, composed before the API ones', () => {
    const p = new FakeProvider('MutatingAdmissionPolicy');
    p.set([
      { kind: 'MutatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' }, spec: { reinvocationPolicy: 'Never' } },
      { kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b.static.k8s.io' }, spec: { policyName: 'p.static.k8s.io' } },
    ]);
    const api = {
      policies: staticSnapshotSource([{ source: 'api' as const, name: 'rest', key: 'api:rest', object: { kind: 'MutatingAdmissionPolicy', metadata: { name: 'rest' } } }]),
      bindings: staticSnapshotSource([{ source: 'api' as const, name: 'rest-b', policyName: 'rest', object: { kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'rest-b' } } }]),
    };
    const sources = compositePolicySources(staticPolicySources(p), api);
    expect(sources.policies.snapshot().items.map((i) => [i.source, i.name])).toEqual([
      ['static', 'p.static.k8s.io'],
      ['api', 'rest'],
    ]);
    expect(sources.bindings.snapshot().items.map((i) => [i.source, i.name, i.policyName])).toEqual([
      ['static', 'b.static.k8s.io', 'p.static.k8s.io'],
      ['api', 'rest-b', 'rest'],
    ]);
  });
});

describe('static sources over a real controller', () => {
  let dir: ManifestDir;
  beforeEach(() => {
    dir = new ManifestDir();
  });
  afterEach(() => dir.cleanup());
  const log = { info: () => {}, error: () => {} };

  it('sync with the initial load and follow reloads', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = new StaticManifestController({ plugin: 'ValidatingAdmissionWebhook', dir: dir.path, log, env: {}, pollIntervalMs: 3_600_000 });
    const source = staticWebhookSource(c);
    expect(source.hasSynced()).toBe(false);
    await c.loadInitial();
    c.start();
    try {
      expect(source.hasSynced()).toBe(true);
      expect(source.snapshot().items.map((a) => a.uid)).toEqual(['static:a.static.k8s.io/check.example.com/0']);
      dir.write('b.yaml', validatingWebhookYaml('b.static.k8s.io'));
      await eventually(() => expect(source.snapshot().items.map((a) => a.configurationName)).toEqual(['a.static.k8s.io', 'b.static.k8s.io']));
    } finally {
      c.stop();
    }
  });

  it('for policies: the policies, then the bindings', async () => {
    dir.write('p.yaml', docs(vapYaml('p.static.k8s.io'), vapbYaml('b.static.k8s.io', 'p.static.k8s.io')));
    const c = new StaticManifestController({ plugin: 'ValidatingAdmissionPolicy', dir: dir.path, log, env: {} });
    await c.loadInitial();
    expect(staticPolicySource(c).snapshot().items.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      'ValidatingAdmissionPolicy/p.static.k8s.io',
      'ValidatingAdmissionPolicyBinding/b.static.k8s.io',
    ]);
  });

  it('mutating webhooks come out as mutating accessors', async () => {
    dir.write('m.yaml', mutatingWebhookYaml('m.static.k8s.io'));
    const c = new StaticManifestController({ plugin: 'MutatingAdmissionWebhook', dir: dir.path, log, env: {} });
    await c.loadInitial();
    const [accessor] = staticWebhookSource(c).snapshot().items;
    expect(accessor).toMatchObject({ kind: 'mutating', source: 'static', configurationName: 'm.static.k8s.io', webhook: { name: 'mutate.example.com', reinvocationPolicy: 'Never' } });
  });
});
