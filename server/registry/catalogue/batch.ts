// batch/v1. Columns mirror kube's printers (pkg/printers/internalversion/printers.go: printJob, printCronJob).
import type { KubeObject } from '../../api/types.js';
import { humanDuration } from '../../api/human-duration.js';
import { age, at, str, type Entry } from './entry.js';

type Obj = Record<string, unknown>;

const conditionTrue = (o: KubeObject, type: string): boolean =>
  ((at(o, 'status', 'conditions') as Obj[] | undefined) ?? []).some((c) => c && c['type'] === type && c['status'] === 'True');

/** printJob's Status column, in kube's order of precedence. */
function jobStatus(o: KubeObject): string {
  if (conditionTrue(o, 'Complete')) return 'Complete';
  if (conditionTrue(o, 'Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  if (conditionTrue(o, 'Suspended')) return 'Suspended';
  if (conditionTrue(o, 'FailureTarget')) return 'FailureTarget';
  if (conditionTrue(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(o: KubeObject): string {
  const succeeded = (at(o, 'status', 'succeeded') as number | undefined) ?? 0;
  const completions = at(o, 'spec', 'completions') as number | undefined | null;
  const parallelism = at(o, 'spec', 'parallelism') as number | undefined | null;
  if (completions !== undefined && completions !== null) return `${succeeded}/${completions}`;
  if (parallelism !== undefined && parallelism !== null && parallelism > 1) return `${succeeded}/1 of ${parallelism}`;
  return `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: Date): string {
  const start = at(o, 'status', 'startTime') as string | undefined;
  if (!start) return '';
  const end = at(o, 'status', 'completionTime') as string | undefined;
  return humanDuration((end ? Date.parse(end) : now.getTime()) - Date.parse(start));
}

/** layoutContainerCells: the template's container names and images, comma-joined. */
const containersOf = (podSpec: unknown): Obj[] => ((at(podSpec, 'containers') as Obj[] | undefined) ?? []).filter((c) => c && typeof c === 'object');
const containerNames = (podSpec: unknown): string => containersOf(podSpec).map((c) => String(c['name'] ?? '')).join(',');
const containerImages = (podSpec: unknown): string => containersOf(podSpec).map((c) => String(c['image'] ?? '')).join(',');

/** metav1.FormatLabelSelector: requirements sorted by key, "<none>" when empty or absent. */
export function formatLabelSelector(sel: unknown): string {
  if (!sel || typeof sel !== 'object') return '<none>';
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }> };
  const reqs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
  for (const e of s.matchExpressions ?? []) {
    const key = e.key ?? '';
    const values = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') reqs.push([key, `${key} in (${values})`]);
    else if (e.operator === 'NotIn') reqs.push([key, `${key} notin (${values})`]);
    else if (e.operator === 'Exists') reqs.push([key, key]);
    else if (e.operator === 'DoesNotExist') reqs.push([key, `!${key}`]);
    else return '<error>';
  }
  reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const text = reqs.map((r) => r[1]).join(',');
  return text.length === 0 ? '<none>' : text;
}

function lastSchedule(o: KubeObject, now: Date): string {
  const t = at(o, 'status', 'lastScheduleTime') as string | undefined;
  return t ? humanDuration(now.getTime() - Date.parse(t)) : '<none>';
}

const boolPtr = (v: unknown): string => (v === undefined || v === null ? '<unset>' : v ? 'True' : 'False');

export const batchEntries: Entry[] = [
  {
    group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true, categories: ['all'],
    subresources: { status: true },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Status', type: 'string', description: 'Status of the job.', compute: jobStatus },
      { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded.', compute: jobCompletions },
      { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: jobDuration },
      age,
      { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', compute: (o) => containerNames(at(o, 'spec', 'template', 'spec')) },
      { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', compute: (o) => containerImages(at(o, 'spec', 'template', 'spec')) },
      { name: 'Selector', type: 'string', priority: 1, description: 'A label query over pods that should match the pod count.', compute: (o) => formatLabelSelector(at(o, 'spec', 'selector')) },
    ],
  },
  {
    group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'],
    subresources: { status: true },
    hasGeneration: true, hasStatus: true,
    printerColumns: [
      { name: 'Schedule', type: 'string', description: 'The schedule in Cron format.', compute: (o) => str(at(o, 'spec', 'schedule')) },
      { name: 'Timezone', type: 'string', description: 'The time zone name for the given schedule.', compute: (o) => str(at(o, 'spec', 'timeZone')) },
      { name: 'Suspend', type: 'boolean', description: 'This flag tells the controller to suspend subsequent executions.', compute: (o) => boolPtr(at(o, 'spec', 'suspend')) },
      { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.', compute: (o) => ((at(o, 'status', 'active') as unknown[] | undefined) ?? []).length },
      { name: 'Last Schedule', type: 'string', description: 'Information when was the last time the job was successfully scheduled.', cell: lastSchedule },
      age,
      { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', compute: (o) => containerNames(at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')) },
      { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', compute: (o) => containerImages(at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')) },
      { name: 'Selector', type: 'string', priority: 1, description: 'A label query over pods that should match the pod count.', compute: (o) => formatLabelSelector(at(o, 'spec', 'jobTemplate', 'spec', 'selector')) },
    ],
  },
];
