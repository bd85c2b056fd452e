// A start that fails early with a fresh --cert-dir must end with its exit code 1, not abort, with the certificate
// worker on (the default; KAH_CERT_WORKER=0 turns it off): node 20 aborts the process (SIGABRT, "FATAL ERROR:
// v8::ToLocalChecked Empty MaybeLocal" in a key generation job's completion on the worker thread) when it exits while
// the worker's asynchronous key generation is in flight; 11 of 60 such starts aborted under load, also when the
// worker was terminated first. A worker thread now makes its keys synchronously (certs/key-pair.ts); certs/cert-worker-exit.test.ts
// holds the mechanism itself.
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
      const f = await expectStartupFailure({
        storage: 'memory',
        certificates: 'fresh',
        flags: [`--admission-control-config-file=${config}`, '--feature-gates=ManifestBasedAdmissionControlConfig=true'],
        // the default, whatever this test's environment says
        env: { KAH_CERT_WORKER: undefined },
      });
      outcomes.push(f.exitCode === 1 && f.stderr.includes('staticManifestsDir: Invalid value: "relative/x": must be an absolute file path') ? 'exit 1' : `code ${f.exitCode} signal ${f.signal}: ${f.stderr.slice(-300)}`);
    };
    for (let round = 0; round < 10; round++) await Promise.all([one(), one(), one(), one()]);
    expect(outcomes.filter((o) => o !== 'exit 1')).toEqual([]);
    expect(outcomes).toHaveLength(40);
  }, 240_000);
});
