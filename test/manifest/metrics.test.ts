// The reload metrics as kube-apiserver exposes them, and the apiserver_id_hash it derives from the hostname.
import { Registry } from 'prom-client';
import { apiServerIdentity, apiServerIdHash, manifestReloadMetrics } from '../../server/admission/manifest/metrics.js';

describe('apiserver_id_hash', () => {
  it('is derived from the hostname as kube-apiserver does (the value kube\'s static manifest tests expect for "testAPIServerID")', () => {
    expect(apiServerIdentity('testAPIServerID')).toBe('apiserver-5toptfq5wsd34qjmvecvmgbige');
    expect(apiServerIdHash(apiServerIdentity('testAPIServerID'))).toBe('sha256:3c607df3b2bf22c9d9f01d5314b4bbf411c48ef43ff44ff29b1d55b41367c795');
  });

  it('is empty for an empty identity', () => {
    expect(apiServerIdHash('')).toBe('');
  });
});

describe('manifestReloadMetrics', () => {
  const id = apiServerIdentity('testAPIServerID');
  const idHash = apiServerIdHash(id);

  it('counts and stamps successes and failures per plugin and status', async () => {
    const registry = new Registry();
    const m = manifestReloadMetrics(registry);
    const before = Date.now() / 1000;
    m.recordSuccess('ValidatingAdmissionWebhook', id, 'sha256:aa');
    m.recordSuccess('ValidatingAdmissionWebhook', id, 'sha256:bb');
    m.recordFailure('ValidatingAdmissionWebhook', id);
    const text = await registry.metrics();
    expect(text).toContain(`apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="${idHash}",plugin="ValidatingAdmissionWebhook",status="success"} 2`);
    expect(text).toContain(`apiserver_manifest_admission_config_controller_automatic_reloads_total{apiserver_id_hash="${idHash}",plugin="ValidatingAdmissionWebhook",status="failure"} 1`);
    const stamp = /automatic_reload_last_timestamp_seconds\{apiserver_id_hash="[^"]+",plugin="ValidatingAdmissionWebhook",status="failure"\} (\S+)/.exec(text);
    expect(Number(stamp?.[1])).toBeGreaterThanOrEqual(Math.floor(before));
    expect(text).toContain('# HELP apiserver_manifest_admission_config_controller_automatic_reloads_total [ALPHA] Total number of automatic reloads');
  });

  it('keeps one last_config_info series per plugin, with the last applied hash ("" for an empty directory)', async () => {
    const registry = new Registry();
    const m = manifestReloadMetrics(registry);
    m.recordSuccess('ValidatingAdmissionPolicy', id, 'sha256:aa');
    m.recordSuccess('ValidatingAdmissionPolicy', id, '');
    m.recordSuccess('MutatingAdmissionWebhook', id, 'sha256:cc');
    m.recordFailure('MutatingAdmissionWebhook', id);
    const lines = (await registry.metrics()).split('\n').filter((l) => l.startsWith('apiserver_manifest_admission_config_controller_last_config_info{'));
    expect(lines.sort()).toEqual([
      `apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="${idHash}",hash="",plugin="ValidatingAdmissionPolicy"} 1`,
      `apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="${idHash}",hash="sha256:cc",plugin="MutatingAdmissionWebhook"} 1`,
    ]);
  });

  it('registers once per registry, however many controllers ask', () => {
    const registry = new Registry();
    expect(manifestReloadMetrics(registry)).toBe(manifestReloadMetrics(registry));
  });
});
