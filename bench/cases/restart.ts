// kill -9 of a ready server on etcd, then the same command line again (same port, certificates and etcd data):
// the time from the kill to the first /readyz 200 of the new process, beside the node process floor.
import type { BenchContext } from '../context.js';
import { freePort } from '../../harness/ports.js';
import { processCpuMs } from '../cpu.js';
import { atMostTimes, measured } from '../figures.js';
import { BenchServer, nodeProcessStartMs, type BenchServerOptions } from '../server-process.js';
import { startFigure, type StartSample } from './startup.js';
import { summarize } from '../stats.js';
import type { BenchCase } from './case.js';

/** A cold start with what a restart finds: certificates in the cert dir, and the system namespaces in etcd. */
async function warmColdStart(opts: BenchServerOptions): Promise<StartSample> {
  const start = process.hrtime.bigint();
  const server = BenchServer.spawn(opts);
  try {
    const ms = await server.waitReady(start);
    return { ms, cpuMs: processCpuMs(server.pid) };
  } finally {
    await server.stop();
  }
}

interface RestartSamples {
  floor: number[];
  restart: StartSample[];
  coldStart: StartSample[];
}

async function restartRuns(ctx: BenchContext): Promise<RestartSamples> {
  const opts = await ctx.serverOptions('etcd3');
  // A second server on the same etcd data and certificates, started from scratch between restarts (the same
  // state a restart finds) so that a restart can be compared with a plain start on the same machine load.
  const coldOpts: BenchServerOptions = { ...opts, port: await freePort() };
  let server = BenchServer.spawn(opts);
  await server.waitReady(process.hrtime.bigint());
  const out: RestartSamples = { floor: [], restart: [], coldStart: [] };
  try {
    for (let i = 0; i < ctx.sizes.startRuns; i++) {
      ctx.log(`restart: run ${i + 1}/${ctx.sizes.startRuns}`);
      out.floor.push(await nodeProcessStartMs());
      const start = process.hrtime.bigint();
      await server.kill();
      server = BenchServer.spawn(opts);
      const ms = await server.waitReady(start);
      out.restart.push({ ms, cpuMs: processCpuMs(server.pid) });
      out.coldStart.push(await warmColdStart(coldOpts));
    }
  } finally {
    await server.stop();
  }
  return out;
}

export const restartCase: BenchCase = {
  name: 'restart',
  title: 'Restart after kill -9 to /readyz 200 (etcd storage)',
  async run(ctx, out) {
    const { floor, restart, coldStart } = await restartRuns(ctx);
    const floorMedian = summarize(floor).median;
    out.figures.push(measured('', "node -e '' (process start floor)", 'ms', 'baseline', floor));
    const fig = startFigure('etcd storage', 'kill -9 → /readyz 200', 'subject', restart, floorMedian);
    // issue #19: ≤ 3.5× `node -e ''`
    fig.target = atMostTimes(fig.summary!.median / floorMedian, 3.5, "node -e ''");
    out.figures.push(fig);
    out.figures.push(startFigure('etcd storage', 'start on the same data and certificates (no kill)', 'info', coldStart, floorMedian));
  },
};
