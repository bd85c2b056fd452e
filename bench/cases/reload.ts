// Static manifest reload (KEP-5793): the atomic rename of a manifest to the first request that sees the new
// policy, over repeated reloads, via the file watcher and via polling. Each reload changes which ConfigMap label
// the one static policy denies; a tight loop of dry-run creates carrying the new label runs from the rename until
// one is denied, so a reload is measured to within one request round-trip (reported beside it).
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { adminCredentials, type BenchContext } from '../context.js';
import { atMost, formatValue, measured } from '../figures.js';
import { KeepAliveClient } from '../load.js';
import { median, msSince } from '../stats.js';
import { staticPolicyDocuments, writeAdmissionConfig } from '../static-manifests.js';
import type { BenchCase } from './case.js';

interface ReloadVariant {
  name: string;
  /** KAH_MANIFEST_POLL_INTERVAL for the server, and the same in ms */
  pollInterval: string;
  pollIntervalMs: number;
  /**
   * watched: a manifest renamed into the watched directory (one fs event).
   * swapped: staticManifestsDir is a symlink, replaced by rename to point at a new directory. The watch follows
   * the directory it resolved to, which does not change, so no fs event reports the swap and only the poll finds it.
   */
  layout: 'watched' | 'swapped';
  /** the target, when it has one */
  targetMs?: number;
  note: string;
}

export const reloadVariants: ReloadVariant[] = [
  {
    name: 'via the file watcher',
    pollInterval: '10m',
    pollIntervalMs: 600_000,
    layout: 'watched',
    targetMs: 100,
    note: 'manifest renamed into the watched dir; includes the 20 ms event debounce; polling every 10 min never fires',
  },
  {
    name: 'via polling (KAH_MANIFEST_POLL_INTERVAL=200ms)',
    pollInterval: '200ms',
    pollIntervalMs: 200,
    layout: 'swapped',
    note: 'the dir is a symlink swapped by rename (no fs event fires); renames spread evenly over the 200 ms poll period after a tick: median ≈ half the interval + one check, worst ≈ the interval + one check',
  },
];

const metric = 'rename → first request denied by the new policy';
const policyFile = 'deny-label.yaml';

function deniedLabel(i: number): string {
  return `bench.kah.dev/deny-${i}`;
}

/** Where the manifests live and how a new version is put in place atomically. */
interface ManifestLayout {
  /** staticManifestsDir */
  dir: string;
  /** writes version `i` where it is not yet visible */
  stage(i: number): Promise<void>;
  /** the atomic rename that makes the staged version the one in force */
  publish(): Promise<void>;
}

async function watchedLayout(root: string): Promise<ManifestLayout> {
  const dir = path.join(root, 'policies');
  // Staged outside the watched dir (same filesystem), so that only the rename is an event there.
  const staging = path.join(root, 'staging');
  await Promise.all([mkdir(dir), mkdir(staging)]);
  await writeFile(path.join(dir, policyFile), staticPolicyDocuments(0, deniedLabel(0)));
  return {
    dir,
    stage: (i) => writeFile(path.join(staging, policyFile), staticPolicyDocuments(0, deniedLabel(i))),
    publish: () => rename(path.join(staging, policyFile), path.join(dir, policyFile)),
  };
}

async function swappedLayout(root: string): Promise<ManifestLayout> {
  const link = path.join(root, 'current');
  const next = path.join(root, 'current.next');
  const writeGeneration = async (i: number): Promise<string> => {
    const gen = path.join(root, `gen-${i}`);
    await mkdir(gen);
    await writeFile(path.join(gen, policyFile), staticPolicyDocuments(0, deniedLabel(i)));
    return gen;
  };
  await symlink(await writeGeneration(0), link);
  return {
    dir: link,
    stage: async (i) => symlink(await writeGeneration(i), next),
    publish: () => rename(next, link),
  };
}

function probeBody(name: string, label: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { app: 'bench', [label]: 'x' } }, data: { k: 'v' } });
}

interface ReloadSamples {
  reloads: number[];
  /** every dry-run create's round-trip: the measurement's resolution */
  probes: number[];
}

async function reloadRuns(ctx: BenchContext, v: ReloadVariant): Promise<ReloadSamples> {
  const root = await ctx.tempDir('reload');
  const layout = v.layout === 'watched' ? await watchedLayout(root) : await swappedLayout(root);
  const flags = await writeAdmissionConfig(path.join(root, 'admission-config.yaml'), { ValidatingAdmissionPolicy: layout.dir });
  const server = await ctx.readyServer('memory', { extraFlags: flags, env: { KAH_MANIFEST_POLL_INTERVAL: v.pollInterval } });
  const client = new KeepAliveClient(server.url, await adminCredentials(server.opts.certDir), 1);
  const out: ReloadSamples = { reloads: [], probes: [] };
  let seq = 0;
  /** 201 (allowed, nothing stored) or 422 (denied by the policy naming `label`); anything else is an error. */
  const denied = async (label: string): Promise<boolean> => {
    const t = process.hrtime.bigint();
    const res = await client.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', probeBody(`reload-probe-${++seq}`, label));
    out.probes.push(msSince(t));
    if (res.status === 201) return false;
    if (res.status === 422 && res.body.includes(label)) return true;
    throw new Error(`dry-run create with label ${label}: ${res.status}: ${res.body.slice(0, 300)}`);
  };
  try {
    if (!(await denied(deniedLabel(0)))) throw new Error(`the static policy loaded at startup does not deny ${deniedLabel(0)}\n${server.tail()}`);
    out.probes.length = 0;
    const timeoutMs = 10_000 + 5 * Math.min(v.pollIntervalMs, 60_000);
    for (let i = 1; i <= ctx.sizes.reloads; i++) {
      ctx.log(`reload: ${v.name}, reload ${i}/${ctx.sizes.reloads}`);
      const label = deniedLabel(i);
      await layout.stage(i);
      // A change lands at an arbitrary moment of the poll period; renaming right after the previous detection
      // (itself right after a tick) would always measure a whole period. Phases spread evenly over the period
      // (rather than drawn at random) keep 20 samples from wandering: the median is half a period plus the check.
      if (v.layout === 'swapped') await delay(((i - 0.5) / ctx.sizes.reloads) * v.pollIntervalMs);
      const start = process.hrtime.bigint();
      await layout.publish();
      for (;;) {
        if (await denied(label)) break;
        if (msSince(start) > timeoutMs) throw new Error(`${v.name}: reload ${i} not seen after ${timeoutMs} ms\n${server.tail()}`);
      }
      out.reloads.push(msSince(start));
    }
  } finally {
    client.close();
    await server.stop();
  }
  return out;
}

export const reloadCase: BenchCase = {
  name: 'reload',
  title: 'Static manifest reload: rename → first request that sees it',
  async run(ctx, out) {
    for (const v of reloadVariants) {
      const { reloads, probes } = await reloadRuns(ctx, v);
      const fig = measured(v.name, metric, 'ms', 'subject', reloads, { note: v.note });
      if (v.targetMs !== undefined) fig.target = atMost(fig.summary!.median, v.targetMs, 'ms');
      out.figures.push(fig);
      out.figures.push(
        measured(v.name, 'dry-run create round-trip (the resolution)', 'ms', 'info', probes, { note: `${probes.length} probes over ${reloads.length} reloads` }),
      );
      ctx.log(`reload: ${v.name}: median ${formatValue(median(reloads), 'ms')}`);
    }
    out.notes.push(
      `Each reload writes a manifest changing which ConfigMap label the one static policy denies and renames it into place (memory storage); ` +
        `dry-run creates carrying the new label are sent back to back from the rename until one is denied. ` +
        `${ctx.sizes.reloads} reloads per variant; p99 is the worst reload.`,
    );
  },
};
