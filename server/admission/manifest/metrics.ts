// kube-apiserver's manifest reload metrics (k8s.io/apiserver/pkg/admission/plugin/manifest/metrics): the same
// names, help texts (with component-base's "[ALPHA] " prefix), label sets and values, and the apiserver_id_hash
// kube derives from the server's identity. Label values are passed in alphabetical key order so the exposition
// reads like client_golang's.
import { createHash } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ManifestPlugin } from './plugins.js';

export type ManifestReloadStatus = 'success' | 'failure';

export interface ManifestReloadMetrics {
  /** RecordAutomaticReloadSuccess: counts, stamps, and makes `hash` the plugin's last_config_info */
  recordSuccess(plugin: ManifestPlugin, apiServerId: string, hash: string): void;
  /** RecordAutomaticReloadFailure */
  recordFailure(plugin: ManifestPlugin, apiServerId: string): void;
}

/**
 * The apiserver identity of k8s.io/apiserver's server config: "apiserver-" and the unpadded lower-case base32 of
 * the first 16 bytes of sha256 over the length-prefixed hostname and "kube-apiserver".
 */
export function apiServerIdentity(hostname: string): string {
  const field = (s: string): Buffer => {
    const bytes = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(bytes.length);
    return Buffer.concat([len, bytes]);
  };
  const hash = createHash('sha256').update(Buffer.concat([field(hostname), field('kube-apiserver')])).digest();
  return `apiserver-${base32NoPadding(hash.subarray(0, 16)).toLowerCase()}`;
}

function base32NoPadding(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** metrics.getHash: "sha256:<hex>" of the apiserver identity, "" for none. */
export function apiServerIdHash(apiServerId: string): string {
  return apiServerId === '' ? '' : `sha256:${createHash('sha256').update(apiServerId, 'utf8').digest('hex')}`;
}

const perRegistry = new WeakMap<Registry, ManifestReloadMetrics>();

/** The reload metrics registered in `registry`; every controller of one server shares them. */
export function manifestReloadMetrics(registry: Registry): ManifestReloadMetrics {
  const existing = perRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const reloads = new Counter({
    name: 'apiserver_manifest_admission_config_controller_automatic_reloads_total',
    help: '[ALPHA] Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.',
    labelNames: ['apiserver_id_hash', 'plugin', 'status'],
    registers,
  });
  const lastTimestamp = new Gauge({
    name: 'apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds',
    help: '[ALPHA] Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.',
    labelNames: ['apiserver_id_hash', 'plugin', 'status'],
    registers,
  });
  const configInfo = new Gauge({
    name: 'apiserver_manifest_admission_config_controller_last_config_info',
    help: '[ALPHA] Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.',
    labelNames: ['apiserver_id_hash', 'hash', 'plugin'],
    registers,
  });
  // kube's collector emits one series per plugin, for the last applied hash only.
  const lastInfo = new Map<ManifestPlugin, { apiserver_id_hash: string; hash: string; plugin: ManifestPlugin }>();

  const record = (plugin: ManifestPlugin, apiServerId: string, status: ManifestReloadStatus): void => {
    const labels = { apiserver_id_hash: apiServerIdHash(apiServerId), plugin, status };
    reloads.inc(labels);
    lastTimestamp.set(labels, Date.now() / 1000);
  };
  const metrics: ManifestReloadMetrics = {
    recordSuccess(plugin, apiServerId, hash) {
      record(plugin, apiServerId, 'success');
      const idHash = apiServerIdHash(apiServerId);
      const previous = lastInfo.get(plugin);
      if (previous) configInfo.remove(previous);
      lastInfo.delete(plugin);
      // the collector skips a plugin without an apiserver identity
      if (idHash === '') return;
      const labels = { apiserver_id_hash: idHash, hash, plugin };
      configInfo.set(labels, 1);
      lastInfo.set(plugin, labels);
    },
    recordFailure(plugin, apiServerId) {
      record(plugin, apiServerId, 'failure');
    },
  };
  perRegistry.set(registry, metrics);
  return metrics;
}
