// autoscaling/v2 and autoscaling/v1 horizontalpodautoscalers: one store, kept in v2 (kube's storage version for
// the group since 1.27); v1 requests are converted both ways by the v1 entry's codec. Columns mirror kube's
// printHorizontalPodAutoscaler (pkg/printers/internalversion/printers.go), which prints the internal (v2-shaped)
// object, so both versions print the same rows.
import type { KubeObject } from '../../api/types.js';
import { hpaV1ToV2, hpaV2ToV1 } from '../strategies/autoscaling/hpa-conversion.js';
import { builtinCodec, type PrinterColumn, type StorageCodec } from '../resource.js';
import { age, at, type Entry } from './entry.js';

type Obj = Record<string, unknown>;

/** formatHPAMetrics: "cpu: <unknown>/80%", at most two metrics then "+ N more...". */
export function formatHpaMetrics(v2: KubeObject): string {
  const specs = ((at(v2, 'spec', 'metrics') as Obj[] | undefined) ?? []).filter((m) => m && typeof m === 'object');
  const statuses = ((at(v2, 'status', 'currentMetrics') as Obj[] | undefined) ?? []).filter((m) => m && typeof m === 'object');
  if (specs.length === 0) return '<none>';
  const list: string[] = [];
  const q = (v: unknown): string => (v === undefined || v === null ? '0' : String(v));
  specs.forEach((spec, i) => {
    const st = statuses[i];
    const unknown = '<unknown>';
    switch (spec['type']) {
      case 'External':
      case 'Object': {
        const key = spec['type'] === 'External' ? 'external' : 'object';
        const target = (at(spec, key, 'target') ?? {}) as Obj;
        const cur = at(st, key, 'current') as Obj | undefined;
        if (target['averageValue'] !== undefined && target['averageValue'] !== null) {
          const current = cur && cur['averageValue'] !== undefined && cur['averageValue'] !== null ? q(cur['averageValue']) : unknown;
          list.push(`${current}/${q(target['averageValue'])} (avg)`);
        } else list.push(`${cur ? q(cur['value']) : unknown}/${q(target['value'])}`);
        break;
      }
      case 'Pods': {
        const cur = at(st, 'pods', 'current') as Obj | undefined;
        list.push(`${cur ? q(cur['averageValue']) : unknown}/${q(at(spec, 'pods', 'target', 'averageValue'))}`);
        break;
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = spec['type'] === 'Resource' ? 'resource' : 'containerResource';
        const name = String(at(spec, key, 'name') ?? '');
        const target = (at(spec, key, 'target') ?? {}) as Obj;
        const cur = at(st, key, 'current') as Obj | undefined;
        if (target['averageValue'] !== undefined && target['averageValue'] !== null) {
          list.push(`${name}: ${cur ? q(cur['averageValue']) : unknown}/${q(target['averageValue'])}`);
        } else {
          const current = cur && typeof cur['averageUtilization'] === 'number' ? `${cur['averageUtilization']}%` : unknown;
          const t = typeof target['averageUtilization'] === 'number' ? `${target['averageUtilization']}%` : '<auto>';
          list.push(`${name}: ${current}/${t}`);
        }
        break;
      }
      default:
        list.push('<unknown type>');
    }
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

/** The columns, reading a v2-shaped object from `view`. */
function hpaColumns(view: (o: KubeObject) => KubeObject): PrinterColumn[] {
  return [
    { name: 'Reference', type: 'string', description: 'Reference to the scaled object.', compute: (o) => `${String(at(o, 'spec', 'scaleTargetRef', 'kind') ?? '')}/${String(at(o, 'spec', 'scaleTargetRef', 'name') ?? '')}` },
    { name: 'Targets', type: 'string', description: 'The metrics and their current and target values.', compute: (o) => formatHpaMetrics(view(o)) },
    {
      name: 'MinPods', type: 'string', description: 'The lower limit for the number of pods that can be set by the autoscaler, default 1.',
      compute: (o) => {
        const min = at(o, 'spec', 'minReplicas');
        return min === undefined || min === null ? '<unset>' : String(min);
      },
    },
    { name: 'MaxPods', type: 'integer', description: 'The upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.', compute: (o) => (at(o, 'spec', 'maxReplicas') as number | undefined) ?? 0 },
    { name: 'Replicas', type: 'integer', description: 'Current number of replicas of pods managed by this autoscaler.', compute: (o) => (at(o, 'status', 'currentReplicas') as number | undefined) ?? 0 },
    age,
  ];
}

/** autoscaling/v1 objects live in the store as v2; a built-in kind's codec, so its bodies stay typed. */
export const hpaV1Codec: StorageCodec = builtinCodec({
  toStorage: (obj) => Promise.resolve(hpaV1ToV2(obj)),
  fromStorage: (objs) => Promise.resolve(objs.map(hpaV2ToV1)),
});

// kube's HPA strategy keeps no generation (status.observedGeneration follows the scale target's writes)
const hpa = (version: string): Entry => ({
  group: 'autoscaling', version, resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'],
  subresources: { status: true }, hasGeneration: false, hasStatus: true,
});

export const autoscalingEntries: Entry[] = [
  { ...hpa('v2'), printerColumns: hpaColumns((o) => o) },
  { ...hpa('v1'), codec: hpaV1Codec, storageVersion: 'v2', printerColumns: hpaColumns(hpaV1ToV2) },
];
