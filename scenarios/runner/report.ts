// What a run prints: a line per step, a line per scenario, the failures again at the end and the closing line
// `N passed, N failed` that CI systems read; and the JUnit XML (one testcase per scenario).
import { formatMs } from './duration.js';
import { formatFailure, type ScenarioResult, type StepResult } from './run-scenario.js';
import type { AdmissionCoverageReport } from '../../server/admission/coverage/report-schema.js';

/** `  ✓ step 2 apply ConfigMap/default/x (120 ms)`, with the reason under a failed step. Pure. */
export function formatStepLine(r: StepResult): string {
  const head = r.number === 0 ? r.label : `step ${r.number} ${r.label}`;
  const line = `  ${r.ok ? '✓' : '✗'} ${head} (${formatMs(r.durationMs)})`;
  return r.ok || r.message === undefined ? line : `${line}\n${indent(r.message, 6)}`;
}

export function formatScenarioHeader(name: string, file: string | undefined): string {
  return `▶ ${name}${file ? ` (${file})` : ''}`;
}

/** `✓ name (1.2 s)`, or `✗ name (1.2 s)` with the failing step and the last log lines. Pure. */
export function formatScenarioLine(r: ScenarioResult): string {
  const line = `${r.passed ? '✓' : '✗'} ${r.name} (${formatMs(r.durationMs)})`;
  const kept = r.keptDir ? `\n  temp dir kept: ${r.keptDir}` : '';
  if (r.passed || !r.failure) return line + kept;
  const logs = r.failure.logs.trim() === '' ? '' : `\n${indent(`last log lines:\n${r.failure.logs}`, 4)}`;
  return `${line}\n${indent(formatFailure(r.failure), 4)}${logs}${kept}`;
}

export interface RunSummary {
  results: ScenarioResult[];
  /** Scenarios not run because of --bail. */
  skipped: { name: string; file?: string }[];
  durationMs: number;
  /** With admission coverage on: every scenario's apiservers merged. */
  coverage?: AdmissionCoverageReport;
}

export function formatSummary(s: RunSummary): string {
  const failed = s.results.filter((r) => !r.passed);
  const lines: string[] = [''];
  if (failed.length > 0) {
    lines.push('Failed scenarios:');
    for (const r of failed) lines.push(`  ✗ ${r.name}${r.file ? ` (${r.file})` : ''}: ${r.failure ? formatFailure(r.failure).split('\n')[0] : 'failed'}`);
    lines.push('');
  }
  const skipped = s.skipped.length > 0 ? `, ${s.skipped.length} skipped` : '';
  lines.push(`${s.results.length - failed.length} passed, ${failed.length} failed${skipped}`);
  return lines.join('\n');
}

function indent(text: string, n: number): string {
  const pad = ' '.repeat(n);
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** XML 1.0 text: escape markup and drop the control characters XML cannot hold (ANSI colour codes from logs). */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** An XML attribute value (in double quotes); newlines kept as character references. */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** JUnit XML as Jenkins, GitLab and GitHub reporters read it. Pure. */
export function junitXml(s: RunSummary): string {
  const failures = s.results.filter((r) => !r.passed).length;
  const tests = s.results.length + s.skipped.length;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${tests}" failures="${failures}" skipped="${s.skipped.length}" time="${seconds(s.durationMs)}">`,
    `  <testsuite name="kah scenarios" tests="${tests}" failures="${failures}" errors="0" skipped="${s.skipped.length}" time="${seconds(s.durationMs)}">`,
  ];
  for (const r of s.results) {
    const head = `    <testcase name="${xmlAttr(r.name)}" classname="${xmlAttr(r.file ?? 'scenario')}" time="${seconds(r.durationMs)}"`;
    if (r.passed || !r.failure) {
      out.push(`${head}/>`);
      continue;
    }
    const summary = formatFailure(r.failure);
    const steps = r.steps.map((st) => `${st.ok ? '✓' : '✗'} ${st.number === 0 ? st.label : `step ${st.number} ${st.label}`} (${formatMs(st.durationMs)})`).join('\n');
    const body = `${summary}\n\nsteps:\n${steps}${r.failure.logs ? `\n\nlast log lines:\n${r.failure.logs}` : ''}`;
    out.push(`${head}>`);
    out.push(`      <failure message="${xmlAttr(summary.split('\n')[0]!)}" type="ScenarioStepFailed">${xmlText(body)}</failure>`);
    out.push('    </testcase>');
  }
  for (const sk of s.skipped) {
    out.push(`    <testcase name="${xmlAttr(sk.name)}" classname="${xmlAttr(sk.file ?? 'scenario')}" time="0"><skipped message="not run: --bail after a failure"/></testcase>`);
  }
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}
