// A start that fails early with a fresh --cert-dir must end with its exit code 1, not abort: node 20 aborts the
// process (SIGABRT in the crypto job's completion on the worker thread) when it exits while the certificate worker
// still generates keys. With the worker on by default, 11 of 60 such starts aborted (and still did when the worker was
// terminated first); the worker is now opt-in (KAH_CERT_WORKER=1, certs/bundle-off-thread.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expectStartupFailure } from '../../harness/index.js';

describe('a startup failure while certificates are being generated', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'kah-startup-worker-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 1 with the error, never by a signal (40 starts, 4 at a time)', async () => {
    const config = path.join(dir, 'admission.yaml');
    writeFileSync(
      config,
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    staticManifestsDir: relative/x\n',
    );
    const outcomes: string[] = [];
    const one = async (): Promise<void> => {
      const f = await expectStartupFailure({ storage: 'memory', flags: [`--admission-control-config-file=${config}`, '--feature-gates=ManifestBasedAdmissionControlConfig=true'] });
      outcomes.push(f.exitCode === 1 && f.stderr.includes('staticManifestsDir: Invalid value: "relative/x": must be an absolute file path') ? 'exit 1' : `code ${f.exitCode} signal ${f.signal}: ${f.stderr.slice(-300)}`);
    };
    for (let round = 0; round < 10; round++) await Promise.all([one(), one(), one(), one()]);
    expect(outcomes.filter((o) => o !== 'exit 1')).toEqual([]);
    expect(outcomes).toHaveLength(40);
  }, 240_000);
});
