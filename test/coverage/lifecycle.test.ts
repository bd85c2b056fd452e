// The coverage file across a server's life: written periodically while requests come (so a kill -9 leaves the last
// periodic write), runs of a restarted server merged by the harness, `coverage: true` writing into
// $KAH_COVERAGE_DIR with the summary table on stderr at cleanup.
import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { parseCoverageReport, type AdmissionCoverageReport } from '../../server/admission/coverage/report-schema.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { configMap, configuration, registerWebhook } from './support.js';

let dir: string;
let webhook: WebhookServer;
let server: ApiServerHandle | undefined;
const previousDir = process.env['KAH_COVERAGE_DIR'];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-coverage-life-'));
  webhook = await startWebhookServer();
  process.env['KAH_COVERAGE_DIR'] = path.join(dir, 'out');
}, 30_000);
afterAll(async () => {
  if (previousDir === undefined) delete process.env['KAH_COVERAGE_DIR'];
  else process.env['KAH_COVERAGE_DIR'] = previousDir;
  await server?.cleanup();
  await webhook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const runFileOf = (h: ApiServerHandle): string => h.args.find((a) => a.startsWith('--admission-coverage='))!.slice('--admission-coverage='.length);
const readReport = (file: string): AdmissionCoverageReport => parseCoverageReport(readFileSync(file, 'utf8'), file);
const id = 'ValidatingWebhook/api/life/life.example.com';

describe('admission coverage over a server’s life', () => {
  it('keeps the last periodic write after a kill -9, and adds up the runs of a restarted server', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      server = await startApiServer({ storage: 'memory', coverage: true });
      const runFile = runFileOf(server);
      await registerWebhook(server, webhook, 'validating', 'life', { path: '/allow' });
      expect((await api(server, 'POST', '/api/v1/namespaces/default/configmaps', configMap('first', 'life'))).status).toBe(201);
      // the periodic write catches up (no shutdown write will come: the process is killed)
      await eventually(() => expect(configuration(readReport(runFile), id).calls).toBe(1), 15_000, 100);
      const exit = await server.kill('SIGKILL');
      expect(exit?.signal).toBe('SIGKILL');
      expect(configuration(readReport(runFile), id).calls).toBe(1);

      // a restart is a new run: memory storage forgot the configuration, so it is registered again
      await server.restart();
      await registerWebhook(server, webhook, 'validating', 'life', { path: '/allow' });
      expect((await api(server, 'POST', '/api/v1/namespaces/default/configmaps', configMap('second', 'life'))).status).toBe(201);
      const live = await server.coverage();
      expect(live.runs).toBe(2);
      expect(configuration(live, id)).toMatchObject({ calls: 2, decisions: { allowed: 2 } });

      const out = server.coverageFile!;
      expect(path.dirname(out)).toBe(path.join(dir, 'out'));
      await server.cleanup();
      expect(existsSync(out)).toBe(true);
      expect(readdirSync(path.join(dir, 'out'))).toEqual([path.basename(out)]);
      const merged = readReport(out);
      expect(merged.runs).toBe(2);
      expect(configuration(merged, id)).toMatchObject({ calls: 2, decisions: { allowed: 2 }, present: true });
      const printed = stderr.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toContain('Admission coverage (kah.admission-coverage/v1, 2 runs): 1 configurations, 2 calls, 1/1 rule cells hit');
      expect(printed).toContain(`(written to ${out})`);
    } finally {
      stderr.mockRestore();
    }
  }, 120_000);

  it('is off unless asked for: no debug path, and coverage() says how to turn it on', async () => {
    const plain = await startApiServer({ storage: 'memory' });
    try {
      expect(plain.coverageFile).toBeUndefined();
      expect((await plain.request('/debug/admission-coverage')).status).toBe(404);
      await expect(plain.coverage()).rejects.toThrow('admission coverage is off: start the server with { coverage: true }');
    } finally {
      await plain.cleanup();
    }
  }, 60_000);
});
