// ConfigMap creates through the apiserver on etcd, closed loop at concurrency 1 and 16, with and without dynamic
// admission, beside their limits measured in the same repeat: raw etcd puts through the etcd3 client the server
// uses (the storage limit) and raw HTTPS POSTs of the same AdmissionReview to the same webhook (the webhook limit).
// Every repeat runs every measurement once, in the same order, so slow phases of the machine hit all of them.
// The create floor (bench/create-floor-child.ts) is measured beside them: a server doing only the TLS, HTTP, JSON
// and etcd work any create needs, the most a node process reaches on this machine before doing anything else.
import { randomUUID } from 'node:crypto';
import type { MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhookConfiguration } from '../../server/api/admissionregistration.js';
import type { KubeObject } from '../../server/api/types.js';
import { Etcd3Storage } from '../../server/storage/etcd3.js';
import { adminCredentials, type BenchContext } from '../context.js';
import { atLeastFraction, atMost, formatValue, measured, pendingFigure, summarized, type Figure, type TargetResult } from '../figures.js';
import { CpuMeter, cores, type CpuReading } from '../cpu.js';
import { CreateFloorChild } from '../create-floor-handle.js';
import { closedLoop, KeepAliveClient, type LoadResult } from '../load.js';
import type { BenchServer } from '../server-process.js';
import { median, percentile, summarize, type Summary } from '../stats.js';
import { WebhookChild } from '../webhook-handle.js';
import { configMapPolicy, policyBinding } from '../admission-objects.js';
import type { BenchCase } from './case.js';

export const concurrencies = [1, 16] as const;
type Concurrency = (typeof concurrencies)[number];

const configMapsPath = '/api/v1/namespaces/default/configmaps';

/** A small, typical ConfigMap; it has labels so that the mutating webhook's patch can add one. */
export function configMapBody(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { app: 'bench', tier: 'create' }, annotations: { 'bench.kah.dev/case': 'create' } },
    data: { 'config.yaml': 'log:\n  level: info\nfeatures:\n  a: true\n  b: false\n', mode: 'benchmark' },
  });
}

const vapPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const vapBindingPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

const rules: RuleWithOperations[] = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }];

interface AdmissionVariant {
  name: string;
  /** Creates the admission configuration through the API; returns the paths that delete it, in order. */
  configure?: (api: KeepAliveClient, webhook: WebhookChild) => Promise<string[]>;
  /** the round trip this variant adds, for the overhead ratio */
  webhook?: boolean;
  pending?: boolean;
  /** issue #19's target at c=16: the create rate as a share of the raw etcd put rate */
  minShareOfEtcdPut?: number;
  /** the create floor doing the same dynamic admission's irreducible work: the rate this variant cannot exceed */
  floor: FloorKey;
}

const floorPlain = 'create floor';
const floorWebhook = 'create floor + 1 webhook call';
type FloorKey = typeof floorPlain | typeof floorWebhook;
const floorVariant: Record<FloorKey, string> = {
  [floorPlain]: 'create floor (TLS, HTTP, JSON, the etcd create transaction, one watch; nothing else)',
  [floorWebhook]: 'create floor + 1 webhook call (the same, and one AdmissionReview POST)',
};

export const admissionVariants: AdmissionVariant[] = [
  { name: 'no dynamic admission', minShareOfEtcdPut: 0.5, floor: floorPlain },
  {
    name: '1 validating webhook (allow)',
    webhook: true,
    minShareOfEtcdPut: 0.4,
    floor: floorWebhook,
    async configure(api, webhook) {
      const vwc: ValidatingWebhookConfiguration = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'bench-validating' },
        webhooks: [
          {
            name: 'validate.bench.kah.dev',
            clientConfig: { url: webhook.url('/validate'), caBundle: webhook.caBundle },
            rules,
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            timeoutSeconds: 10,
          },
        ],
      };
      await api.expect(201, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', JSON.stringify(vwc));
      return ['/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/bench-validating'];
    },
  },
  {
    name: '1 mutating webhook (JSON patch)',
    webhook: true,
    minShareOfEtcdPut: 0.4,
    floor: floorWebhook,
    async configure(api, webhook) {
      const mwc: MutatingWebhookConfiguration = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'bench-mutating' },
        webhooks: [
          {
            name: 'mutate.bench.kah.dev',
            clientConfig: { url: webhook.url('/mutate'), caBundle: webhook.caBundle },
            rules,
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
            reinvocationPolicy: 'Never',
            timeoutSeconds: 10,
          },
        ],
      };
      await api.expect(201, 'POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', JSON.stringify(mwc));
      return ['/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/bench-mutating'];
    },
  },
  {
    // 10 policies with bindings matching the ConfigMaps, each its own CEL rule (a label the ConfigMaps do not carry).
    name: '10 ValidatingAdmissionPolicies',
    minShareOfEtcdPut: 0.4,
    // the floor does not evaluate CEL: whatever 10 evaluations cost is above it
    floor: floorPlain,
    async configure(api) {
      const deletes: string[] = [];
      for (let i = 0; i < 10; i++) {
        const policy = `bench-create-${i}.example.com`;
        const binding = `bench-create-${i}-binding.example.com`;
        await api.expect(201, 'POST', vapPath, JSON.stringify(configMapPolicy(policy, `bench.kah.dev/forbidden-${i}`)));
        await api.expect(201, 'POST', vapBindingPath, JSON.stringify(policyBinding(binding, policy)));
        // Bindings first, so that no binding is ever left naming a missing policy.
        deletes.unshift(`${vapPath}/${policy}`);
        deletes.unshift(`${vapBindingPath}/${binding}`);
      }
      return deletes;
    },
  },
];

/** One kind of measurement: a name and the operation the closed loop repeats. */
interface Measurement {
  key: string;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
  op: (c: Concurrency, label: string) => (i: number) => Promise<void>;
}

interface Runs {
  /** per repeat */
  p50: number[];
  p99: number[];
  rate: number[];
  /** every latency of every repeat, for the pooled percentiles */
  pooled: number[];
  /** per process, per repeat: CPU ms per completed request */
  cpu: Map<string, number[]>;
  otherCores: number[];
}

function emptyRuns(): Runs {
  return { p50: [], p99: [], rate: [], pooled: [], cpu: new Map(), otherCores: [] };
}

interface MeteredResult {
  load: LoadResult;
  cpu: CpuReading;
}

interface Fixture {
  server: BenchServer;
  etcdPid: number;
  webhook: WebhookChild;
  floor: CreateFloorChild;
  storage: Etcd3Storage;
  /** per concurrency: a keep-alive client with that many sockets */
  api: Map<number, KeepAliveClient>;
  hook: Map<number, KeepAliveClient>;
  /** per concurrency: a keep-alive client of the create floor, with the apiserver's admin credentials */
  floorApi: Map<number, KeepAliveClient>;
  /** the stored form of a created ConfigMap, the value of the raw puts */
  storedValue: Buffer;
  storedObject: KubeObject;
  /** the AdmissionReview the server sends for a create, with its uid cut out */
  reviewHead: string;
  reviewTail: string;
}

async function setUp(ctx: BenchContext): Promise<Fixture> {
  const etcd = await ctx.etcd();
  const webhook = await WebhookChild.start();
  const server = await ctx.readyServer('etcd3');
  const creds = await adminCredentials(server.opts.certDir);
  const api = new Map(concurrencies.map((c) => [c as number, new KeepAliveClient(server.url, creds, c)]));
  const hook = new Map(concurrencies.map((c) => [c as number, new KeepAliveClient(`https://127.0.0.1:${webhook.port}`, { ca: webhook.caPem }, c)]));
  const storage = new Etcd3Storage({ endpoints: etcd.endpoint });
  const floor = await CreateFloorChild.start({
    certDir: server.opts.certDir,
    etcdEndpoint: etcd.endpoint,
    prefix: `${ctx.freshPrefix()}/configmaps/`,
    webhook: { url: webhook.url('/validate'), caPem: webhook.caPem },
  });
  const floorApi = new Map(concurrencies.map((c) => [c as number, new KeepAliveClient(floor.origin, creds, c)]));
  const client = api.get(1)!;
  const created = await client.expect(201, 'POST', configMapsPath, configMapBody('bench-sample'));
  const storedObject = JSON.parse(created.body) as KubeObject;
  // Through the validating webhook once, to send the server's own AdmissionReview in the round-trip baseline.
  const deletes = await admissionVariants[1]!.configure!(client, webhook);
  await client.expect(201, 'POST', configMapsPath, configMapBody('bench-sample-reviewed'));
  const review = JSON.stringify(await webhook.lastReview());
  for (const del of deletes) await client.expect(200, 'DELETE', del);
  await webhook.reset();
  const uid = /"uid":"([^"]+)"/.exec(review)?.[1];
  if (!uid) throw new Error(`the webhook did not receive an AdmissionReview with a uid: ${review.slice(0, 200)}`);
  const at = review.indexOf(uid);
  return {
    server,
    etcdPid: etcd.pid,
    webhook,
    floor,
    storage,
    api,
    hook,
    floorApi,
    storedValue: Buffer.from(created.body),
    storedObject,
    reviewHead: review.slice(0, at),
    reviewTail: review.slice(at + uid.length),
  };
}

async function tearDown(f: Fixture): Promise<void> {
  for (const c of [...f.api.values(), ...f.hook.values(), ...f.floorApi.values()]) c.close();
  await f.floor.close();
  await f.storage.close();
  await f.server.stop();
  await f.webhook.close();
}

function measurements(f: Fixture): Measurement[] {
  const list: Measurement[] = [
    {
      key: 'etcd put',
      op: (_c, label) => async (i) => {
        await f.storage.client.put(`/bench-raw/${label}/${i}`).value(f.storedValue).exec();
      },
    },
    {
      key: 'storage create',
      op: (_c, label) => async (i) => {
        const key = `/bench-storage/${label}/${i}`;
        await f.storage.create(key, { ...f.storedObject, metadata: { ...f.storedObject.metadata, name: `${label}-${i}`, resourceVersion: undefined } });
      },
    },
    {
      key: 'webhook round-trip',
      op: (c) => async () => {
        await f.hook.get(c)!.expect(200, 'POST', '/validate?timeout=10s', f.reviewHead + randomUUID() + f.reviewTail);
      },
    },
    {
      key: floorPlain,
      op: (c, label) => async (i) => {
        await f.floorApi.get(c)!.expect(201, 'POST', '/floor', configMapBody(`${label}-${i}`));
      },
    },
    {
      key: floorWebhook,
      op: (c, label) => async (i) => {
        await f.floorApi.get(c)!.expect(201, 'POST', '/floor-webhook', configMapBody(`${label}-${i}`));
      },
    },
  ];
  for (const v of admissionVariants) {
    if (v.pending) continue;
    let deletePaths: string[] = [];
    list.push({
      key: v.name,
      setup: v.configure
        ? async () => {
            deletePaths = await v.configure!(f.api.get(1)!, f.webhook);
          }
        : undefined,
      teardown: async () => {
        for (const del of deletePaths) await f.api.get(1)!.expect(200, 'DELETE', del);
        deletePaths = [];
        await f.webhook.reset();
      },
      op: (c, label) => async (i) => {
        await f.api.get(c)!.expect(201, 'POST', configMapsPath, configMapBody(`${label}-${i}`));
      },
    });
  }
  return list;
}

async function runOnce(ctx: BenchContext, f: Fixture, m: Measurement, c: Concurrency, n: number, label: string): Promise<MeteredResult> {
  await m.setup?.();
  try {
    const meter = new CpuMeter({ server: f.server.pid, etcd: f.etcdPid, webhook: f.webhook.pid, floor: f.floor.pid });
    const res = await closedLoop(n, c, ctx.sizes.loadTimeLimitMs, m.op(c, label));
    const cpu = meter.read();
    if (res.errors > 0) throw new Error(`${m.key} at c=${c}: ${res.errors} of ${res.errors + res.completed} requests failed; first: ${res.firstError}`);
    return { load: res, cpu };
  } finally {
    await m.teardown?.();
  }
}

const latencyMetric = 'latency (median col. = p50)';

function slug(s: string): string {
  return s.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
}

export const createCase: BenchCase = {
  name: 'create',
  title: 'ConfigMap create throughput and latency (etcd storage)',
  async run(ctx, out) {
    const f = await setUp(ctx);
    try {
      const ms = measurements(f);
      ctx.log(`create: warm-up (${ctx.sizes.warmupRequests} requests per measurement)`);
      for (const m of ms) await runOnce(ctx, f, m, 16, ctx.sizes.warmupRequests, `w-${slug(m.key)}`);
      const runs = new Map<string, Runs>();
      for (let r = 0; r < ctx.sizes.createRepeats; r++) {
        for (const c of concurrencies) {
          ctx.log(`create: repeat ${r + 1}/${ctx.sizes.createRepeats}, concurrency ${c}`);
          for (const m of ms) {
            const { load, cpu } = await runOnce(ctx, f, m, c, ctx.sizes.createRequests[c]!, `r${r}-c${c}-${slug(m.key)}`);
            const key = `${m.key}|${c}`;
            const acc = runs.get(key) ?? emptyRuns();
            acc.p50.push(median(load.latencies));
            acc.p99.push(percentile(load.latencies, 99));
            acc.rate.push(load.rate);
            for (const l of load.latencies) acc.pooled.push(l);
            for (const [proc, ms] of [...Object.entries(cpu.processes), ['load generator', cpu.self] as const]) {
              const list = acc.cpu.get(proc) ?? [];
              list.push(ms / load.completed);
              acc.cpu.set(proc, list);
            }
            acc.otherCores.push(cpu.otherCores);
            runs.set(key, acc);
          }
        }
      }
      for (const c of concurrencies) out.figures.push(...figuresFor(runs, c));
      const others = median([...runs.values()].flatMap((r) => r.otherCores));
      out.notes.push(
        `CPU per request (from /proc: CPU time of each process over the measurement / completed requests) says what a request costs; it moves far less with other load on the machine than the rates do, but it does move (cache and scheduler effects). ` +
          `Other processes kept ${others.toFixed(2)} of ${cores()} cores busy (median over measurements) while the create measurements ran.`,
      );
      out.notes.push(
        `The create floor is a node HTTPS server (bench/create-floor-child.ts, its own process) that does only what any apiserver must do to create an object: TLS with client certificates, HTTP/1.1, JSON, a uid and creationTimestamp, the etcd transaction that creates the key only if it is absent (etcd3 client), and one watch on the resource's prefix decoding every event (kube-apiserver's watch cache keeps one per resource); "+ 1 webhook call" also POSTs an AdmissionReview to the same webhook first and reads its answer. ` +
          `No admission chain, validation, defaulting, managed fields, metrics or audit. A share-of-etcd-put target above the floor's share is out of reach on this machine for any server doing more than that.`,
      );
      out.notes.push(
        `Rates are completed requests per second of wall time in a closed loop; a rate's p99 column is the rate 99% of repeats reached. ` +
          `Latency medians and p99 are over every request of every repeat (${ctx.sizes.createRepeats} repeats, ${ctx.sizes.createRequests[1]} requests at c=1 and ${ctx.sizes.createRequests[16]} at c=16). ` +
          `Ratios are computed per repeat (the baseline ran in the same repeat) and their median is shown.`,
      );
    } finally {
      await tearDown(f);
    }
  },
};

/**
 * A share-of-etcd-put target read against the create floor measured in the same repeats: a target above what the
 * floor reaches cannot be met on this machine by a server that does more than the floor, as every faithful one does.
 */
function withFloor(target: TargetResult, floorShare: number, limit: number, floor: FloorKey): TargetResult {
  const pct = `${(floorShare * 100).toFixed(0)}%`;
  const bound = floorShare < limit ? `; out of reach here: the ${floor} reaches ${pct}` : `; the ${floor} reaches ${pct}`;
  return { ...target, verdict: target.verdict + bound };
}

/** Median over repeats of each process's CPU ms per request. */
function cpuPerRequest(data: Runs): Record<string, number> {
  return Object.fromEntries([...data.cpu.entries()].map(([proc, xs]) => [proc, median(xs)]));
}

/** Percentiles over every request of every repeat (min/max by loop: a spread of 10^5 values would overflow the stack). */
function pooledSummary(xs: number[]): Summary {
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { median: median(xs), p99: percentile(xs, 99), min, max, n: xs.length };
}

/** The median over repeats of a per-repeat quantity. */
function pairedMedian(n: number, value: (r: number) => number): number {
  return summarize(Array.from({ length: n }, (_, r) => value(r))).median;
}

function figuresFor(runs: Map<string, Runs>, c: Concurrency): Figure[] {
  const get = (key: string): Runs => runs.get(`${key}|${c}`)!;
  const etcd = get('etcd put');
  const rtt = get('webhook round-trip');
  const plain = get('no dynamic admission');
  const repeats = etcd.rate.length;
  const at = `c=${c}`;
  const figures: Figure[] = [];
  const pair = (variant: string, role: Figure['role'], data: Runs, rateExtra: Partial<Figure> = {}, latencyExtra: Partial<Figure> = {}): void => {
    const cpu = cpuPerRequest(data);
    const cpuText = Object.entries(cpu)
      .filter(([proc]) => proc !== 'load generator' && cpu[proc]! >= 0.005)
      .map(([proc, ms]) => `${proc} ${ms.toFixed(2)}`)
      .join(', ');
    const note = [rateExtra.note, cpuText && `CPU ms/req: ${cpuText}`].filter(Boolean).join('; ');
    figures.push(measured(`${variant}, ${at}`, 'rate', 'req/s', role, data.rate, { ...rateExtra, cpuPerRequestMs: cpu, ...(note ? { note } : {}) }));
    figures.push(summarized(`${variant}, ${at}`, latencyMetric, 'ms', role, pooledSummary(data.pooled), latencyExtra));
  };
  pair('etcd put (etcd3 client)', 'baseline', etcd);
  const storage = get('storage create');
  const storageShare = pairedMedian(repeats, (r) => storage.rate[r]! / etcd.rate[r]!);
  pair('Etcd3Storage.create (the server’s storage layer)', 'info', storage, { ratio: { value: storageShare, text: `${(storageShare * 100).toFixed(0)}% of etcd put` } });
  pair('webhook round-trip (raw HTTPS POST)', 'baseline', rtt);
  const floorShare = new Map<FloorKey, number>();
  for (const key of [floorPlain, floorWebhook] as const) {
    const data = get(key);
    const share = pairedMedian(repeats, (r) => data.rate[r]! / etcd.rate[r]!);
    floorShare.set(key, share);
    pair(floorVariant[key], 'baseline', data, { ratio: { value: share, text: `${(share * 100).toFixed(0)}% of etcd put` } });
  }
  for (const v of admissionVariants) {
    if (v.pending) {
      figures.push(pendingFigure(`${v.name}, ${at}`, 'rate', 'req/s'), pendingFigure(`${v.name}, ${at}`, latencyMetric, 'ms'));
      continue;
    }
    const data = get(v.name);
    const share = pairedMedian(repeats, (r) => data.rate[r]! / etcd.rate[r]!);
    const rateExtra: Partial<Figure> = { ratio: { value: share, text: `${(share * 100).toFixed(0)}% of etcd put` } };
    if (c === 16 && v.minShareOfEtcdPut !== undefined) {
      rateExtra.target = withFloor(atLeastFraction(share, v.minShareOfEtcdPut, `≥ ${(v.minShareOfEtcdPut * 100).toFixed(0)}% of etcd put rate`), floorShare.get(v.floor)!, v.minShareOfEtcdPut, v.floor);
    }
    let latencyExtra: Partial<Figure> = {};
    // At c=16 the round-trips of concurrent requests overlap, so the subtraction only means something at c=1.
    if (v.webhook && c === 1) {
      // (webhook create latency − plain create latency) / webhook round-trip, per repeat on medians.
      const delta = pairedMedian(repeats, (r) => data.p50[r]! - plain.p50[r]!);
      const ratio = pairedMedian(repeats, (r) => (data.p50[r]! - plain.p50[r]!) / rtt.p50[r]!);
      const beyond = pairedMedian(repeats, (r) => data.p50[r]! - plain.p50[r]! - rtt.p50[r]!);
      latencyExtra = {
        ratio: { value: ratio, text: `Δ ${formatValue(delta, 'ms')} = ${ratio.toFixed(2)}× round-trip` },
        note: `overhead beyond the round-trip: ${formatValue(beyond, 'ms')}`,
      };
      latencyExtra.target = atMost(beyond, 1, 'ms', '≤ 1 ms beyond the round-trip');
    } else if (v.configure && c === 1) {
      // In-process admission (policies): what it adds to a request, per repeat on medians.
      const delta = pairedMedian(repeats, (r) => data.p50[r]! - plain.p50[r]!);
      latencyExtra = { ratio: { value: delta, text: `Δ ${formatValue(delta, 'ms')} vs no dynamic admission` } };
    }
    pair(v.name, 'subject', data, rateExtra, latencyExtra);
  }
  return figures;
}
