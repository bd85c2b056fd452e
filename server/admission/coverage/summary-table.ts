// The plain-text summary printed at the end of a run (harness, `kah serve`, scenario runner): one row per
// configuration, then the rule cells no request reached. Plain ASCII so it reads the same in CI logs.
import type { AdmissionCoverageReport, ConfigurationCoverage, RuleCell } from './report-schema.js';

const kindAbbrev: Record<ConfigurationCoverage['kind'], string> = {
  ValidatingWebhook: 'VWH',
  MutatingWebhook: 'MWH',
  ValidatingAdmissionPolicy: 'VAP',
  MutatingAdmissionPolicy: 'MAP',
};

export function configurationLabel(c: Pick<ConfigurationCoverage, 'kind' | 'configuration' | 'name'>): string {
  return c.kind.endsWith('Webhook') ? `${c.configuration}/${c.name}` : c.name;
}

export function ruleCellLabel(cell: RuleCell): string {
  const group = cell.apiGroup === '' ? 'core' : cell.apiGroup;
  return `${cell.operation} ${group}/${cell.resource}`;
}

function table(rows: string[][], rightAligned: ReadonlySet<number>): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** How many untested cells are listed per configuration before "… and N more". */
const untestedListed = 8;

export function formatCoverageSummary(report: AdmissionCoverageReport): string {
  const t = report.totals;
  const lines = [`Admission coverage (${report.schemaVersion}, ${report.runs} run${report.runs === 1 ? '' : 's'}): ${t.configurations} configurations, ${t.calls} calls, ${t.ruleCells - t.untestedRuleCells}/${t.ruleCells} rule cells hit`];
  if (report.configurations.length === 0) return `${lines[0]}\n  no webhooks or policies were configured\n`;
  const header = ['KIND', 'CONFIGURATION', 'SOURCE', 'CALLS', 'ALLOWED', 'DENIED', 'PATCHED', 'WARNED', 'ERRORED', 'SKIPPED', 'RULES HIT'];
  const rows = report.configurations.map((c) => {
    const d = c.decisions;
    const hit = c.rules.filter((r) => r.hits > 0).length;
    return [
      kindAbbrev[c.kind],
      `${configurationLabel(c)}${c.present ? '' : ' (removed)'}`,
      c.source,
      String(c.calls),
      String(d.allowed),
      String(d.denied),
      String(d.patched),
      String(d.warned + d.audited),
      String(d.errored),
      String(d.skippedByMatchConditions),
      c.rules.length === 0 ? '-' : `${hit}/${c.rules.length}`,
    ];
  });
  lines.push(...table([header, ...rows], new Set([3, 4, 5, 6, 7, 8, 9, 10])).map((l) => `  ${l}`));
  const untested = report.configurations.filter((c) => c.rules.some((r) => r.hits === 0));
  if (untested.length > 0) {
    lines.push('Untested rules (no request matched):');
    for (const c of untested) {
      const cells = c.rules.filter((r) => r.hits === 0);
      const shown = cells.slice(0, untestedListed).map(ruleCellLabel).join(', ');
      lines.push(`  ${kindAbbrev[c.kind]} ${configurationLabel(c)}: ${shown}${cells.length > untestedListed ? `, … and ${cells.length - untestedListed} more` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
