// MutatingAdmissionWebhook against real HTTPS webhooks (the harness's test server), with the real matcher, client,
// metrics registry and the ordered chain for the reinvocation round.
import { Registry } from 'prom-client';
import { allow, closeConnection, deny, patch, startWebhookServer, type ReceivedReview, type WebhookHandler, type WebhookServer } from '../../../harness/webhook-server.js';
import type { MutatingWebhook } from '../../api/admissionregistration.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject, Status } from '../../api/types.js';
import { newAdmissionMetrics, type AdmissionMetrics } from '../../metrics/admission.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { matchWebhook } from '../matching/index.js';
import { OrderedAdmissionChain } from '../ordered-chain.js';
import { staticSnapshotSource } from '../sources/source.js';
import { createWebhookClient, type WebhookClient } from './client.js';
import { MutatingAdmissionWebhook, semanticallyEqual, type MutatingWebhookPluginOptions } from './mutating.js';
import { accessor, configMap, configMapAttributes, webhook as hookDef } from './test-fixtures.js';

let server: WebhookServer;
let client: WebhookClient;
let registry: Registry;
let metrics: AdmissionMetrics;

beforeAll(async () => {
  server = await startWebhookServer();
  client = createWebhookClient();
});
afterAll(async () => {
  client.close();
  await server.close();
});
beforeEach(() => {
  server.reset();
  registry = new Registry();
  metrics = newAdmissionMetrics(registry);
});

function hook(path: string, extra: Partial<MutatingWebhook> = {}): MutatingWebhook {
  return hookDef(`${path.slice(1)}.example.com`, server.url(path), server.caBundle, extra);
}

function plugin(hooks: MutatingWebhook[], extra: Partial<MutatingWebhookPluginOptions> = {}): MutatingAdmissionWebhook {
  return new MutatingAdmissionWebhook({
    source: staticSnapshotSource(hooks.map((h, i) => accessor('mutating', 'mutators.example.com', h, i))),
    matchWebhook,
    namespaceLabels: async () => ({}),
    client,
    metrics,
    excludeVirtualResources: () => true,
    ...extra,
  });
}

function route(table: Record<string, WebhookHandler>): WebhookHandler {
  return (r) => {
    const h = table[r.path];
    return h ? h(r) : allow();
  };
}

async function statusOf(p: Promise<void>): Promise<Status | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
}

const reviewsAt = (p: string) => server.reviews.filter((r) => r.path === p);
const labelsOf = (r: ReceivedReview): Record<string, string> => (r.request.object as KubeObject).metadata?.labels ?? {};

/** Adds label key=value unless the object has it. */
const addLabel = (key: string, value = 'yes'): WebhookHandler => (r) => {
  const labels = labelsOf(r);
  if (labels[key] === value) return allow();
  return patch(Object.keys(labels).length === 0 ? [{ op: 'add', path: '/metadata/labels', value: { [key]: value } }] : [{ op: 'add', path: `/metadata/labels/${key}`, value }]);
};

describe('MutatingAdmissionWebhook', () => {
  it('applies a JSONPatch and records the mutation and patch audit annotations as kube writes them', async () => {
    server.setHandler(() => patch([{ op: 'add', path: '/data/stage', value: '<1>' }]));
    const attrs = configMapAttributes();
    await plugin([hook('/stage-1')]).admit(attrs);
    expect(attrs.object).toEqual({ ...configMap('cm'), data: { stage: '<1>' } });
    expect(attrs.annotations).toEqual({
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"mutators.example.com","webhook":"stage-1.example.com","mutated":true}',
      'patch.webhook.admission.k8s.io/round_0_index_0':
        '{"configuration":"mutators.example.com","webhook":"stage-1.example.com","patch":[{"op":"add","path":"/data/stage","value":"\\u003c1\\u003e"}],"patchType":"JSONPatch"}',
    });
    expect(attrs.reinvocation.shouldReinvoke).toBe(true);
  });

  it('runs webhooks in order, each seeing the previous one\'s changes', async () => {
    server.setHandler(route({
      '/first': () => patch([{ op: 'add', path: '/data/first', value: 'yes' }]),
      '/second': (r) => ((r.request.object as { data: Record<string, string> }).data['first'] ? patch([{ op: 'add', path: '/data/second', value: 'yes' }]) : deny('first did not run')),
    }));
    const attrs = configMapAttributes();
    await plugin([hook('/first'), hook('/second')]).admit(attrs);
    expect((attrs.object as { data: unknown }).data).toEqual({ first: 'yes', second: 'yes' });
    expect(server.reviews.map((r) => r.path)).toEqual(['/first', '/second']);
  });

  it('records an unchanged object as not mutated, without a patch annotation', async () => {
    server.setHandler(route({ '/noop': () => patch([{ op: 'replace', path: '/data', value: {} }]) }));
    const attrs = configMapAttributes();
    await plugin([hook('/allow'), hook('/noop')]).admit(attrs);
    expect(attrs.annotations['mutation.webhook.admission.k8s.io/round_0_index_0']).toBe('{"configuration":"mutators.example.com","webhook":"allow.example.com","mutated":false}');
    expect(attrs.annotations['mutation.webhook.admission.k8s.io/round_0_index_1']).toBe('{"configuration":"mutators.example.com","webhook":"noop.example.com","mutated":false}');
    expect(attrs.annotations['patch.webhook.admission.k8s.io/round_0_index_1']).toBeDefined();
    expect(attrs.reinvocation.shouldReinvoke).toBe(false);
  });

  it('runs the defaulter on the patched object', async () => {
    server.setHandler(() => patch([{ op: 'add', path: '/data/x', value: 'y' }]));
    const attrs = configMapAttributes();
    await plugin([hook('/p')], { defaultObject: (o) => ({ ...o, immutable: false }) }).admit(attrs);
    expect(attrs.object).toMatchObject({ data: { x: 'y' }, immutable: false });
  });

  it('applies a v1beta1 patch without patchType', async () => {
    server.setHandler(() => ({ allowed: true, patch: Buffer.from('[{"op":"add","path":"/data/beta","value":"1"}]').toString('base64') }));
    const attrs = configMapAttributes();
    await plugin([hook('/beta', { admissionReviewVersions: ['v1beta1'] })]).admit(attrs);
    expect(attrs.object).toMatchObject({ data: { beta: '1' } });
  });

  describe('errors', () => {
    it('fails with kube\'s internal error when the patch does not apply, whatever the failurePolicy', async () => {
      server.setHandler(() => patch([{ op: 'test', path: '/data/x', value: 'expected' }]));
      const got = await statusOf(plugin([hook('/bad', { failurePolicy: 'Ignore' })]).admit(configMapAttributes()));
      expect(got).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: testing value /data/x failed: test failed' });
      expect(await registry.metrics()).toContain('apiserver_admission_webhook_rejection_count{error_type="apiserver_internal_error",name="bad.example.com",operation="CREATE",rejection_code="0",type="admit"} 1');
    });

    it('refuses a patch for a request without an object', async () => {
      server.setHandler(() => patch([{ op: 'add', path: '/data/x', value: 'y' }]));
      const attrs = configMapAttributes({ operation: 'DELETE', object: undefined, oldObject: configMap('cm'), options: { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' } });
      const got = await statusOf(plugin([hook('/del', { rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['DELETE'] }] })]).admit(attrs));
      expect(got).toMatchObject({ code: 500, message: 'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation' });
    });

    it('treats a patch without patchType as a failed call, and an undecodable patch too', async () => {
      server.setHandler(route({
        '/no-type': () => ({ allowed: true, patch: Buffer.from('[]').toString('base64') }),
        '/garbage': () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from('{"op":"add"}').toString('base64') }),
      }));
      expect(await statusOf(plugin([hook('/no-type')]).admit(configMapAttributes()))).toMatchObject({
        code: 500,
        message: 'Internal error occurred: failed calling webhook "no-type.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType',
      });
      expect(await statusOf(plugin([hook('/garbage')]).admit(configMapAttributes()))).toMatchObject({
        code: 500,
        message: 'Internal error occurred: failed calling webhook "garbage.example.com": received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      });
    });

    it('fails open under Ignore, annotated with the round and index, and goes on with the next webhook', async () => {
      server.setHandler(route({ '/broken': () => closeConnection(), '/after': () => patch([{ op: 'add', path: '/data/after', value: 'yes' }]) }));
      const attrs = configMapAttributes();
      await plugin([hook('/broken', { failurePolicy: 'Ignore' }), hook('/after')]).admit(attrs);
      expect(attrs.object).toMatchObject({ data: { after: 'yes' } });
      expect(attrs.annotations).toMatchObject({
        'failed-open.mutation.webhook.admission.k8s.io/round_0_index_0': 'broken.example.com',
        'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"mutators.example.com","webhook":"broken.example.com","mutated":false}',
      });
      const text = await registry.metrics();
      expect(text).toContain('apiserver_admission_webhook_fail_open_count{name="broken.example.com",type="admit"} 1');
      expect(text).toContain('apiserver_admission_webhook_request_total{code="503",name="broken.example.com",operation="CREATE",rejected="false",type="admit"} 1');
    });

    it('fails closed under Fail with the call error, and stops there', async () => {
      server.setHandler(route({ '/broken': () => closeConnection() }));
      const got = await statusOf(plugin([hook('/broken'), hook('/after')]).admit(configMapAttributes()));
      expect(got).toMatchObject({ code: 500, message: `Internal error occurred: failed calling webhook "broken.example.com": failed to call webhook: Post "https://127.0.0.1:${server.port}/broken?timeout=10s": EOF` });
      expect(reviewsAt('/after')).toHaveLength(0);
      expect(await registry.metrics()).toContain('apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="broken.example.com",operation="CREATE",rejection_code="503",type="admit"} 1');
    });

    it('refuses dry-run requests for webhooks with side effects before calling them', async () => {
      const got = await statusOf(plugin([hook('/allow', { sideEffects: 'Unknown' })]).admit(configMapAttributes({ dryRun: true })));
      expect(got).toMatchObject({ code: 400, reason: 'BadRequest', message: 'admission webhook "allow.example.com" does not support dry run' });
      expect(server.reviews).toHaveLength(0);
    });
  });

  describe('reinvocation', () => {
    it('reinvokes an IfNeeded webhook once after a later webhook changed the object, and only that one', async () => {
      server.setHandler(route({ '/b-ifneeded': addLabel('b'), '/a-never': addLabel('a') }));
      const p = plugin([hook('/b-ifneeded', { reinvocationPolicy: 'IfNeeded' }), hook('/a-never')]);
      const attrs = configMapAttributes();
      await new OrderedAdmissionChain([p]).admit(attrs);
      expect(attrs.object?.metadata?.labels).toEqual({ b: 'yes', a: 'yes' });
      const calls = reviewsAt('/b-ifneeded');
      expect(calls).toHaveLength(2);
      expect(labelsOf(calls[1]!)).toEqual({ b: 'yes', a: 'yes' });
      expect(calls[0]!.request.uid).not.toBe(calls[1]!.request.uid);
      expect(reviewsAt('/a-never')).toHaveLength(1);
      expect(attrs.annotations['mutation.webhook.admission.k8s.io/round_1_index_0']).toBe('{"configuration":"mutators.example.com","webhook":"b-ifneeded.example.com","mutated":false}');
      expect(attrs.annotations).not.toHaveProperty(['mutation.webhook.admission.k8s.io/round_1_index_1']);
    });

    it('does not reinvoke an IfNeeded webhook when nothing changed after it', async () => {
      server.setHandler(route({ '/a-never': addLabel('a'), '/b-ifneeded': addLabel('b') }));
      const attrs = configMapAttributes();
      await new OrderedAdmissionChain([plugin([hook('/a-never'), hook('/b-ifneeded', { reinvocationPolicy: 'IfNeeded' })])]).admit(attrs);
      expect(reviewsAt('/b-ifneeded')).toHaveLength(1);
      expect(reviewsAt('/a-never')).toHaveLength(1);
    });

    it('reinvokes IfNeeded webhooks when another plugin changed the object after them', async () => {
      server.setHandler(() => allow());
      const annotator: AdmissionPlugin = {
        name: 'LateMutator',
        handles: () => true,
        async admit(a: AdmissionAttributes) {
          if (a.reinvocation.isReinvoke) return;
          a.object = { ...a.object!, metadata: { ...a.object!.metadata, annotations: { late: 'yes' } } };
          a.reinvocation.shouldReinvoke = true;
        },
      };
      const attrs = configMapAttributes();
      await new OrderedAdmissionChain([plugin([hook('/watcher', { reinvocationPolicy: 'IfNeeded' })]), annotator]).admit(attrs);
      const calls = reviewsAt('/watcher');
      expect(calls).toHaveLength(2);
      expect((calls[1]!.request.object as KubeObject).metadata?.annotations).toEqual({ late: 'yes' });
    });

    it('never calls a webhook for the first time in the reinvocation round', async () => {
      server.setHandler(route({ '/first': addLabel('first'), '/late': allow }));
      const attrs = configMapAttributes();
      // /late only matches objects labelled first=yes, which happens after its turn in round 0
      await new OrderedAdmissionChain([
        plugin([hook('/late', { reinvocationPolicy: 'IfNeeded', objectSelector: { matchLabels: { first: 'yes' } } }), hook('/first', { reinvocationPolicy: 'IfNeeded' })]),
      ]).admit(attrs);
      expect(reviewsAt('/late')).toHaveLength(0);
      expect(reviewsAt('/first')).toHaveLength(1);
    });
  });
});

describe('semanticallyEqual', () => {
  it.each([
    [{ a: 1 }, { a: 1 }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: 1, labels: {} }, { a: 1 }, true],
    [{ a: [] }, { a: null }, true],
    [{ a: [1] }, { a: [1, 2] }, false],
    [{ a: '' }, {}, false],
  ])('compares %j and %j as apiequality.Semantic does for typed objects', (a, b, want) => {
    expect(semanticallyEqual(a, b)).toBe(want);
  });
});
