// Test fixtures: a custom resource served at two versions whose shapes differ, for the matchPolicy Equivalent tests of both
// policy plugins: stable.example.com crontabs, v1 with spec.cronSpec, v2 with spec.schedule. Plain data and a
// converter that records what it was asked; no I/O.
import type { GroupVersionKind, KubeObject } from '../../api/types.js';
import type { AdmissionAttributes } from '../attributes.js';
import { newEquivalentResourceMapper } from '../matching/equivalence.js';
import type { ObjectConverter } from '../webhook/dispatch.js';
import { deploymentAttributes } from './test-fixtures.js';

export const cronGroup = 'stable.example.com';
export const cronKind = (version: string): GroupVersionKind => ({ group: cronGroup, version, kind: 'CronTab' });
export const cronResource = (version: string) => ({ group: cronGroup, version, resource: 'crontabs' });

export const cronEquivalences = newEquivalentResourceMapper([
  ['v1', 'v2'].map((v) => ({ resource: cronResource(v), subresource: '', kind: cronKind(v) })),
]);

/** A CronTab in `version`'s shape: v1 has spec.cronSpec, v2 spec.schedule. */
export function cronTab(version: string, schedule: string, extra: Record<string, unknown> = {}): KubeObject {
  const field = version === 'v1' ? 'cronSpec' : 'schedule';
  return { apiVersion: `${cronGroup}/${version}`, kind: 'CronTab', metadata: { name: 'tab', namespace: 'team-a' }, spec: { [field]: schedule, ...extra } };
}

/** A request for a CronTab in `version`. */
export function cronAttributes(version: string, overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return deploymentAttributes({ kind: cronKind(version), resource: cronResource(version), name: 'tab', object: cronTab(version, '0 * * * *'), ...overrides });
}

export interface RecordingConverter {
  convert: ObjectConverter;
  /** "<from apiVersion> -> <to version>" for every conversion */
  calls: string[];
  /** make every conversion fail with this message */
  failWith?: string;
}

/** The conversion webhook of the integration tests: renames cronSpec <-> schedule and changes apiVersion. */
export function cronConverter(): RecordingConverter {
  const r: RecordingConverter = {
    calls: [],
    convert: async (obj, to) => {
      r.calls.push(`${obj.apiVersion} -> ${to.version}`);
      if (r.failWith) throw new Error(r.failWith);
      const spec = { ...(obj['spec'] as Record<string, unknown> | undefined) };
      const [from, into] = to.version === 'v2' ? ['cronSpec', 'schedule'] : ['schedule', 'cronSpec'];
      if (from in spec) {
        spec[into] = spec[from];
        delete spec[from];
      }
      return { ...structuredClone(obj), apiVersion: `${to.group}/${to.version}`, spec };
    },
  };
  return r;
}
