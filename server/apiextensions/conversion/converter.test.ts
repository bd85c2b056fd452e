// The converters against a real HTTPS conversion webhook (the harness's), with kube's messages for every failure.
import { generateCA } from '../../../certs/index.js';
import { conversionFaults, startConversionWebhookServer, type ConversionWebhookServer, type ConvertFunction } from '../../../harness/conversion-webhook-server.js';
import { freePort } from '../../../harness/ports.js';
import { createWebhookClient, type WebhookClient } from '../../admission/webhook/client.js';
import type { CustomResourceDefinition } from '../../api/apiextensions.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { converterFor } from './converter.js';

const group = 'stable.example.com';
const v1 = `${group}/v1`;
const v2 = `${group}/v2`;

/** v1 has spec.cronSpec, v2 has spec.schedule. */
const cronConvert: ConvertFunction = (obj, desired) => {
  const spec = { ...(obj['spec'] as Record<string, unknown>) };
  if (desired === v2 && 'cronSpec' in spec) {
    spec['schedule'] = spec['cronSpec'];
    delete spec['cronSpec'];
  }
  if (desired === v1 && 'schedule' in spec) {
    spec['cronSpec'] = spec['schedule'];
    delete spec['schedule'];
  }
  return { ...obj, apiVersion: desired, spec };
};

function crd(conversion: CustomResourceDefinition['spec']['conversion']): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      ...(conversion ? { conversion } : {}),
    },
  };
}

const cronTab = (apiVersion = v1, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion,
  kind: 'CronTab',
  metadata: { name: 'my-cron', namespace: 'default', uid: 'u-1', resourceVersion: '7', generation: 1, labels: { app: 'cron' }, annotations: { note: 'x' } },
  spec: apiVersion === v1 ? { cronSpec: '* * * * */5' } : { schedule: '* * * * */5' },
  ...extra,
});

let server: ConversionWebhookServer;
let client: WebhookClient;
let shortClient: WebhookClient;
let uidN = 0;
const newUid = (): string => `uid-${++uidN}`;

beforeAll(async () => {
  server = await startConversionWebhookServer({ convert: cronConvert });
  client = createWebhookClient();
  shortClient = createWebhookClient({ defaultTimeoutSeconds: 1 });
});

afterAll(async () => {
  client?.close();
  shortClient?.close();
  await server?.close();
});

beforeEach(() => server.reset());

const webhookCrd = (over: { url?: string; caBundle?: string; versions?: string[] } = {}): CustomResourceDefinition =>
  crd({
    strategy: 'Webhook',
    webhook: { clientConfig: { url: over.url ?? server.url('/convert'), caBundle: over.caBundle ?? server.caBundle }, conversionReviewVersions: over.versions ?? ['v1'] },
  });

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected the conversion to fail');
}

describe('strategy None', () => {
  it('changes only apiVersion', async () => {
    const c = converterFor(crd(undefined), { webhookClient: client });
    const [out] = await c.convert([cronTab()], v2);
    expect(out).toEqual({ ...cronTab(), apiVersion: v2 });
  });

  it('returns an object already in the desired version as it is', async () => {
    const c = converterFor(crd({ strategy: 'None' }), { webhookClient: client });
    const obj = cronTab(v2);
    expect(await c.convert([obj], v2)).toEqual([obj]);
  });

  it('rejects versions the CRD does not have, as crConverter does', async () => {
    const c = converterFor(crd({ strategy: 'None' }), { webhookClient: client });
    const to = await failure(c.convert([cronTab()], `${group}/v3`));
    expect(to.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, message: `request to convert CR to an invalid group/version: ${group}/v3` });
    const from = await failure(c.convert([cronTab(`${group}/v9`)], v2));
    expect(from.message).toBe(`request to convert CR from an invalid group/version: ${group}/v9`);
  });
});

describe('strategy Webhook', () => {
  it('converts v1 to v2 and back through the webhook', async () => {
    const c = converterFor(webhookCrd(), { webhookClient: client, newUid });
    const [asV2] = await c.convert([cronTab()], v2);
    expect(asV2).toEqual({ ...cronTab(), apiVersion: v2, spec: { schedule: '* * * * */5' } });
    const [back] = await c.convert([asV2!], v1);
    expect(back).toEqual(cronTab());
    expect(server.reviews.map((r) => r.request.desiredAPIVersion)).toEqual([v2, v1]);
  });

  it('sends a v1 ConversionReview with uid, desiredAPIVersion and the objects, on ?timeout=30s', async () => {
    uidN = 0;
    const c = converterFor(webhookCrd(), { webhookClient: client, newUid });
    await c.convert([cronTab()], v2);
    const [r] = await server.waitForReviews(1);
    expect(r!.path).toBe('/convert');
    expect(r!.query).toEqual({ timeout: '30s' });
    expect(r!.review).toEqual({
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.k8s.io/v1',
      request: { uid: 'uid-1', desiredAPIVersion: v2, objects: [cronTab()] },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    });
  });

  it('sends v1beta1 when that is the first supported conversionReviewVersion, and skips its uid check', async () => {
    const c = converterFor(webhookCrd({ versions: ['v2alpha9', 'v1beta1', 'v1'] }), { webhookClient: client, newUid });
    server.setFault(conversionFaults.wrongUid('someone-else'));
    const [out] = await c.convert([cronTab()], v2);
    expect(out!['spec']).toEqual({ schedule: '* * * * */5' });
    expect(server.reviews[0]!.review.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
  });

  it('does not call the webhook for an object already in the desired version', async () => {
    const c = converterFor(webhookCrd(), { webhookClient: client });
    const obj = cronTab(v2);
    expect(await c.convert([obj], v2)).toEqual([obj]);
    expect(server.reviews).toHaveLength(0);
  });

  it('keeps the webhook labels and annotations and restores every other metadata field', async () => {
    server.setConvert((obj, desired) => {
      const out = cronConvert(obj, desired) as KubeObject;
      return { ...out, metadata: { ...out.metadata, labels: { app: 'cron', converted: 'yes' }, annotations: undefined, resourceVersion: '999', finalizers: ['x/y'] } };
    });
    const c = converterFor(webhookCrd(), { webhookClient: client });
    const [out] = await c.convert([cronTab()], v2);
    const { annotations: _dropped, ...metaWithoutAnnotations } = cronTab().metadata!;
    expect(out!.metadata).toEqual({ ...metaWithoutAnnotations, labels: { app: 'cron', converted: 'yes' } });
  });

  const prefix = `conversion webhook for ${group}/v1, Kind=CronTab`;
  const cases: Array<{ name: string; arrange: () => void; message: string | RegExp; versions?: string[] }> = [
    { name: 'a Failure result with a message', arrange: () => server.setFault(conversionFaults.failure('cannot convert crontabs today')), message: `${prefix} failed: cannot convert crontabs today` },
    {
      name: 'a Failure result without a message',
      arrange: () => server.setFault(conversionFaults.failureWithoutMessage()),
      message: `${prefix} failed: response.result.status was 'Failure', not 'Success'`,
    },
    { name: 'a per-object refusal', arrange: () => server.setConvert(() => conversionFaults.failure('no v2 for you')), message: `${prefix} failed: no v2 for you` },
    { name: 'a wrong uid', arrange: () => server.setFault(conversionFaults.wrongUid('other')), message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: expected response\.uid="uid-\d+", got "other"$/ },
    {
      name: 'a v1beta1 answer to a v1 review',
      arrange: () => server.setFault(conversionFaults.wrongApiVersion()),
      message: `${prefix} failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion`,
    },
    {
      name: 'an answer without apiVersion and kind',
      arrange: () => server.setFault(conversionFaults.nonJSON('{"response":{"uid":"x","result":{"status":"Success"}}}', 'application/json')),
      message: `${prefix} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=`,
    },
    {
      name: 'an answer without response',
      arrange: () => server.setFault(conversionFaults.nonJSON('{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}', 'application/json')),
      message: `${prefix} failed: no response provided`,
    },
    { name: 'two objects for one', arrange: () => server.setFault(conversionFaults.wrongCount(2)), message: `${prefix} returned 2 objects, expected 1` },
    { name: 'no objects', arrange: () => server.setFault(conversionFaults.wrongCount(0)), message: `${prefix} returned 0 objects, expected 1` },
    {
      name: 'a changed name',
      arrange: () => server.setFault(conversionFaults.changeMetadata({ name: 'renamed' })),
      message: `${prefix} returned invalid object: must have the same name: my-cron != renamed`,
    },
    {
      name: 'a changed namespace',
      arrange: () => server.setFault(conversionFaults.changeMetadata({ namespace: 'elsewhere' })),
      message: `${prefix} returned invalid object: must have the same namespace: default != elsewhere`,
    },
    { name: 'a changed uid', arrange: () => server.setFault(conversionFaults.changeMetadata({ uid: 'u-2' })), message: `${prefix} returned invalid object: must have the same UID: u-1 != u-2` },
    {
      name: 'an invalid label',
      arrange: () => server.setFault(conversionFaults.changeMetadata({ labels: { app: 'not valid!' } })),
      message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab returned invalid metadata: metadata\.labels: Invalid value: "not valid!": a valid label must be/,
    },
    {
      name: 'a label that is not a string',
      arrange: () => server.setFault(conversionFaults.changeMetadata({ labels: { app: 3 } })),
      message: `${prefix} returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object`,
    },
    {
      name: 'metadata that is not an object (the identity check comes first)',
      arrange: () => server.setConvert((o, d) => ({ ...o, apiVersion: d, metadata: 'nope' as never })),
      message: `${prefix} returned invalid object: must have the same name: my-cron != `,
    },
    {
      name: 'an object left in the old version',
      arrange: () => server.setConvert((o) => o),
      message: `${prefix} returned invalid object at index 0: invalid groupVersion (expected ${v2}, received ${v1})`,
    },
    {
      name: 'an object of another kind',
      arrange: () => server.setConvert((o, d) => ({ ...o, apiVersion: d, kind: 'Other' })),
      message: `${prefix} returned invalid object at index 0: invalid kind (expected CronTab, received Other)`,
    },
    {
      name: 'an object without kind (reported without prefix, as kube does)',
      arrange: () => server.setConvert((o, d) => ({ apiVersion: d, metadata: o.metadata })),
      message: /^Object 'Kind' is missing in '\{"apiVersion":"stable\.example\.com\/v2","metadata":/,
    },
    { name: 'a non-JSON body', arrange: () => server.setFault(conversionFaults.nonJSON('this is not JSON')), message: /^conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: couldn't get version\/kind; json parse error: json: cannot unmarshal string into Go value of type struct/ },
    {
      name: 'an HTTP 500',
      arrange: () => server.setFault(conversionFaults.httpError(500, 'boom')),
      message: `${prefix} failed: an error on the server ("boom") has prevented the request from succeeding`,
    },
    { name: 'no supported review version', arrange: () => undefined, versions: ['v2'], message: 'no supported conversion review versions' },
  ];

  it.each(cases)('fails with kube’s 500 for $name', async ({ arrange, message, versions }) => {
    arrange();
    const c = converterFor(webhookCrd(versions ? { versions } : {}), { webhookClient: client, newUid });
    const err = await failure(c.convert([cronTab()], v2));
    expect(err.code).toBe(500);
    expect(err.status.reason).toBeUndefined();
    if (typeof message === 'string') expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
    expect(err.status.message).toBe(err.message);
  });

  it('reports converted objects without metadata when the original had no identity to compare', async () => {
    server.setConvert((o, d) => ({ apiVersion: d, kind: o.kind! }));
    const c = converterFor(webhookCrd(), { webhookClient: client });
    const err = await failure(c.convert([{ apiVersion: v1, kind: 'CronTab', metadata: {}, spec: {} }], v2));
    expect(err.message).toBe(`${prefix} returned invalid metadata: missing metadata in converted object`);
  });

  it('times out a hanging webhook with the client-wide timeout', async () => {
    server.setFault(conversionFaults.hang());
    const c = converterFor(webhookCrd(), { webhookClient: shortClient });
    const err = await failure(c.convert([cronTab()], v2));
    expect(err.message).toBe(
      `conversion webhook for ${group}/v1, Kind=CronTab failed: Post "https://127.0.0.1:${server.port}/convert?timeout=1s": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
  });

  it('fails on an unreachable webhook with Go’s dial error', async () => {
    const port = await freePort();
    const c = converterFor(webhookCrd({ url: `https://127.0.0.1:${port}/convert` }), { webhookClient: client });
    const err = await failure(c.convert([cronTab()], v2));
    expect(err.message).toBe(`conversion webhook for ${group}/v1, Kind=CronTab failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  it('fails when the caBundle does not verify the webhook’s certificate', async () => {
    const other = await generateCA();
    const c = converterFor(webhookCrd({ caBundle: Buffer.from(other.cert).toString('base64') }), { webhookClient: client });
    const err = await failure(c.convert([cronTab()], v2));
    expect(err.message).toBe(
      `conversion webhook for ${group}/v1, Kind=CronTab failed: Post "https://127.0.0.1:${server.port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
  });

  it('answers an unusable caBundle as kube does when it cannot build the client', async () => {
    const c = converterFor(webhookCrd({ caBundle: Buffer.from('not a pem').toString('base64') }), { webhookClient: client });
    const err = await failure(c.convert([cronTab()], v2));
    expect(err.status).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: error resolving resource' });
  });
});
