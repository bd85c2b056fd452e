// Cold start: spawn of `node dist/server/main.js` to the first /readyz 200, against the floor of any node
// process (`node -e ''` to exit), measured in alternation so both see the same machine load.
import { rm } from 'node:fs/promises';
import { startApiServer } from '../../harness/apiserver-process.js';
import { startEtcd } from '../../harness/etcd-process.js';
import type { BenchContext } from '../context.js';
import { atMost, atMostTimes, formatValue, measured, pendingFigure, type Figure, type TargetResult } from '../figures.js';
import { processCpuMs } from '../cpu.js';
import { BenchServer, nodeProcessStartMs, serverImportMs } from '../server-process.js';
import { msSince, summarize } from '../stats.js';
import { writeStaticAdmission } from '../static-manifests.js';
import type { BenchCase } from './case.js';

type StartupTarget =
  /** the start itself */
  | { kind: 'atMost'; ms: number }
  /** the start as a multiple of the process start floor (`node -e ''`) measured in the same run */
  | { kind: 'timesFloor'; times: number }
  /** what a variant adds over another one */
  | { kind: 'adds'; over: string; ms: number };

export interface StartupVariant {
  name: string;
  storage: 'memory' | 'etcd3';
  /** the certificates are generated before timing starts (as on a restart); default: a fresh --cert-dir */
  certsPresent?: boolean;
  /** Writes what the variant needs into dir and returns the extra server flags. */
  prepare?: (dir: string) => Promise<string[]>;
  target?: StartupTarget;
  /** a decomposition rather than a figure of its own (no target) */
  info?: boolean;
  /** the variant whose start this one adds to, for the note (implied by an "adds" target) */
  addsOver?: string;
  /** a diagnosis the --quick run leaves out */
  fullRunOnly?: boolean;
  /** set while the feature the variant measures has not landed */
  pending?: boolean;
}

/** One entry per variant: adding one is one entry (`pending` keeps it in the table until its feature lands). */
export const startupVariants: StartupVariant[] = [
  // issue #19: ≤ 3× and ≤ 4× `node -e ''`
  { name: 'memory storage', storage: 'memory', target: { kind: 'timesFloor', times: 3 } },
  { name: 'etcd storage (etcd already running)', storage: 'etcd3', target: { kind: 'timesFloor', times: 4 } },
  { name: 'memory storage, certificates already in --cert-dir', storage: 'memory', certsPresent: true },
  // KEP-5793 static manifests: 100 ValidatingAdmissionPolicies (+bindings) and 100 ValidatingWebhookConfigurations.
  {
    name: 'memory + 100 static policies + 100 static webhook configs',
    storage: 'memory',
    prepare: (dir) => writeStaticAdmission(dir, 100, 100),
    target: { kind: 'adds', over: 'memory storage', ms: 100 },
  },
  {
    name: 'etcd + 100 static policies + 100 static webhook configs',
    storage: 'etcd3',
    prepare: (dir) => writeStaticAdmission(dir, 100, 100),
    target: { kind: 'adds', over: 'etcd storage (etcd already running)', ms: 100 },
  },
  // The same 100 + 100 as JSON files: how much of what static manifests add is YAML parsing.
  {
    name: 'memory + the same 100 + 100 as JSON files',
    storage: 'memory',
    prepare: (dir) => writeStaticAdmission(dir, 100, 100, 'json'),
    info: true,
    addsOver: 'memory storage',
    fullRunOnly: true,
  },
];

const floorName = "node -e '' (process start floor)";

export interface StartSample {
  /** spawn → /readyz 200 */
  ms: number;
  /** CPU the server process used until then */
  cpuMs: number;
}

/** The wall and CPU figures of a variant, with the CPU median in the note. */
export function startFigure(variant: string, metric: string, role: Figure['role'], runs: StartSample[], floorMedian: number): Figure {
  const ms = runs.map((r) => r.ms);
  const m = summarize(ms).median;
  const cpu = summarize(runs.map((r) => r.cpuMs)).median;
  return measured(variant, metric, 'ms', role, ms, {
    ratio: { value: m / floorMedian, text: `${(m / floorMedian).toFixed(1)}× node -e ''` },
    cpuToReadyMs: cpu,
    note: `server CPU to ready ${formatValue(cpu, 'ms')}`,
  });
}

async function coldStart(ctx: BenchContext, v: StartupVariant): Promise<StartSample> {
  const opts = await ctx.serverOptions(v.storage);
  if (v.prepare) opts.extraFlags = await v.prepare(await ctx.tempDir('manifests'));
  if (v.certsPresent) {
    // A first run writes the certificates; the timed one finds them.
    const first = BenchServer.spawn(opts);
    await first.waitReady(process.hrtime.bigint());
    await first.stop();
    if (opts.etcdPrefix) opts.etcdPrefix = ctx.freshPrefix();
  }
  const start = process.hrtime.bigint();
  const server = BenchServer.spawn(opts);
  try {
    const ms = await server.waitReady(start);
    return { ms, cpuMs: processCpuMs(server.pid) };
  } finally {
    await server.stop();
    await rm(opts.certDir, { recursive: true, force: true });
  }
}

function targetFor(v: StartupVariant, median: number, medians: Map<string, number>, floorMedian: number): TargetResult | undefined {
  if (!v.target) return undefined;
  if (v.target.kind === 'atMost') return atMost(median, v.target.ms, 'ms');
  if (v.target.kind === 'timesFloor') return atMostTimes(median / floorMedian, v.target.times, "node -e ''");
  const base = medians.get(v.target.over);
  if (base === undefined) return undefined;
  return atMost(median - base, v.target.ms, 'ms', `adds ≤ ${v.target.ms} ms over "${v.target.over}"`);
}

export const startupCase: BenchCase = {
  name: 'startup',
  title: 'Cold start to /readyz 200',
  async run(ctx, out) {
    const selected = startupVariants.filter((v) => !(ctx.quick && v.fullRunOnly));
    const runnable = selected.filter((v) => !v.pending);
    if (runnable.some((v) => v.storage === 'etcd3')) await ctx.etcd();
    const floor: number[] = [];
    const imports: number[] = [];
    const samples = new Map<string, StartSample[]>(runnable.map((v) => [v.name, []]));
    for (let i = 0; i < ctx.sizes.startRuns; i++) {
      ctx.log(`startup: run ${i + 1}/${ctx.sizes.startRuns}`);
      floor.push(await nodeProcessStartMs());
      imports.push(await serverImportMs());
      for (const v of runnable) samples.get(v.name)!.push(await coldStart(ctx, v));
    }
    const floorMedian = summarize(floor).median;
    out.figures.push(measured('', floorName, 'ms', 'baseline', floor));
    const importMedian = summarize(imports).median;
    out.figures.push(
      measured('', "node + import of the server's modules, no start", 'ms', 'info', imports, {
        ratio: { value: importMedian / floorMedian, text: `${(importMedian / floorMedian).toFixed(1)}× node -e ''` },
      }),
    );
    const medians = new Map<string, number>();
    for (const v of runnable) medians.set(v.name, summarize(samples.get(v.name)!.map((r) => r.ms)).median);
    for (const v of selected) {
      if (v.pending) {
        out.figures.push(pendingFigure(v.name, 'cold start → /readyz 200', 'ms', v.target?.kind === 'adds' ? { note: `target: adds ≤ ${v.target.ms} ms` } : {}));
        continue;
      }
      const fig = startFigure(v.name, 'cold start → /readyz 200', v.certsPresent || v.info ? 'info' : 'subject', samples.get(v.name)!, floorMedian);
      const target = targetFor(v, medians.get(v.name)!, medians, floorMedian);
      if (target) fig.target = target;
      const over = v.addsOver ?? (v.target?.kind === 'adds' ? v.target.over : undefined);
      if (over !== undefined && samples.has(over)) {
        // The CPU delta moves much less with other load on the machine than the wall-clock one.
        const cpuOver = summarize(samples.get(over)!.map((r) => r.cpuMs)).median;
        fig.note = `${fig.note}; adds ${formatValue(medians.get(v.name)! - medians.get(over)!, 'ms')} wall, ${formatValue(fig.cpuToReadyMs! - cpuOver, 'ms')} server CPU over "${over}"`;
      }
      out.figures.push(fig);
    }

    // The harness as a user calls it: etcd on free ports and the server at once, then its readiness poll. A test
    // process's first server generates the certificates the later ones are given (harness/shared-certificates.ts):
    // that first start is made here, unmeasured, and a fresh-certificate start is measured beside the shared ones.
    const harness: number[] = [];
    const harnessEtcdRunning: number[] = [];
    const harnessMemory: number[] = [];
    const harnessMemoryFresh: number[] = [];
    const etcdAlone: number[] = [];
    const etcd = await ctx.etcd();
    await (await startApiServer({ storage: 'memory' })).cleanup();
    const timed = async (into: number[], start: () => Promise<{ cleanup(): Promise<void> }>): Promise<void> => {
      const t = process.hrtime.bigint();
      const started = await start();
      into.push(msSince(t));
      await started.cleanup();
    };
    for (let i = 0; i < ctx.sizes.harnessRuns; i++) {
      ctx.log(`startup: startApiServer() run ${i + 1}/${ctx.sizes.harnessRuns}`);
      await timed(etcdAlone, () => startEtcd());
      await timed(harness, () => startApiServer());
      await timed(harnessEtcdRunning, () => startApiServer({ etcdServers: etcd.endpoint, flags: [`--etcd-prefix=${ctx.freshPrefix()}`] }));
      await timed(harnessMemory, () => startApiServer({ storage: 'memory' }));
      await timed(harnessMemoryFresh, () => startApiServer({ storage: 'memory', certificates: 'fresh' }));
    }
    const ratioToFloor = (xs: number[]): { value: number; text: string } => {
      const v = summarize(xs).median / floorMedian;
      return { value: v, text: `${v.toFixed(1)}× node -e ''` };
    };
    out.figures.push(measured('harness', 'startApiServer() including etcd start', 'ms', 'subject', harness, { ratio: ratioToFloor(harness) }));
    out.figures.push(measured('harness', 'startApiServer({ etcdServers }) (etcd running)', 'ms', 'info', harnessEtcdRunning, { ratio: ratioToFloor(harnessEtcdRunning) }));
    out.figures.push(measured('harness', "startApiServer({ storage: 'memory' })", 'ms', 'info', harnessMemory, { ratio: ratioToFloor(harnessMemory) }));
    out.figures.push(measured('harness', "startApiServer({ storage: 'memory', certificates: 'fresh' })", 'ms', 'info', harnessMemoryFresh, { ratio: ratioToFloor(harnessMemoryFresh) }));
    out.figures.push(measured('harness', 'startEtcd() alone', 'ms', 'info', etcdAlone));
    out.notes.push(
      `Every cold start uses a fresh --cert-dir (certificates are generated, as a server given a new --cert-dir does) and, on etcd, a fresh --etcd-prefix; /readyz is polled every 3 ms from the moment the server logs "Serving securely" (probing from spawn took ≈ 35 ms of the 2 cores from the start itself). ` +
        `startApiServer() polls /readyz when the server logs "Serving securely" (before that, every 100 ms), then after 5, 10, 20, … ms, so its figures include a few ms of poll wait; ` +
        `its servers reuse the certificates the process's first server generated (that start is not measured), except with certificates: 'fresh'.`,
    );
  },
};
