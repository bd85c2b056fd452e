// `node dist/bench/profile-summary.js FILE.cpuprofile [--top N] [--from MS] [--to MS]`: where a `node --cpu-prof`
// profile spent its time: self time by package (node_modules/<pkg>, this project's directories, node internals),
// then the functions with the most self and inclusive time. Used to say what bounds a missed target.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Bucket {
  name: string;
  ms: number;
}

export interface ProfileSummary {
  totalMs: number;
  byPackage: Bucket[];
  /** node internals and natives charged to the nearest package frame above them: who caused the work */
  byCallerPackage: Bucket[];
  selfByFunction: Bucket[];
  inclusiveByFunction: Bucket[];
}

/** node_modules/<pkg> (scoped too), the project directory (server/…, bench/…), node:… internals, or the V8 pseudo-frames. Pure. */
export function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:internal/')) return `node:internal/${url.slice('node:internal/'.length).split('/')[0]!.replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const dist = /\/dist\/([^/]+)\/(?:([^/]+)\/)?/.exec(url);
  if (dist) return dist[2] && !dist[2].endsWith('.js') ? `${dist[1]}/${dist[2]}` : dist[1]!;
  return url;
}

/** node's own modules and the native pseudo-frames, but not GC, idle and program time, which have no caller. */
function isInternal(pkg: string): boolean {
  return pkg.startsWith('node:') || pkg === '(native)';
}

function frameName(f: CallFrame): string {
  const file = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '');
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
}

function top(map: Map<string, number>, n: number): Bucket[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: us / 1000 }));
}

/** Pure: aggregates a profile's samples within [fromMs, toMs) of its start. */
export function summarizeProfile(p: CpuProfile, opts: { top?: number; fromMs?: number; toMs?: number } = {}): ProfileSummary {
  const n = opts.top ?? 15;
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of p.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const byPackage = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let t = 0;
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (opts.fromMs !== undefined && t / 1000 < opts.fromMs) continue;
    if (opts.toMs !== undefined && t / 1000 >= opts.toMs) break;
    const node = byId.get(p.samples[i]!);
    if (!node) continue;
    total += dt;
    const f = node.callFrame;
    const pkg = packageOf(f.url, f.functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
    let caller = pkg;
    if (isInternal(pkg)) {
      for (let id = parent.get(node.id); id !== undefined; id = parent.get(id)) {
        const cf = byId.get(id)!.callFrame;
        const cp = packageOf(cf.url, cf.functionName);
        if (!isInternal(cp) && cp !== '(root)') {
          caller = cp;
          break;
        }
      }
    }
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + dt);
    self.set(frameName(f), (self.get(frameName(f)) ?? 0) + dt);
    // Inclusive: each distinct function on the stack once per sample (recursion is not counted twice).
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const name = frameName(byId.get(id)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  }
  return { totalMs: total / 1000, byPackage: top(byPackage, n), byCallerPackage: top(byCaller, n), selfByFunction: top(self, n), inclusiveByFunction: top(inclusive, n) };
}

export function renderProfileSummary(s: ProfileSummary): string {
  const pct = (ms: number): string => `${((ms / s.totalMs) * 100).toFixed(1).padStart(5)}%`;
  const section = (title: string, buckets: Bucket[]): string[] => [title, ...buckets.map((b) => `  ${b.ms.toFixed(1).padStart(9)} ms ${pct(b.ms)}  ${b.name}`)];
  return [
    `profiled: ${s.totalMs.toFixed(1)} ms`,
    ...section('self time by package:', s.byPackage),
    ...section('self time by package, node internals charged to their caller:', s.byCallerPackage),
    ...section('self time by function:', s.selfByFunction),
    ...section('inclusive time by function:', s.inclusiveByFunction),
  ].join('\n');
}

const invoked = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'));
if (invoked) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } } });
  for (const file of positionals) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const s = summarizeProfile(profile, {
      top: values.top ? Number(values.top) : 15,
      ...(values.from ? { fromMs: Number(values.from) } : {}),
      ...(values.to ? { toMs: Number(values.to) } : {}),
    });
    process.stdout.write(`${file}\n${renderProfileSummary(s)}\n\n`);
  }
}
