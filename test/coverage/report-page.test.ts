// `kah report` end to end: a real server records coverage (HTTPS webhooks called, rules left untested), writes it
// on SIGTERM with the summary table, `kah report` (the CLI, as a process) renders the HTML page, and headless
// Chromium opens it: the screenshot is the right size, not blank and shows the untested and hit colours; the DOM
// marks exactly the untested cells and carries the right counts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { allow, deny, patch, startWebhookServer, type ReceivedReview, type WebhookReply, type WebhookServer } from '../../harness/webhook-server.js';
import { parseCoverageReport, type AdmissionCoverageReport } from '../../server/admission/coverage/report-schema.js';
import { api } from '../admission/support.js';
import { colourStats, decodePng, pixelAt } from './png.js';
import { configMap, configuration, registerWebhook } from './support.js';

const run = promisify(execFile);
// KAH_CHROMIUM names another Chromium binary; .ci/run installs Debian's chromium when neither is present.
const chromiumBin = process.env.KAH_CHROMIUM ?? '/usr/bin/chromium';
const cli = path.resolve('dist/harness/cli.js');

let dir: string;
let webhook: WebhookServer;
let server: ApiServerHandle;
let coverageFile: string;
let report: AdmissionCoverageReport;
let serverStderr: string;

function route(r: ReceivedReview): WebhookReply {
  const name = (r.request.object as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';
  if (r.path === '/guard') return name.startsWith('bad') ? deny(`${name} is refused by the guard`) : allow();
  if (r.path === '/label') return patch([{ op: 'add', path: '/data', value: { labelled: 'yes' } }]);
  return allow();
}

/** Headless Chromium as the brief prescribes: a fresh profile, nothing fetched in the background. */
async function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(path.join(tmpdir(), 'kah-chromium-'));
  try {
    const { stdout } = await run(
      chromiumBin,
      ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, ...args],
      { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-coverage-page-'));
  coverageFile = path.join(dir, 'coverage.json');
  webhook = await startWebhookServer({ handler: route });
  server = await startApiServer({ storage: 'memory', coverage: { file: coverageFile, printSummary: false } });
  await registerWebhook(server, webhook, 'validating', 'guard', {
    path: '/guard',
    rules: [
      { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE', 'DELETE'] },
      { apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], operations: ['CREATE'] },
    ],
  });
  await registerWebhook(server, webhook, 'mutating', 'label', { path: '/label' });
  const cms = '/api/v1/namespaces/default/configmaps';
  for (const name of ['ok-1', 'ok-2', 'bad-1']) await api(server, 'POST', cms, configMap(name, 'guard'));
  await api(server, 'PUT', `${cms}/ok-1`, configMap('ok-1', 'guard', { changed: 'yes' }));
  await api(server, 'POST', cms, configMap('labelled', 'label'));
  const exit = await server.stop();
  serverStderr = exit.stderr;
  await server.cleanup();
  report = parseCoverageReport(readFileSync(coverageFile, 'utf8'));
}, 90_000);
afterAll(async () => {
  await server?.cleanup();
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the coverage report at the end of a run', () => {
  it('is written on SIGTERM, and the server prints the summary table', () => {
    expect(report.runs).toBe(1);
    const guard = configuration(report, 'ValidatingWebhook/api/guard/guard.example.com');
    expect(guard).toMatchObject({ calls: 4, decisions: { allowed: 3, denied: 1 }, denials: [{ message: 'bad-1 is refused by the guard', count: 1 }] });
    expect(guard.rules.map((r) => `${r.operation} ${r.resource} ${r.hits}`)).toEqual(['CREATE configmaps 3', 'UPDATE configmaps 1', 'DELETE configmaps 0', 'CREATE secrets 0']);
    const table = serverStderr.slice(serverStderr.indexOf('Admission coverage ('));
    expect(table.split('\n').slice(0, 4)).toEqual([
      'Admission coverage (kah.admission-coverage/v1, 1 run): 2 configurations, 5 calls, 3/5 rule cells hit',
      '  KIND  CONFIGURATION            SOURCE  CALLS  ALLOWED  DENIED  PATCHED  WARNED  ERRORED  SKIPPED  RULES HIT',
      '  MWH   label/label.example.com  api         1        0       0        1       0        0        0        1/1',
      '  VWH   guard/guard.example.com  api         4        3       1        0       0        0        0        2/4',
    ]);
    expect(table).toContain('Untested rules (no request matched):\n  VWH guard/guard.example.com: DELETE core/configmaps, CREATE core/secrets\n');
  });
});

describe('kah report', () => {
  let html: string;
  let htmlFile: string;

  beforeAll(async () => {
    htmlFile = path.join(dir, 'page.html');
    const { stdout } = await run(process.execPath, [cli, 'report', '--out', htmlFile, coverageFile], { timeout: 30_000 });
    expect(stdout).toContain(`HTML report written to ${htmlFile}`);
    expect(stdout).toContain('Admission coverage (kah.admission-coverage/v1, 1 run)');
    html = readFileSync(htmlFile, 'utf8');
  }, 60_000);

  it('writes one self-contained page: inline CSS, no script, nothing loaded from elsewhere', () => {
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('answers usage errors with exit code 2', async () => {
    await expect(run(process.execPath, [cli, 'report'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('name at least one coverage file') });
    await expect(run(process.execPath, [cli, 'report', path.join(dir, 'nope.json')])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('nope.json: no such file') });
  });

  it('renders in Chromium with the untested rule cells marked and the counts right (DOM)', async () => {
    const dom = await chromium(['--dump-dom', `file://${htmlFile}`]);
    expect(dom).toContain('<h1>Admission coverage</h1>');
    const section = (id: string): string => {
      const start = dom.indexOf(`data-config-id="${id}"`);
      expect(start).toBeGreaterThan(0);
      return dom.slice(start, dom.indexOf('</section>', start));
    };
    const guard = section('ValidatingWebhook/api/guard/guard.example.com');
    expect(guard).toContain('data-untested-cells="2"');
    const untested = [...guard.matchAll(/<td class="cell untested" data-untested="true" data-operation="(\w+)" data-resource="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(untested).toEqual(['DELETE configmaps', 'CREATE secrets']);
    const hits = [...guard.matchAll(/<td class="cell hit" data-operation="(\w+)" data-resource="([^"]+)" data-hits="(\d+)"/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(hits).toEqual(['CREATE configmaps 3', 'UPDATE configmaps 1']);
    expect(guard).toMatch(/data-decision="allowed" data-count="3"/);
    expect(guard).toMatch(/data-decision="denied" data-count="1"/);
    expect(guard).toContain('bad-1 is refused by the guard');
    const label = section('MutatingWebhook/api/label/label.example.com');
    expect(label).toMatch(/data-decision="patched" data-count="1"/);
    expect(label).not.toContain('data-untested="true"');
    expect(dom).toMatch(/data-total="untested"><div class="value">2</);
  }, 120_000);

  it('renders in Chromium to a screenshot of the right size that is not blank and shows the untested highlight', async () => {
    const png = path.join(dir, 'page.png');
    await chromium([`--screenshot=${png}`, '--window-size=1280,1400', '--hide-scrollbars', `file://${htmlFile}`]);
    expect(statSync(png).size).toBeGreaterThan(10_000);
    const image = decodePng(readFileSync(png));
    expect([image.width, image.height]).toEqual([1280, 1400]);
    const stats = colourStats(image);
    // a blank page is one colour; text, badges and the matrix give many
    expect(stats.distinct).toBeGreaterThan(50);
    expect(stats.dominantShare).toBeLessThan(0.95);
    // the untested cells' background (#ffe3e3) and the hit cells' (#d3f9d8) are on screen
    const colours = new Set<string>();
    for (let y = 0; y < image.height; y += 2) for (let x = 0; x < image.width; x += 2) colours.add(pixelAt(image, x, y).join(','));
    expect(colours.has('255,227,227')).toBe(true);
    expect(colours.has('211,249,216')).toBe(true);
  }, 120_000);
});
