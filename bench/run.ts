// `npm run bench` / `kah bench`: runs the cases, prints the table and writes bench/results.json.
// Targets are reported, never asserted: the exit code says whether every case ran, not whether targets were met.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { packageRoot } from '../harness/apiserver-process.js';
import { cleanupAll } from '../harness/cleanup.js';
import type { BenchCase, CaseOutput } from './cases/case.js';
import { celCase } from './cases/cel.js';
import { createCase } from './cases/create.js';
import { memoryCase } from './cases/memory.js';
import { reloadCase } from './cases/reload.js';
import { restartCase } from './cases/restart.js';
import { startupCase } from './cases/startup.js';
import { BenchContext, fullSizes, quickSizes } from './context.js';
import type { CaseResult } from './figures.js';
import { machineBusyMs, processCpuMs, selfAndReapedChildrenCpuMs } from './cpu.js';
import { machineInfo } from './machine.js';
import { renderReport, type BenchResults } from './report.js';
import { msSince } from './stats.js';

export const benchCases: BenchCase[] = [startupCase, restartCase, createCase, reloadCase, celCase, memoryCase];

export const benchUsage =
  'kah bench [--quick] [--case NAME]… [--out FILE] [--cpu-prof-dir DIR]\n' +
  `  cases: ${benchCases.map((c) => c.name).join(', ')} (default: all)\n` +
  '  --quick         a smaller run (under a minute) for CI smoke\n' +
  '  --out FILE      where to write the results (default bench/results.json in the package)\n' +
  '  --cpu-prof-dir  run every apiserver with node --cpu-prof, profiles written to DIR';

export interface BenchIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function runBench(args: string[], io: BenchIO = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean' },
        case: { type: 'string', multiple: true },
        out: { type: 'string' },
        'cpu-prof-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    io.stderr.write(`kah bench: ${(err as Error).message}\nusage: ${benchUsage}\n`);
    return 1;
  }
  if (values.help) {
    io.stdout.write(`usage: ${benchUsage}\n`);
    return 0;
  }
  const names = (values.case ?? []).flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean);
  const unknown = names.filter((n) => !benchCases.some((c) => c.name === n));
  if (unknown.length) {
    io.stderr.write(`kah bench: unknown case ${unknown.map((n) => JSON.stringify(n)).join(', ')}; cases: ${benchCases.map((c) => c.name).join(', ')}\n`);
    return 1;
  }
  const selected = names.length ? benchCases.filter((c) => names.includes(c.name)) : benchCases;
  const quick = values.quick ?? false;
  const profileDir = values['cpu-prof-dir'] === undefined ? undefined : path.resolve(values['cpu-prof-dir']);
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const outFile = path.resolve(values.out ?? path.join(packageRoot(), 'bench', 'results.json'));

  const ctx = new BenchContext(quick, quick ? quickSizes : fullSizes, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], (l) => io.stderr.write(`bench: ${l}\n`));
  const startedAt = new Date();
  const start = process.hrtime.bigint();
  const machine = machineInfo();
  const cases: CaseResult[] = [];
  try {
    for (const c of selected) {
      const caseStart = process.hrtime.bigint();
      const before = { machine: machineBusyMs(), ours: ourCpuMs(ctx) };
      const output: CaseOutput = { figures: [], notes: [] };
      let error: string | undefined;
      try {
        await c.run(ctx, output);
      } catch (err) {
        error = (err as Error).stack ?? String(err);
        io.stderr.write(`bench: case ${c.name} failed: ${error}\n`);
      }
      const durationMs = msSince(caseStart);
      const otherCores = Math.max(0, (machineBusyMs() - before.machine - (ourCpuMs(ctx) - before.ours)) / durationMs);
      cases.push({ name: c.name, title: c.title, figures: output.figures, notes: output.notes, otherCores, ...(error ? { error } : {}), durationMs });
    }
  } finally {
    await ctx.cleanup();
    await cleanupAll();
  }
  const results: BenchResults = {
    schemaVersion: 1,
    command: ['kah bench', ...args].join(' '),
    startedAt: startedAt.toISOString(),
    durationMs: msSince(start),
    quick,
    machine,
    cases,
  };
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, JSON.stringify(results, null, 2) + '\n');
  io.stdout.write(renderReport(results));
  io.stderr.write(`bench: results written to ${outFile}${profileDir ? `; CPU profiles in ${profileDir}` : ''}\n`);
  return cases.some((c) => c.error) ? 1 : 0;
}

/** CPU of this process, its reaped children and the shared etcd (still running): everything the benchmark caused. */
function ourCpuMs(ctx: BenchContext): number {
  const etcd = ctx.etcdPid;
  let etcdMs = 0;
  try {
    if (etcd !== undefined) etcdMs = processCpuMs(etcd);
  } catch {
    // exited between the check and the read: its time is in cutime once reaped
  }
  return selfAndReapedChildrenCpuMs() + etcdMs;
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  const code = await runBench(process.argv.slice(2));
  // Keep-alive sockets and the etcd client's channels are closed, but do not let a straggler hold the exit.
  process.exit(code);
}
