// `kah scenario run --admission-coverage FILE`: every scenario's apiservers record coverage; the runner merges
// them into one report, writes it and prints the summary table after the run's summary.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScenarioCommand } from '../../harness/commands/scenario.js';
import { parseCoverageReport } from '../../server/admission/coverage/report-schema.js';
import { captureCliIO } from '../support/cli.js';
import { configuration, untestedCells } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kah-coverage-scenarios-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kah scenario run --admission-coverage', () => {
  it('writes one report for all scenarios and prints its summary table', async () => {
    const file = path.join(dir, 'scenarios-coverage.json');
    const c = captureCliIO();
    // the two webhook examples: one denies a ConfigMap create, one allows an apply (a create) with a warning
    const code = await runScenarioCommand(['run', path.join(root, 'scenarios/examples/webhook-denies-configmaps.yaml'), '--parallel', '1', '--admission-coverage', file], c);
    const out = c.out();
    expect({ code, err: c.err(), out: code === 0 ? '' : out }).toEqual({ code: 0, err: '', out: '' });

    const report = parseCoverageReport(readFileSync(file, 'utf8'));
    // one apiserver per scenario: two runs merged
    expect(report.runs).toBe(2);
    const guard = configuration(report, 'ValidatingWebhook/api/guard.kah.example.com/guard.kah.example.com');
    expect(guard).toMatchObject({ calls: 2, decisions: { allowed: 1, denied: 1 }, denials: [{ message: 'configmaps are not welcome here', count: 1 }] });
    expect(guard.requests).toEqual([{ operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', namespaced: true, count: 2 }]);
    expect(untestedCells(guard)).toEqual(['UPDATE core/configmaps']);

    const tail = out.slice(out.indexOf('2 passed, 0 failed'));
    expect(tail).toContain('Admission coverage (kah.admission-coverage/v1, 2 runs): 1 configurations, 2 calls, 1/2 rule cells hit');
    expect(tail).toMatch(/^ {2}VWH {3}guard\.kah\.example\.com\/guard\.kah\.example\.com {2}api {9}2 {8}1 {7}1 /m);
    expect(tail).toContain('  VWH guard.kah.example.com/guard.kah.example.com: UPDATE core/configmaps\n');
    expect(tail).toContain(`Admission coverage written to ${file}`);
  }, 120_000);
});
