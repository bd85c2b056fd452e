// Resident set of the server process (VmRSS) once ready, and after it created N ConfigMaps, beside an idle node
// process. On memory storage the objects live in the process; on etcd they do not, and the growth is the
// server's own (caches, allocator high-water mark).
import { spawn } from 'node:child_process';
import { trackChild } from '../../harness/cleanup.js';
import { adminCredentials, type BenchContext } from '../context.js';
import { measured } from '../figures.js';
import { closedLoop, KeepAliveClient } from '../load.js';
import { rssMB } from '../server-process.js';
import { summarize } from '../stats.js';
import type { BenchCase } from './case.js';
import { configMapBody } from './create.js';

/** RSS of `node -e` that has started and waits: the floor of any node process. */
async function idleNodeRssMB(): Promise<number> {
  const child = spawn(process.execPath, ['-e', "process.stdout.write('up'); setInterval(() => {}, 60000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
  trackChild(child);
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`idle node exited with ${code}`)));
    });
    return rssMB(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

interface MemoryRun {
  afterStart: number;
  afterObjects: number;
}

async function memoryRun(ctx: BenchContext, storage: 'memory' | 'etcd3'): Promise<MemoryRun> {
  const server = await ctx.readyServer(storage);
  try {
    const afterStart = rssMB(server.pid);
    const client = new KeepAliveClient(server.url, await adminCredentials(server.opts.certDir), 16);
    try {
      const n = ctx.sizes.memoryObjects;
      // Bounded by a generous time limit: filling is not what is measured here.
      const res = await closedLoop(n, 16, 120_000, async (i) => {
        await client.expect(201, 'POST', '/api/v1/namespaces/default/configmaps', configMapBody(`mem-${i}`));
      });
      if (res.completed !== n) throw new Error(`created ${res.completed} of ${n} ConfigMaps (${res.errors} errors; first: ${res.firstError ?? 'none'})`);
    } finally {
      client.close();
    }
    return { afterStart, afterObjects: rssMB(server.pid) };
  } finally {
    await server.stop();
  }
}

export const memoryCase: BenchCase = {
  name: 'memory',
  title: 'Resident memory of the server process',
  async run(ctx, out) {
    const n = ctx.sizes.memoryObjects;
    const idle: number[] = [];
    const byStorage = new Map<'etcd3' | 'memory', MemoryRun[]>([
      ['etcd3', []],
      ['memory', []],
    ]);
    for (let r = 0; r < ctx.sizes.memoryRuns; r++) {
      idle.push(await idleNodeRssMB());
      for (const [storage, runs] of byStorage) {
        ctx.log(`memory: run ${r + 1}/${ctx.sizes.memoryRuns}, ${storage} storage, ${n} ConfigMaps`);
        runs.push(await memoryRun(ctx, storage));
      }
    }
    const idleMedian = summarize(idle).median;
    out.figures.push(measured('', 'idle node process (floor)', 'MB', 'baseline', idle));
    for (const [storage, runs] of byStorage) {
      const label = storage === 'etcd3' ? 'etcd storage' : 'memory storage';
      const start = runs.map((r) => r.afterStart);
      const after = runs.map((r) => r.afterObjects);
      const perObject = runs.map((r) => ((r.afterObjects - r.afterStart) * 1024) / n);
      const startMedian = summarize(start).median;
      out.figures.push(measured(label, 'RSS after start', 'MB', 'subject', start, { ratio: { value: startMedian / idleMedian, text: `${(startMedian / idleMedian).toFixed(1)}× idle node` } }));
      out.figures.push(measured(label, `RSS after ${n} ConfigMaps`, 'MB', 'subject', after));
      out.figures.push(measured(label, 'growth per ConfigMap', 'KB/object', 'info', perObject));
    }
    out.notes.push(`RSS is VmRSS from /proc/<pid>/status, read right after /readyz 200 and right after the last create returned (no forced GC).`);
  },
};
