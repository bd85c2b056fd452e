// StaticManifestController with real files: the initial load, reloads through the watcher and through polling,
// invalid changes that keep the previous snapshot, removal, and the metrics and logs kube-apiserver has for them.
import { Registry } from 'prom-client';
import {
  parseDurationMs,
  parseManifestControllerEnv,
  StaticManifestController,
  type StaticManifestControllerOptions,
} from '../../server/admission/manifest/controller.js';
import { apiServerIdentity, apiServerIdHash } from '../../server/admission/manifest/metrics.js';
import { eventually } from '../support/eventually.js';
import { docs, ManifestDir, validatingWebhookYaml, vapbYaml, vapYaml } from './support.js';

interface LogLine {
  level: 'info' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

const apiServerId = apiServerIdentity('testAPIServerID');
const idHash = apiServerIdHash(apiServerId);

let dir: ManifestDir;
let logs: LogLine[];
let registry: Registry;
const controllers: StaticManifestController[] = [];

beforeEach(() => {
  dir = new ManifestDir();
  logs = [];
  registry = new Registry();
});
afterEach(() => {
  for (const c of controllers.splice(0)) c.stop();
  dir.cleanup();
});

function controller(over: Partial<StaticManifestControllerOptions> = {}): StaticManifestController {
  const c = new StaticManifestController({
    plugin: 'ValidatingAdmissionWebhook',
    dir: dir.path,
    apiServerId,
    registry,
    env: {},
    // only the watcher reloads unless a test asks for polling
    pollIntervalMs: 3_600_000,
    log: {
      info: (msg, fields) => logs.push({ level: 'info', msg, ...(fields ? { fields } : {}) }),
      error: (msg, fields) => logs.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
    },
    ...over,
  });
  controllers.push(c);
  return c;
}

async function started(over: Partial<StaticManifestControllerOptions> = {}): Promise<StaticManifestController> {
  const c = controller(over);
  const loaded = await c.loadInitial();
  if (!loaded.ok) throw new Error(`initial load failed: ${JSON.stringify(loaded.errors)}`);
  c.start();
  return c;
}

const names = (c: StaticManifestController): Array<string | undefined> => c.snapshot().objects.map((o) => o.metadata?.name);

async function metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of (await registry.metrics()).split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (want.every((w) => line.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
const reloads = (status: 'success' | 'failure') =>
  metric('apiserver_manifest_admission_config_controller_automatic_reloads_total', { apiserver_id_hash: idHash, plugin: 'ValidatingAdmissionWebhook', status });

async function configInfoHashes(): Promise<string[]> {
  return (await registry.metrics())
    .split('\n')
    .filter((l) => l.startsWith('apiserver_manifest_admission_config_controller_last_config_info{'))
    .map((l) => /[{,]hash="([^"]*)"/.exec(l)![1]!);
}

describe('StaticManifestController initial load', () => {
  it('is not synced before it, then hands out the snapshot, records a success and logs "Loaded N manifest-based … configurations"', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = controller();
    expect(c.hasSynced()).toBe(false);
    expect(c.snapshot()).toEqual({ generation: 0, objects: [], hash: '' });
    const loaded = await c.loadInitial();
    expect(loaded.ok).toBe(true);
    expect(c.hasSynced()).toBe(true);
    expect(names(c)).toEqual(['a.static.k8s.io']);
    expect(c.snapshot().hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await reloads('success')).toBe(1);
    expect(await configInfoHashes()).toEqual([c.snapshot().hash]);
    expect(logs).toEqual([
      {
        level: 'info',
        msg: 'Loaded 1 manifest-based webhook configurations',
        fields: { plugin: 'ValidatingAdmissionWebhook', dir: dir.path, hash: c.snapshot().hash, configurations: 1, webhooks: 1 },
      },
    ]);
  });

  it('says "admission policy" and counts policies and bindings for a policy plugin', async () => {
    dir.write('p.yaml', docs(vapYaml('p.static.k8s.io'), vapbYaml('b.static.k8s.io', 'p.static.k8s.io')));
    const c = controller({ plugin: 'ValidatingAdmissionPolicy' });
    await c.loadInitial();
    expect(logs[0]).toMatchObject({ msg: 'Loaded 1 manifest-based admission policy configurations', fields: { plugin: 'ValidatingAdmissionPolicy', policies: 1, bindings: 1 } });
  });

  it('returns the errors of an invalid directory, stays unsynced and records nothing (startup fails instead)', async () => {
    dir.write('a.yaml', validatingWebhookYaml('no-suffix'));
    const c = controller();
    const loaded = await c.loadInitial();
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.errors.map((e) => e.reason)).toEqual([expect.stringContaining('must have a name ending with ".static.k8s.io"')]);
    expect(c.hasSynced()).toBe(false);
    expect(await reloads('success')).toBeUndefined();
    expect(await reloads('failure')).toBeUndefined();
    expect(() => c.start()).toThrow(/before a successful loadInitial/);
  });

  it('waits the injected load delay first (KAH_MANIFEST_LOAD_DELAY_MS), unsynced meanwhile', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = controller({ env: { KAH_MANIFEST_LOAD_DELAY_MS: '300' } });
    expect(c.loadDelayMs).toBe(300);
    const t0 = Date.now();
    const loading = c.loadInitial();
    expect(c.hasSynced()).toBe(false);
    await loading;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(c.hasSynced()).toBe(true);
  });
});

describe('StaticManifestController reloads', () => {
  it('picks up an atomic rename through the watcher and swaps in a new snapshot', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = await started();
    const first = c.snapshot();
    await eventually(() => expect(c.watching()).toBe(true));
    dir.write('b.yaml', validatingWebhookYaml('b.static.k8s.io'));
    await eventually(() => expect(names(c)).toEqual(['a.static.k8s.io', 'b.static.k8s.io']));
    const second = c.snapshot();
    expect(second.generation).toBeGreaterThan(first.generation);
    expect(second.hash).not.toBe(first.hash);
    // the old snapshot is untouched: a request holding it sees no half reload
    expect(first.objects.map((o) => o.metadata?.name)).toEqual(['a.static.k8s.io']);
    expect(Object.isFrozen(second)).toBe(true);
    await eventually(async () => expect(await reloads('success')).toBe(2));
    expect(await configInfoHashes()).toEqual([second.hash]);
    expect(logs.at(-1)).toMatchObject({ level: 'info', msg: 'reloaded admission manifest config', fields: { plugin: 'ValidatingAdmissionWebhook', hash: second.hash } });
  });

  it('picks up a change made between the initial load and the watch through its first check, with no file event', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = controller();
    const loaded = await c.loadInitial();
    expect(loaded.ok).toBe(true);
    // written before the watch exists: no event will report it
    dir.write('b.yaml', validatingWebhookYaml('b.static.k8s.io'));
    c.start();
    await eventually(() => expect(names(c)).toEqual(['a.static.k8s.io', 'b.static.k8s.io']));
    await eventually(async () => expect(await reloads('success')).toBe(2));
  });

  it('picks up a change through polling when nothing watches the directory', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = await started({ watch: false, pollIntervalMs: 30 });
    expect(c.watching()).toBe(false);
    dir.write('a.yaml', validatingWebhookYaml('renamed.static.k8s.io'));
    await eventually(() => expect(names(c)).toEqual(['renamed.static.k8s.io']));
  });

  it('keeps the previous snapshot on an invalid change, logs it and counts a failure; a fix then applies', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = await started();
    const good = c.snapshot();
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io').replace('sideEffects: None', 'sideEffects: Some'));
    await eventually(async () => expect(await reloads('failure')).toBeGreaterThanOrEqual(1));
    expect(c.snapshot()).toBe(good);
    expect(await configInfoHashes()).toEqual([good.hash]);
    const failure = logs.find((l) => l.level === 'error');
    expect(failure).toMatchObject({ msg: 'reloading admission manifest config', fields: { plugin: 'ValidatingAdmissionWebhook', dir: dir.path, keeping: good.hash } });
    expect(failure?.fields?.['errors']).toEqual([`${dir.file('a.yaml')}: ValidatingWebhookConfiguration/a.static.k8s.io: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`]);

    dir.write('a.yaml', validatingWebhookYaml('fixed.static.k8s.io'));
    await eventually(() => expect(names(c)).toEqual(['fixed.static.k8s.io']));
  });

  it('keeps the previous snapshot while the directory is gone, and reloads once it is back', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = await started({ pollIntervalMs: 30 });
    const good = c.snapshot();
    dir.cleanup();
    await eventually(async () => expect(await reloads('failure')).toBeGreaterThanOrEqual(1));
    expect(c.snapshot()).toBe(good);
    dir.write('b.yaml', validatingWebhookYaml('b.static.k8s.io'));
    await eventually(() => expect(names(c)).toEqual(['b.static.k8s.io']));
  });

  it('clears the configuration when every file is removed', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    dir.write('b.yaml', validatingWebhookYaml('b.static.k8s.io'));
    const c = await started();
    dir.remove('a.yaml');
    dir.remove('b.yaml');
    await eventually(() => expect(c.snapshot()).toMatchObject({ objects: [], hash: '' }));
    await eventually(async () => expect(await configInfoHashes()).toEqual(['']));
  });

  it('does nothing when the hash is unchanged', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = controller();
    await c.loadInitial();
    const before = c.snapshot();
    // a file the loader ignores, and the same content written again
    dir.write('notes.txt', 'hello');
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    expect(await c.checkForChanges()).toEqual({ status: 'unchanged' });
    expect(c.snapshot()).toBe(before);
    expect(await reloads('success')).toBe(1);
  });

  it('counts a failure for every check of a directory that stays invalid, as kube does', async () => {
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    const c = controller();
    await c.loadInitial();
    dir.write('a.yaml', 'kind: [');
    expect((await c.checkForChanges()).status).toBe('failed');
    expect((await c.checkForChanges()).status).toBe('failed');
    expect(await reloads('failure')).toBe(2);
  });

  it('turns a burst of file events into a final snapshot with all of them', async () => {
    const c = await started();
    for (let i = 0; i < 5; i++) dir.write(`${i}.yaml`, validatingWebhookYaml(`w${i}.static.k8s.io`));
    await eventually(() => expect(names(c)).toEqual(['w0.static.k8s.io', 'w1.static.k8s.io', 'w2.static.k8s.io', 'w3.static.k8s.io', 'w4.static.k8s.io']));
  });

  it('tells subscribers about each applied snapshot', async () => {
    const c = await started();
    const seen: string[] = [];
    c.subscribe((s) => seen.push(s.hash));
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    await eventually(() => expect(seen).toEqual([c.snapshot().hash]));
  });

  it('stops reloading once stopped', async () => {
    const c = await started({ pollIntervalMs: 20 });
    c.stop();
    dir.write('a.yaml', validatingWebhookYaml('a.static.k8s.io'));
    expect(await c.checkForChanges()).toEqual({ status: 'unchanged' });
    expect(names(c)).toEqual([]);
  });
});

describe('the controller environment', () => {
  it.each([
    ['250ms', 250],
    ['2s', 2000],
    ['1m', 60_000],
    ['1m30s', 90_000],
    ['1500', 1500],
    ['soon', undefined],
    ['', undefined],
  ])('KAH_MANIFEST_POLL_INTERVAL=%s → %s ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it('defaults to one minute and no delay', () => {
    const c = controller({ pollIntervalMs: undefined });
    expect([c.pollIntervalMs, c.loadDelayMs]).toEqual([60_000, 0]);
  });

  it('reads KAH_MANIFEST_POLL_INTERVAL and KAH_MANIFEST_LOAD_DELAY_MS; options win', () => {
    const env = { KAH_MANIFEST_POLL_INTERVAL: '100ms', KAH_MANIFEST_LOAD_DELAY_MS: '50' };
    expect(parseManifestControllerEnv(env)).toEqual({ pollIntervalMs: 100, loadDelayMs: 50, errors: [] });
    const c = controller({ env, pollIntervalMs: undefined });
    expect([c.pollIntervalMs, c.loadDelayMs]).toEqual([100, 50]);
    expect(controller({ env, pollIntervalMs: 7, loadDelayMs: 0 }).pollIntervalMs).toBe(7);
  });

  it('refuses values it cannot use instead of silently polling every minute', () => {
    expect(() => controller({ env: { KAH_MANIFEST_POLL_INTERVAL: 'soon' }, pollIntervalMs: undefined })).toThrow(
      'KAH_MANIFEST_POLL_INTERVAL=soon: must be a positive duration ("500ms", "2s", "1m") or a number of milliseconds',
    );
    expect(() => controller({ env: { KAH_MANIFEST_LOAD_DELAY_MS: '-1' } })).toThrow('KAH_MANIFEST_LOAD_DELAY_MS=-1: must be a number of milliseconds');
  });
});
