// ValidatingAdmissionWebhook against real HTTPS webhooks (the harness's test server), with the real matcher, client
// and metrics registry.
import { Registry } from 'prom-client';
import {
  allow,
  closeConnection,
  delay,
  deny,
  hang,
  patch,
  startWebhookServer,
  status,
  withAuditAnnotations,
  withWarnings,
  wrongUid,
  type WebhookHandler,
  type WebhookServer,
} from '../../../harness/webhook-server.js';
import type { ValidatingWebhook, WebhookAccessor } from '../../api/admissionregistration.js';
import { StatusError } from '../../api/errors.js';
import type { Status } from '../../api/types.js';
import { newAdmissionMetrics, type AdmissionMetrics } from '../../metrics/admission.js';
import type { AdmissionAttributes } from '../attributes.js';
import { matchWebhook } from '../matching/index.js';
import { staticSnapshotSource, type ConfigurationSource } from '../sources/source.js';
import { createWebhookClient, type WebhookClient } from './client.js';
import type { WebhookPluginOptions } from './dispatch.js';
import { accessor, configMap, configMapAttributes, webhook as hookDef } from './test-fixtures.js';
import { ValidatingAdmissionWebhook } from './validating.js';

let server: WebhookServer;
let client: WebhookClient;
let registry: Registry;
let metrics: AdmissionMetrics;
const namespaces: Record<string, Record<string, string>> = { 'team-a': { env: 'dev' }, 'team-b': { env: 'prod' } };
let lookups: string[] = [];

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
  lookups = [];
});

/** A validating webhook at `path` of the test server, named <path>.example.com. */
function hook(path: string, extra: Partial<ValidatingWebhook> = {}): ValidatingWebhook {
  return hookDef(`${path.slice(1)}.example.com`, server.url(path), server.caBundle, extra);
}

function plugin(hooks: ValidatingWebhook[], extra: Partial<WebhookPluginOptions> = {}): ValidatingAdmissionWebhook {
  const accessors = hooks.map((h, i) => accessor('validating', 'config.example.com', h, i));
  return new ValidatingAdmissionWebhook({
    source: staticSnapshotSource(accessors),
    matchWebhook,
    namespaceLabels: async (ns) => {
      lookups.push(ns);
      return namespaces[ns];
    },
    client,
    metrics,
    excludeVirtualResources: () => true,
    ...extra,
  });
}

/** The handler routing on the request path. */
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

describe('ValidatingAdmissionWebhook', () => {
  it('calls a matching webhook with a v1 review of the request and lets an allowed request through', async () => {
    const attrs = configMapAttributes();
    await plugin([hook('/allow')]).validate(attrs);
    const got = reviewsAt('/allow');
    expect(got).toHaveLength(1);
    expect(got[0]!.path).toBe('/allow');
    expect(got[0]!.query).toEqual({ timeout: '10s' });
    expect(got[0]!.request).toMatchObject({ operation: 'CREATE', name: 'cm', namespace: 'team-a', object: configMap('cm'), userInfo: { username: 'alice' } });
    expect(attrs.annotations).toEqual({});
  });

  it('does not call a webhook whose rules do not match', async () => {
    await plugin([hook('/allow', { rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['*'], scope: '*' }] })]).validate(configMapAttributes());
    expect(server.reviews).toHaveLength(0);
  });

  it.each<[string, Parameters<typeof status>[0], Partial<Status>]>([
    ['message and code', { code: 403, message: 'no configmaps here' }, { code: 403, message: 'admission webhook "deny.example.com" denied the request: no configmaps here' }],
    ['a code below 400', { code: 200, message: 'nope' }, { code: 400, message: 'admission webhook "deny.example.com" denied the request: nope' }],
    ['no code', { message: 'nope' }, { code: 400, message: 'admission webhook "deny.example.com" denied the request: nope' }],
    ['a teapot', { code: 418, message: 'short and stout' }, { code: 418, message: 'admission webhook "deny.example.com" denied the request: short and stout' }],
    ['only a reason', { reason: 'Forbidden' }, { code: 400, reason: 'Forbidden', message: 'admission webhook "deny.example.com" denied the request: Forbidden' }],
    ['nothing', {}, { code: 400, message: 'admission webhook "deny.example.com" denied the request without explanation' }],
    [
      'reason and details',
      { code: 422, reason: 'Invalid', message: 'bad', details: { name: 'cm', kind: 'configmaps', causes: [{ field: 'data.x', message: 'x is bad' }] } },
      { code: 422, reason: 'Invalid', message: 'admission webhook "deny.example.com" denied the request: bad', details: { name: 'cm', kind: 'configmaps', causes: [{ field: 'data.x', message: 'x is bad' }] } },
    ],
  ])('denies with the webhook\'s Status (%s) as webhookerrors.ToStatusErr builds it', async (_name, s, want) => {
    server.setHandler(() => status(s));
    const got = await statusOf(plugin([hook('/deny')]).validate(configMapAttributes()));
    expect(got).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...want });
  });

  it('adds the webhook\'s warnings (also on denial) and its audit annotations under its name', async () => {
    server.setHandler(route({
      '/warn': () => withAuditAnnotations(withWarnings(allow(), ['first', '', 'second']), { decision: 'allowed', 'bad/key': 'x' }),
      '/deny': () => withWarnings(deny('no'), ['denied warning']),
    }));
    const attrs = configMapAttributes();
    await plugin([hook('/warn')]).validate(attrs);
    expect(attrs.warnings).toEqual(['first', 'second']);
    expect(attrs.annotations).toEqual({ 'warn.example.com/decision': 'allowed' });
    const denied = configMapAttributes();
    expect(await statusOf(plugin([hook('/deny')]).validate(denied))).toMatchObject({ code: 403 });
    expect(denied.warnings).toEqual(['denied warning']);
  });

  it('fails the request when a validating webhook sends a patch', async () => {
    server.setHandler(() => patch([{ op: 'add', path: '/data/x', value: 'y' }]));
    expect(await statusOf(plugin([hook('/patch')]).validate(configMapAttributes()))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: failed calling webhook "patch.example.com": received invalid webhook response: validating webhook may not return response.patch',
      details: { causes: [{ message: 'failed calling webhook "patch.example.com": received invalid webhook response: validating webhook may not return response.patch' }] },
    });
  });

  it('treats a response with another uid as a failed call', async () => {
    server.setHandler(() => wrongUid('not-yours'));
    const got = await statusOf(plugin([hook('/uid')]).validate(configMapAttributes()));
    const uid = server.reviews[0]!.request.uid;
    expect(got).toMatchObject({ code: 500, message: `Internal error occurred: failed calling webhook "uid.example.com": received invalid webhook response: expected response.uid="${uid}", got "not-yours"` });
  });

  it('accepts any uid in a v1beta1 response, as kube does', async () => {
    server.setHandler(() => wrongUid('not-yours'));
    await plugin([hook('/beta', { admissionReviewVersions: ['v1beta1'] })]).validate(configMapAttributes());
    expect(server.reviews[0]!.review.apiVersion).toBe('admission.k8s.io/v1beta1');
  });

  describe('failurePolicy', () => {
    it('fails closed on a timeout with kube\'s wrapped "context deadline exceeded"', async () => {
      server.setHandler(() => hang());
      const got = await statusOf(plugin([hook('/hang', { timeoutSeconds: 1 })]).validate(configMapAttributes()));
      expect(got).toMatchObject({
        code: 500,
        reason: 'InternalError',
        message: `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "https://127.0.0.1:${server.port}/hang?timeout=1s": context deadline exceeded`,
      });
      const text = await registry.metrics();
      expect(text).toContain('apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="hang.example.com",operation="CREATE",rejection_code="400",type="validating"} 1');
      expect(text).toContain('apiserver_admission_webhook_request_total{code="400",name="hang.example.com",operation="CREATE",rejected="true",type="validating"} 1');
    });

    it('fails open under Ignore: allowed, counted and annotated with the index among the called webhooks', async () => {
      server.setHandler(route({ '/hang': () => hang() }));
      const attrs = configMapAttributes();
      await plugin([
        hook('/skipped', { rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['*'] }] }),
        hook('/allow'),
        hook('/hang', { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
      ]).validate(attrs);
      expect(attrs.annotations).toEqual({ 'failed-open.validating.webhook.admission.k8s.io/round_0_index_1': 'hang.example.com' });
      const text = await registry.metrics();
      expect(text).toContain('apiserver_admission_webhook_fail_open_count{name="hang.example.com",type="validating"} 1');
      expect(text).toContain('apiserver_admission_webhook_request_total{code="400",name="hang.example.com",operation="CREATE",rejected="false",type="validating"} 1');
      expect(text).not.toContain('apiserver_admission_webhook_rejection_count{');
    });

    it.each([
      ['a closed connection', () => closeConnection(), (p: number) => `failed to call webhook: Post "https://127.0.0.1:${p}/broken?timeout=10s": EOF`],
      ['an unreachable CA', undefined, (p: number) => `failed to call webhook: Post "https://127.0.0.1:${p}/broken?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`],
    ])('fails closed on %s', async (_name, reply, reason) => {
      if (reply) server.setHandler(reply);
      const h = hook('/broken');
      if (!reply) delete h.clientConfig.caBundle;
      expect(await statusOf(plugin([h]).validate(configMapAttributes()))).toMatchObject({ code: 500, message: `Internal error occurred: failed calling webhook "broken.example.com": ${reason(server.port)}` });
    });
  });

  describe('dry run', () => {
    it.each(['Some', 'Unknown'] as const)('refuses a dry-run request for sideEffects %s without calling the webhook', async (sideEffects) => {
      const got = await statusOf(plugin([hook('/allow', { sideEffects })]).validate(configMapAttributes({ dryRun: true })));
      expect(got).toMatchObject({ code: 400, reason: 'BadRequest', message: 'admission webhook "allow.example.com" does not support dry run' });
      expect(server.reviews).toHaveLength(0);
      expect(await registry.metrics()).toContain('apiserver_admission_webhook_rejection_count{error_type="apiserver_internal_error",name="allow.example.com",operation="CREATE",rejection_code="0",type="validating"} 1');
    });

    it('fails a dry-run request per failurePolicy when sideEffects is missing', async () => {
      const h = hook('/allow');
      delete h.sideEffects;
      expect(await statusOf(plugin([h]).validate(configMapAttributes({ dryRun: true })))).toMatchObject({ code: 500, message: 'Internal error occurred: failed calling webhook "allow.example.com": Webhook SideEffects is nil' });
      await plugin([{ ...h, failurePolicy: 'Ignore' }]).validate(configMapAttributes({ dryRun: true }));
    });

    it('calls NoneOnDryRun webhooks with dryRun set', async () => {
      await plugin([hook('/allow', { sideEffects: 'NoneOnDryRun' })]).validate(configMapAttributes({ dryRun: true }));
      expect(server.reviews[0]!.request.dryRun).toBe(true);
    });
  });

  describe('parallel calls', () => {
    it('calls all matching webhooks at once', async () => {
      server.setHandler(() => delay(600, allow()));
      const start = Date.now();
      await plugin([hook('/a'), hook('/b'), hook('/c')]).validate(configMapAttributes());
      expect(server.reviews).toHaveLength(3);
      expect(Date.now() - start).toBeLessThan(1500);
    });

    it('waits for every call and fails with the first error to come back', async () => {
      server.setHandler(route({ '/slow-deny': () => delay(400, deny('slow')), '/fast-deny': () => deny('fast'), '/slow-allow': () => delay(400, allow()) }));
      const got = await statusOf(plugin([hook('/slow-deny'), hook('/fast-deny'), hook('/slow-allow')]).validate(configMapAttributes()));
      expect(got?.message).toBe('admission webhook "fast-deny.example.com" denied the request: fast');
      expect(server.reviews).toHaveLength(3);
    });

    it('does not delay a request that does not match a slow webhook', async () => {
      server.setHandler(route({ '/slow': () => delay(2000, allow()) }));
      const p = plugin([hook('/slow', { objectSelector: { matchLabels: { slow: 'yes' } } }), hook('/fast')]);
      const slowRequest = p.validate(configMapAttributes({ object: configMap('slow', {}, { slow: 'yes' }) }));
      await server.waitForReviews(1);
      const start = Date.now();
      await p.validate(configMapAttributes({ object: configMap('quick') }));
      expect(Date.now() - start).toBeLessThan(1000);
      await slowRequest;
    });
  });

  describe('matching', () => {
    it('looks namespace labels up only for webhooks with a namespaceSelector, once per request', async () => {
      await plugin([hook('/allow')]).validate(configMapAttributes());
      expect(lookups).toEqual([]);
      await plugin([hook('/dev', { namespaceSelector: { matchLabels: { env: 'dev' } } }), hook('/prod', { namespaceSelector: { matchLabels: { env: 'prod' } } })]).validate(configMapAttributes());
      expect(lookups).toEqual(['team-a']);
      expect(reviewsAt('/dev')).toHaveLength(1);
      expect(reviewsAt('/prod')).toHaveLength(0);
    });

    it('matches a Namespace being created on its own labels', async () => {
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c', labels: { env: 'prod' } } };
      await plugin([hook('/prod', { namespaceSelector: { matchLabels: { env: 'prod' } }, rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['CREATE'] }] })]).validate(
        configMapAttributes({
          kind: { group: '', version: 'v1', kind: 'Namespace' },
          resource: { group: '', version: 'v1', resource: 'namespaces' },
          name: 'team-c',
          namespace: 'team-c',
          object: ns,
        }),
      );
      expect(lookups).toEqual([]);
      expect(reviewsAt('/prod')).toHaveLength(1);
    });

    it('skips a webhook whose matchConditions do not match, and counts the exclusion', async () => {
      await plugin([hook('/allow', { matchConditions: [{ name: 'never', expression: 'false' }] })], { matchConditions: () => ({ matches: false }) }).validate(configMapAttributes());
      expect(server.reviews).toHaveLength(0);
      expect(await registry.metrics()).toContain('apiserver_admission_match_condition_exclusions_total{kind="webhook",name="allow.example.com",operation="CREATE",type="validating"} 1');
    });

    it('fails a matchConditions error closed with Forbidden under Fail, and skips the webhook under Ignore', async () => {
      const withConditions = { matchConditions: [{ name: 'broken', expression: 'object.nope' }] };
      const matchConditions = () => ({ error: 'expression \'object.nope\' resulted in error: no such key: nope' });
      expect(await statusOf(plugin([hook('/allow', withConditions)], { matchConditions }).validate(configMapAttributes()))).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: 'configmaps "cm" is forbidden: expression \'object.nope\' resulted in error: no such key: nope',
      });
      await plugin([hook('/allow', { ...withConditions, failurePolicy: 'Ignore' })], { matchConditions }).validate(configMapAttributes());
      expect(server.reviews).toHaveLength(0);
    });

    it('ignores matchConditions without an evaluator', async () => {
      await plugin([hook('/allow', { matchConditions: [{ name: 'never', expression: 'false' }] })]).validate(configMapAttributes());
      expect(server.reviews).toHaveLength(1);
    });
  });

  it('refuses requests until the configurations have loaded', async () => {
    const notSynced: ConfigurationSource<WebhookAccessor> = { snapshot: () => ({ generation: 0, items: [] }), hasSynced: () => false };
    expect(await statusOf(plugin([], { source: notSynced, readyTimeoutMs: 50 }).validate(configMapAttributes()))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'configmaps "cm" is forbidden: not yet ready to handle request',
    });
  });

  it('records kube\'s webhook metrics for allowed and denied calls', async () => {
    server.setHandler(route({ '/deny': () => deny('no', 403) }));
    const attrs: AdmissionAttributes = configMapAttributes({ operation: 'UPDATE', oldObject: configMap('cm') });
    await plugin([hook('/allow')]).validate(attrs);
    await statusOf(plugin([hook('/deny')]).validate(attrs));
    const text = await registry.metrics();
    expect(text).toContain('apiserver_admission_webhook_request_total{code="200",name="allow.example.com",operation="UPDATE",rejected="false",type="validating"} 1');
    expect(text).toContain('apiserver_admission_webhook_request_total{code="403",name="deny.example.com",operation="UPDATE",rejected="true",type="validating"} 1');
    expect(text).toContain('apiserver_admission_webhook_rejection_count{error_type="no_error",name="deny.example.com",operation="UPDATE",rejection_code="403",type="validating"} 1');
    expect(text).toMatch(/apiserver_admission_webhook_admission_duration_seconds_bucket\{le="0.005",name="allow.example.com",operation="UPDATE",rejected="false",type="validating"\} \d/);
  });
});
