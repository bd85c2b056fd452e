// The printed table (Markdown, so that it pastes into the README as is) and the results.json document.
import type { CaseResult, Figure } from './figures.js';
import { formatValue, notYetImplemented } from './figures.js';
import type { MachineInfo } from './machine.js';

export interface BenchResults {
  schemaVersion: 1;
  command: string;
  startedAt: string;
  durationMs: number;
  quick: boolean;
  machine: MachineInfo;
  cases: CaseResult[];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function rowFor(caseName: string, f: Figure): string[] {
  const baselineMark = f.role === 'baseline' ? ' (baseline)' : '';
  const what = [f.variant, f.metric].filter(Boolean).join(': ') + baselineMark;
  if (f.pending !== undefined || !f.summary) {
    return [caseName, what, notYetImplemented, '', '', f.note ?? ''];
  }
  const vs = [f.ratio?.text, f.note].filter(Boolean).join('; ');
  const target = f.target ? `${f.target.text}: ${f.target.met ? 'met' : '**missed**'}${f.target.verdict.replace(/^(met|missed)/, '')}` : '';
  return [caseName, what, formatValue(f.summary.median, f.unit), formatValue(f.summary.p99, f.unit), vs, target];
}

export function renderTable(results: BenchResults): string {
  const header = ['case', 'figure', 'median', 'p99', 'vs baseline', 'target'];
  const rows: string[][] = [];
  for (const c of results.cases) {
    let first = true;
    for (const f of c.figures) {
      rows.push(rowFor(first ? c.name : '', f));
      first = false;
    }
    if (c.error) rows.push([first ? c.name : '', `**failed**: ${c.error.split('\n')[0]}`, '', '', '', '']);
  }
  const lines = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

export function renderMachine(m: MachineInfo): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGB} GB, ${m.os}, node ${m.node}, etcd ${m.etcd}; load average at start ${m.loadAverage.join(' ')}`;
}

export function renderReport(results: BenchResults): string {
  const out = [
    `kube-admission-harness benchmark (${results.quick ? 'quick' : 'full'} run, ${(results.durationMs / 1000).toFixed(0)} s): ${results.command}`,
    `machine: ${renderMachine(results.machine)}`,
    '',
    renderTable(results),
    '',
  ];
  for (const c of results.cases) for (const n of c.notes) out.push(`- ${c.name}: ${n}`);
  const load = results.cases
    .filter((c) => c.otherCores !== undefined && c.figures.some((f) => f.summary))
    .map((c) => `${c.name} ${c.otherCores!.toFixed(2)}`);
  if (load.length) out.push(`- other processes on the machine (cores kept busy on average while each case ran, of ${results.machine.cores}): ${load.join(', ')}`);
  const missed = results.cases.flatMap((c) => c.figures.filter((f) => f.target && !f.target.met).map((f) => `${c.name}: ${[f.variant, f.metric].filter(Boolean).join(': ')} — ${f.target!.verdict}`));
  if (missed.length) out.push('', 'targets missed:', ...missed.map((m) => `- ${m}`));
  const failed = results.cases.filter((c) => c.error);
  if (failed.length) out.push('', 'cases that failed:', ...failed.map((c) => `- ${c.name}: ${c.error}`));
  return out.join('\n') + '\n';
}
