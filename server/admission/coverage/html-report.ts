// `kah report`: the coverage report as one self-contained HTML page (inline CSS, no script, no external asset):
// totals, an index of configurations, and per configuration its decisions, a matrix of its rule cells
// (resource rows × operation columns; an untested cell is marked `class="cell untested"` with
// `data-untested="true"`), the requests it matched, its denial and error messages and its bindings.
import type { AdmissionCoverageReport, ConfigurationCoverage, CoverageDecision, RuleCell } from './report-schema.js';
import { configurationLabel } from './summary-table.js';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const operations = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

const kindLabels: Record<ConfigurationCoverage['kind'], { short: string; long: string }> = {
  ValidatingWebhook: { short: 'VWH', long: 'Validating webhook' },
  MutatingWebhook: { short: 'MWH', long: 'Mutating webhook' },
  ValidatingAdmissionPolicy: { short: 'VAP', long: 'ValidatingAdmissionPolicy' },
  MutatingAdmissionPolicy: { short: 'MAP', long: 'MutatingAdmissionPolicy' },
};

const decisionLabels: Record<CoverageDecision, string> = {
  allowed: 'allowed',
  denied: 'denied',
  patched: 'patched',
  warned: 'warned',
  audited: 'audited',
  errored: 'errored',
  skippedByMatchConditions: 'skipped by matchConditions',
};

const css = `
:root { --ink:#1f2933; --muted:#616e7c; --line:#e4e7eb; --bg:#f5f7fa; --card:#fff; --accent:#3b5bdb;
  --hit:#2b8a3e; --hit-bg:#d3f9d8; --miss:#c92a2a; --miss-bg:#ffe3e3; --na:#f1f3f5; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--ink); background:var(--bg); }
header.page { background:#1f2933; color:#fff; padding:22px 32px 18px; }
header.page h1 { margin:0 0 4px; font-size:22px; font-weight:600; letter-spacing:.2px; }
header.page .meta { color:#cbd2d9; font-size:12.5px; }
main { padding:20px 32px 40px; max-width:1240px; }
.totals { display:flex; gap:14px; flex-wrap:wrap; margin-bottom:22px; }
.total { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 16px; min-width:150px; }
.total .value { font-size:22px; font-weight:600; }
.total .label { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.4px; }
.total.warn .value { color:var(--miss); }
.bar { height:6px; background:var(--miss-bg); border-radius:3px; margin-top:6px; overflow:hidden; }
.bar > span { display:block; height:100%; background:var(--hit); }
h2 { font-size:15px; margin:26px 0 10px; color:var(--muted); text-transform:uppercase; letter-spacing:.5px; }
table { border-collapse:collapse; }
.index { width:100%; background:var(--card); border:1px solid var(--line); border-radius:8px; overflow:hidden; }
.index th, .index td { padding:7px 12px; border-bottom:1px solid var(--line); text-align:left; }
.index th { background:#fafbfc; font-size:12px; color:var(--muted); font-weight:600; }
.index td.num, .index th.num { text-align:right; font-variant-numeric:tabular-nums; }
.index tr.has-untested td.rules { color:var(--miss); font-weight:600; }
a { color:var(--accent); text-decoration:none; }
section.config { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:16px 0; padding:16px 20px; }
section.config.has-untested { border-left:4px solid var(--miss); }
section.config.fully-covered { border-left:4px solid var(--hit); }
.config-head { display:flex; align-items:center; gap:10px; flex-wrap:wrap; }
.config-head h3 { margin:0; font-size:16px; font-weight:600; }
.badge { display:inline-block; font-size:11px; font-weight:600; padding:2px 7px; border-radius:10px; background:#e7ecff; color:var(--accent); }
.badge.kind-MutatingWebhook, .badge.kind-MutatingAdmissionPolicy { background:#fff0db; color:#b35c00; }
.badge.source { background:#f1f3f5; color:var(--muted); }
.badge.removed { background:var(--miss-bg); color:var(--miss); }
.decisions { display:flex; gap:8px; flex-wrap:wrap; margin:12px 0 4px; }
.chip { font-size:12.5px; padding:3px 10px; border-radius:12px; background:#f1f3f5; color:var(--muted); }
.chip b { color:var(--ink); margin-left:4px; }
.chip.zero { opacity:.55; }
.chip.d-allowed b, .chip.d-patched b { color:var(--hit); }
.chip.d-denied b, .chip.d-errored b { color:var(--miss); }
.subhead { font-size:12px; font-weight:600; color:var(--muted); text-transform:uppercase; letter-spacing:.4px; margin:16px 0 6px; }
table.rule-matrix th, table.rule-matrix td { border:1px solid var(--line); padding:6px 10px; }
table.rule-matrix thead th { background:#fafbfc; font-size:12px; color:var(--muted); }
table.rule-matrix th.resource { text-align:left; font-weight:500; }
table.rule-matrix th.resource .detail { display:block; color:var(--muted); font-size:11.5px; font-weight:400; }
td.cell { text-align:center; min-width:84px; font-variant-numeric:tabular-nums; }
td.cell.hit { background:var(--hit-bg); color:var(--hit); font-weight:600; }
td.cell.untested { background:var(--miss-bg); color:var(--miss); font-weight:600; }
td.cell.untested::after { content:" untested"; font-weight:500; font-size:11px; }
td.cell.na { background:var(--na); color:#adb5bd; }
.legend { font-size:12px; color:var(--muted); margin-top:6px; }
.legend span { display:inline-block; width:10px; height:10px; border-radius:2px; margin:0 4px 0 12px; vertical-align:-1px; }
table.list { width:100%; }
table.list td, table.list th { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
table.list th { font-size:12px; color:var(--muted); font-weight:600; }
table.list td.num { text-align:right; width:70px; font-variant-numeric:tabular-nums; }
code { font-family:SFMono-Regular, Menlo, Consolas, monospace; font-size:12.5px; }
.outcome-failedOpen { color:#b35c00; font-weight:600; }
.outcome-failedClosed { color:var(--miss); font-weight:600; }
.empty { color:var(--muted); font-style:italic; }
`;

function ruleRows(rules: readonly RuleCell[]): Array<{ key: string; head: RuleCell; byOp: Map<string, RuleCell> }> {
  const rows = new Map<string, { key: string; head: RuleCell; byOp: Map<string, RuleCell> }>();
  for (const cell of rules) {
    const key = `${cell.ruleSet}\u0000${cell.rule}\u0000${cell.apiGroup}\u0000${cell.resource}`;
    let row = rows.get(key);
    if (!row) {
      row = { key, head: cell, byOp: new Map() };
      rows.set(key, row);
    }
    row.byOp.set(cell.operation, cell);
  }
  return [...rows.values()];
}

function ruleMatrix(c: ConfigurationCoverage): string {
  if (c.rules.length === 0) return `<p class="empty">${c.present ? 'No rules (a policy without resourceRules matches nothing).' : 'Configuration removed: its rules are not known.'}</p>`;
  const rows = ruleRows(c.rules)
    .map(({ head, byOp }) => {
      const group = head.apiGroup === '' ? 'core' : head.apiGroup;
      const detail = `${escapeHtml(head.ruleSet)}[${head.rule}] · versions ${escapeHtml(head.apiVersions.join(', ') || '—')} · scope ${escapeHtml(head.scope)}`;
      const cells = operations
        .map((op) => {
          const cell = byOp.get(op);
          if (!cell) return '<td class="cell na" title="not in this rule">–</td>';
          const title = `${op} ${group}/${head.resource}: ${cell.hits} matched request${cell.hits === 1 ? '' : 's'}`;
          if (cell.hits === 0) return `<td class="cell untested" data-untested="true" data-operation="${op}" data-resource="${escapeHtml(head.resource)}" title="${escapeHtml(title)}">0</td>`;
          return `<td class="cell hit" data-operation="${op}" data-resource="${escapeHtml(head.resource)}" data-hits="${cell.hits}" title="${escapeHtml(title)}">${cell.hits}</td>`;
        })
        .join('');
      return `<tr><th class="resource"><code>${escapeHtml(group)}/${escapeHtml(head.resource)}</code><span class="detail">${detail}</span></th>${cells}</tr>`;
    })
    .join('\n');
  return `<table class="rule-matrix"><thead><tr><th class="resource">Rule cell (group/resource)</th>${operations.map((o) => `<th>${o}</th>`).join('')}</tr></thead>
<tbody>${rows}</tbody></table>
<div class="legend"><span style="background:var(--hit-bg)"></span>matched (request count)<span style="background:var(--miss-bg)"></span>untested<span style="background:var(--na)"></span>operation not in the rule</div>`;
}

function requestList(c: ConfigurationCoverage): string {
  if (c.requests.length === 0) return '<p class="empty">No request matched this configuration.</p>';
  const rows = [...c.requests]
    .sort((a, b) => b.count - a.count)
    .map((r) => {
      const gvr = `${r.group === '' ? 'core' : r.group}/${r.version}/${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
      return `<tr><td><code>${escapeHtml(r.operation)}</code></td><td><code>${escapeHtml(gvr)}</code></td><td>${r.namespaced ? 'namespaced' : 'cluster'}</td><td class="num">${r.count}</td></tr>`;
    })
    .join('');
  return `<table class="list requests"><thead><tr><th>Operation</th><th>Group/version/resource</th><th>Scope</th><th class="num">Count</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function messages(c: ConfigurationCoverage): string {
  let out = '';
  if (c.denials.length > 0) {
    out += `<div class="subhead">Denial, warning and audit messages</div><table class="list denials"><tbody>${c.denials
      .map((m) => `<tr><td>${escapeHtml(m.message)}</td><td class="num">${m.count}</td></tr>`)
      .join('')}</tbody></table>`;
  }
  if (c.errors.length > 0) {
    out += `<div class="subhead">Errors</div><table class="list errors"><thead><tr><th>Message</th><th>failurePolicy</th><th>Outcome</th><th class="num">Count</th></tr></thead><tbody>${c.errors
      .map(
        (e) =>
          `<tr><td>${escapeHtml(e.message)}</td><td>${e.failurePolicy}</td><td class="outcome-${e.outcome}">${e.outcome === 'failedOpen' ? 'failed open (request went on)' : 'failed closed (request refused)'}</td><td class="num">${e.count}</td></tr>`,
      )
      .join('')}</tbody></table>`;
  }
  return out;
}

function bindings(c: ConfigurationCoverage): string {
  if (!c.bindings) return '';
  if (c.bindings.length === 0) return '<div class="subhead">Bindings</div><p class="empty">No binding: the policy is never evaluated.</p>';
  const rows = c.bindings
    .map((b) => {
      const d = b.decisions;
      return `<tr><td><code>${escapeHtml(b.name)}</code></td><td class="num">${b.calls}</td><td class="num">${d.allowed}</td><td class="num">${d.denied}</td><td class="num">${d.patched}</td><td class="num">${d.warned + d.audited}</td><td class="num">${d.errored}</td><td class="num">${d.skippedByMatchConditions}</td></tr>`;
    })
    .join('');
  return `<div class="subhead">Bindings</div><table class="list bindings"><thead><tr><th>Binding</th><th class="num">Evaluations</th><th class="num">Allowed</th><th class="num">Denied</th><th class="num">Patched</th><th class="num">Warned/audited</th><th class="num">Errored</th><th class="num">Skipped</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const anchorOf = (c: ConfigurationCoverage): string => `c-${c.id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;

function configurationSection(c: ConfigurationCoverage): string {
  const untested = c.rules.filter((r) => r.hits === 0).length;
  const state = untested > 0 ? 'has-untested' : c.rules.length > 0 ? 'fully-covered' : '';
  const chips = (Object.keys(decisionLabels) as CoverageDecision[])
    .map((k) => `<span class="chip d-${k}${c.decisions[k] === 0 ? ' zero' : ''}" data-decision="${k}" data-count="${c.decisions[k]}">${decisionLabels[k]}<b>${c.decisions[k]}</b></span>`)
    .join('');
  return `<section class="config ${state}" id="${anchorOf(c)}" data-config-id="${escapeHtml(c.id)}" data-untested-cells="${untested}">
<div class="config-head"><span class="badge kind-${c.kind}" title="${kindLabels[c.kind].long}">${kindLabels[c.kind].short}</span><h3>${escapeHtml(configurationLabel(c))}</h3>
<span class="badge source">${c.source === 'static' ? 'static manifest' : 'REST API'}</span><span class="badge source">failurePolicy ${c.failurePolicy}</span>${c.present ? '' : '<span class="badge removed">removed</span>'}
<span class="badge source">${c.calls} call${c.calls === 1 ? '' : 's'}</span></div>
<div class="decisions">${chips}</div>
<div class="subhead">Rules × operations</div>
${ruleMatrix(c)}
<div class="subhead">Matched requests</div>
${requestList(c)}
${messages(c)}
${bindings(c)}
</section>`;
}

export function renderCoverageHtml(report: AdmissionCoverageReport): string {
  const t = report.totals;
  const hit = t.ruleCells - t.untestedRuleCells;
  const pct = t.ruleCells === 0 ? 100 : Math.round((hit / t.ruleCells) * 100);
  const index = report.configurations
    .map((c) => {
      const untested = c.rules.filter((r) => r.hits === 0).length;
      return `<tr class="${untested > 0 ? 'has-untested' : ''}"><td><span class="badge kind-${c.kind}">${kindLabels[c.kind].short}</span></td><td><a href="#${anchorOf(c)}">${escapeHtml(configurationLabel(c))}</a></td><td>${c.source}</td><td class="num">${c.calls}</td><td class="num rules">${c.rules.length === 0 ? '–' : `${c.rules.length - untested}/${c.rules.length}`}</td></tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Admission coverage</title>
<style>${css}</style></head>
<body>
<header class="page"><h1>Admission coverage</h1><div class="meta">${escapeHtml(report.schemaVersion)} · generated ${escapeHtml(report.generatedAt)} · ${report.runs} apiserver run${report.runs === 1 ? '' : 's'}</div></header>
<main>
<div class="totals">
<div class="total" data-total="configurations"><div class="value">${t.configurations}</div><div class="label">Configurations</div></div>
<div class="total" data-total="calls"><div class="value">${t.calls}</div><div class="label">Calls &amp; evaluations</div></div>
<div class="total" data-total="rule-cells"><div class="value">${hit}/${t.ruleCells}</div><div class="label">Rule cells hit (${pct}%)</div><div class="bar"><span style="width:${pct}%"></span></div></div>
<div class="total${t.untestedRuleCells > 0 ? ' warn' : ''}" data-total="untested"><div class="value">${t.untestedRuleCells}</div><div class="label">Untested rule cells</div></div>
<div class="total${t.unexercisedConfigurations > 0 ? ' warn' : ''}" data-total="unexercised"><div class="value">${t.unexercisedConfigurations}</div><div class="label">Never matched</div></div>
</div>
<h2>Configurations</h2>
${report.configurations.length === 0 ? '<p class="empty">No webhook or policy was configured.</p>' : `<table class="index"><thead><tr><th>Kind</th><th>Name</th><th>Source</th><th class="num">Calls</th><th class="num">Rule cells hit</th></tr></thead><tbody>\n${index}\n</tbody></table>`}
${report.configurations.map(configurationSection).join('\n')}
</main></body></html>
`;
}
