// Jobs: kube's SetDefaults_Job (pkg/apis/batch/v1/defaults.go), the job strategy's generateSelector
// (pkg/registry/batch/job/strategy.go PrepareForCreate) and the core of ValidateJob/ValidateJobUpdate
// (pkg/apis/batch/validation/validation.go): counts, completion mode, restart policy, the generated selector.
import { fieldErrors, FieldPath, GoStructValue, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { labelSelectorMatches, validateLabelSelector } from '../../selectors/label-selector.js';
import { isDNS1123Label } from '../../validation/name.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultPodSpec, validateTemplatePodSpec } from '../core/pod.js';

// pkg/apis/batch/types.go: the labels the job strategy puts on the pod template, prefixed and legacy.
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const legacyJobNameLabel = 'job-name';
export const legacyControllerUidLabel = 'controller-uid';

const maxInt32 = 2147483647;

/** Go's %#v of a map[string]string, as kube prints template labels in "`selector` does not match template `labels`". */
export function goStringMap(labels: Record<string, string>): string {
  const body = Object.keys(labels).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(labels[k])}`).join(', ');
  return `map[string]string{${body}}`;
}

/** SetDefaults_Job's spec part. */
export function defaultJobSpec(spec: Obj): void {
  // both unset: a non-parallel job, both 1
  if ((spec['completions'] === undefined || spec['completions'] === null) && (spec['parallelism'] === undefined || spec['parallelism'] === null)) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  setDefault(spec, 'parallelism', 1);
  // with a per-index limit the global backoff limit is effectively off (math.MaxInt32)
  setDefault(spec, 'backoffLimit', spec['backoffLimitPerIndex'] !== undefined && spec['backoffLimitPerIndex'] !== null ? maxInt32 : 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  // JobPodReplacementPolicy (GA): Failed when a podFailurePolicy is set, TerminatingOrFailed otherwise
  setDefault(spec, 'podReplacementPolicy', spec['podFailurePolicy'] ? 'Failed' : 'TerminatingOrFailed');
  setDefault(spec, 'manualSelector', false);
  defaultJobSpecTypes(spec);
}

/**
 * The defaults of the types inside a JobSpec (generated defaulters: the pod template's SetDefaults_PodSpec and
 * the pod failure policy's SetDefaults_PodFailurePolicyOnPodConditionsPattern), which a CronJob's jobTemplate
 * gets too; SetDefaults_Job's own rules are the Job's only.
 */
export function defaultJobSpecTypes(spec: Obj): void {
  const pfp = spec['podFailurePolicy'];
  if (pfp && typeof pfp === 'object') {
    for (const rule of ((pfp as Obj)['rules'] as Obj[] | undefined) ?? []) {
      for (const pattern of ((rule?.['onPodConditions'] as Obj[] | undefined) ?? [])) if (pattern && typeof pattern === 'object') setDefault(pattern, 'status', 'True');
    }
  }
  const template = objAt(spec, 'template');
  defaultPodSpec(objAt(template, 'spec'));
}

/**
 * The job strategy's generateSelector: the template gets job-name/controller-uid labels (prefixed and legacy)
 * unless set, and the selector matches batch.kubernetes.io/controller-uid. Only on create, where the uid is new.
 */
function generateSelector(job: Obj): void {
  const meta = (job['metadata'] ?? {}) as Obj;
  const spec = objAt(job, 'spec');
  const templateMeta = objAt(objAt(spec, 'template'), 'metadata');
  const labels = objAt(templateMeta, 'labels') as Record<string, unknown>;
  for (const key of [legacyJobNameLabel, jobNameLabel]) if (!(key in labels)) labels[key] = String(meta['name'] ?? '');
  for (const key of [legacyControllerUidLabel, controllerUidLabel]) if (!(key in labels)) labels[key] = String(meta['uid'] ?? '');
  const selector = objAt(spec, 'selector');
  const matchLabels = objAt(selector, 'matchLabels');
  if (!(controllerUidLabel in matchLabels)) matchLabels[controllerUidLabel] = String(meta['uid'] ?? '');
}

/** validateJobSpec: what a Job and a CronJob's jobTemplate share. */
export function validateJobSpecCommon(specValue: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (specValue ?? {}) as Obj;
  for (const key of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    const v = spec[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(path.child(key), v, 'must be greater than or equal to 0'));
  }
  if (spec['maxFailedIndexes'] !== undefined && spec['maxFailedIndexes'] !== null && (spec['backoffLimitPerIndex'] === undefined || spec['backoffLimitPerIndex'] === null)) {
    errs.push(fieldErrors.required(path.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  const mode = spec['completionMode'];
  if (mode !== undefined && mode !== null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(path.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec['completions'] === undefined || spec['completions'] === null) errs.push(fieldErrors.required(path.child('completions'), 'when completion mode is Indexed'));
      const par = spec['parallelism'];
      if (typeof par === 'number' && par > 100000) errs.push(fieldErrors.invalid(path.child('parallelism'), par, 'must be less than or equal to 100000 when completion mode is Indexed'));
    }
  }
  if (mode === undefined || mode === null || mode === 'NonIndexed') {
    for (const key of ['backoffLimitPerIndex', 'maxFailedIndexes']) {
      const v = spec[key];
      if (v !== undefined && v !== null) errs.push(fieldErrors.invalid(path.child(key), v, 'requires indexed completion mode'));
    }
  }
  const prp = spec['podReplacementPolicy'];
  if (prp !== undefined && prp !== null) {
    if (prp !== 'Failed' && prp !== 'TerminatingOrFailed') errs.push(fieldErrors.notSupported(path.child('podReplacementPolicy'), prp, ['Failed', 'TerminatingOrFailed']));
    else if (spec['podFailurePolicy'] && prp !== 'Failed') errs.push(fieldErrors.notSupported(path.child('podReplacementPolicy'), prp, ['Failed']));
  }
  const template = (spec['template'] ?? {}) as Obj;
  errs.push(...validateTemplatePodSpec(template['spec'], path.child('template', 'spec')));
  // restartPolicy is defaulted to Always for pods, so Always and "" both mean "not set for a job"
  const rp = ((template['spec'] ?? {}) as Obj)['restartPolicy'];
  const rpPath = path.child('template', 'spec', 'restartPolicy');
  if (rp === 'Always' || rp === '' || rp === undefined || rp === null) errs.push(fieldErrors.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never') errs.push(fieldErrors.notSupported(rpPath, rp, ['OnFailure', 'Never']));
  else if (spec['podFailurePolicy'] && rp !== 'Never') errs.push(fieldErrors.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function templateLabels(spec: Obj): Record<string, string> {
  return ((((spec['template'] ?? {}) as Obj)['metadata'] as Obj | undefined)?.['labels'] ?? {}) as Record<string, string>;
}

/** ValidateJob: the generated selector's labels, then ValidateJobSpec (selector required, matching the template). */
function validateJob(job: KubeObject, requirePrefixedLabels: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (job['spec'] ?? {}) as Obj;
  const meta = (job.metadata ?? {}) as Obj;
  const selector = spec['selector'] as { matchLabels?: Record<string, string>; matchExpressions?: never[] } | undefined | null;
  const labels = templateLabels(spec);
  if (spec['manualSelector'] !== true && selector) {
    const tpath = FieldPath.root('spec', 'template', 'metadata');
    const expected: Record<string, string> = {};
    const hasLabel = (key: string, value: string): void => {
      // ValidateHasLabel (core validation)
      if (!(key in labels)) errs.push(fieldErrors.required(tpath.child('labels'), `must be '${value}'`));
      else if (labels[key] !== value) errs.push(fieldErrors.invalid(tpath.child('labels'), labels[key], `must be '${value}'`));
    };
    const uid = String(meta['uid'] ?? '');
    const name = String(meta['name'] ?? '');
    hasLabel(legacyControllerUidLabel, uid);
    hasLabel(legacyJobNameLabel, name);
    if (requirePrefixedLabels) {
      hasLabel(controllerUidLabel, uid);
      hasLabel(jobNameLabel, name);
      expected[controllerUidLabel] = uid;
      expected[jobNameLabel] = name;
    }
    expected[legacyControllerUidLabel] = uid;
    expected[legacyJobNameLabel] = name;
    if (!labelSelectorMatches(selector, expected)) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'selector'), goLabelSelector(selector), '`selector` not auto-generated'));
  }
  const path = FieldPath.root('spec');
  errs.push(...validateJobSpecCommon(spec, path));
  // an Indexed job's pods are named <job>-<index>: the last one must still be a DNS label
  const completions = spec['completions'];
  if (spec['completionMode'] === 'Indexed' && typeof completions === 'number' && completions > 0) {
    const hostname = `${String(meta['name'] ?? '')}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) errs.push(fieldErrors.invalid(FieldPath.root('metadata', 'name'), String(meta['name'] ?? ''), `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  if (!selector) errs.push(fieldErrors.required(path.child('selector')));
  else {
    errs.push(...validateLabelSelector(selector, path.child('selector')));
    if (!labelSelectorMatches(selector, labels)) errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), new GoStructValue(goStringMap(labels)), '`selector` does not match template `labels`'));
  }
  return errs;
}

/** The counters of validateJobStatus that may never be negative, and the uncounted pods' uniqueness. */
function validateJobStatus(statusValue: unknown): FieldError[] {
  const status = (statusValue ?? {}) as Obj;
  const path = FieldPath.root('status');
  const errs: FieldError[] = [];
  for (const key of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(path.child(key), v, 'must be greater than or equal to 0'));
  }
  const uncounted = status['uncountedTerminatedPods'];
  if (uncounted && typeof uncounted === 'object') {
    const seen = new Set<string>();
    for (const key of ['succeeded', 'failed']) {
      const list = (uncounted as Obj)[key];
      if (!Array.isArray(list)) continue;
      list.forEach((uid, i) => {
        const p = path.child('uncountedTerminatedPods', key).index(i);
        if (uid === '') errs.push(fieldErrors.invalid(p, uid, 'must not be empty'));
        else if (seen.has(String(uid))) errs.push(fieldErrors.duplicate(p, uid));
        else seen.add(String(uid));
      });
    }
  }
  return errs;
}

/** ValidateJobSpecUpdate: fields a job keeps for life. */
function validateJobUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (job['spec'] ?? {}) as Obj;
  const oldSpec = (old['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const immutable = (key: string): void => {
    const v = spec[key] ?? null;
    const shown = v !== null && typeof v === 'object' ? (key === 'selector' ? goLabelSelector(v) : new GoStructValue(JSON.stringify(v))) : v;
    if (!jsonEqual(v, oldSpec[key] ?? null)) errs.push(fieldErrors.invalid(path.child(key), shown, 'field is immutable'));
  };
  // completions may change only for Indexed jobs together with parallelism (ElasticIndexedJob, GA)
  if (spec['completionMode'] === 'Indexed') {
    if (!jsonEqual(spec['completions'], oldSpec['completions']) && typeof spec['completions'] === 'number' && spec['completions'] !== spec['parallelism']) {
      errs.push(fieldErrors.invalid(path.child('completions'), spec['completions'], 'can only be modified in tandem with spec.parallelism'));
    }
  } else immutable('completions');
  immutable('selector');
  // The template is immutable, but for scheduling directives of a suspended job that never started.
  const oldStatus = (old['status'] ?? {}) as Obj;
  const mutableScheduling = oldSpec['suspend'] === true && (oldStatus['startTime'] === undefined || oldStatus['startTime'] === null);
  const view = (t: unknown): Obj => {
    const copy = structuredClone((t ?? {}) as Obj);
    if (mutableScheduling) {
      const ts = objAt(copy, 'spec');
      const meta = objAt(copy, 'metadata');
      const aff = ts['affinity'] as Obj | undefined;
      if (aff) delete aff['nodeAffinity'];
      if (aff && Object.keys(aff).length === 0) delete ts['affinity'];
      for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) delete ts[k];
      delete meta['annotations'];
      delete meta['labels'];
    }
    return copy;
  };
  if (!jsonEqual(view(spec['template']), view(oldSpec['template']))) errs.push(fieldErrors.invalid(path.child('template'), templateValue, 'field is immutable'));
  for (const key of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) immutable(key);
  return errs;
}

/**
 * kube prints the whole template as Go's %#v (core.PodTemplateSpec{ObjectMeta:…}), hundreds of characters of Go
 * internals; the type name is kept and the fields are elided.
 */
const templateValue = new GoStructValue('core.PodTemplateSpec{...}');

/** Go's %#v of a metav1.LabelSelector (the pointer dereferenced), as kube prints a selector in field errors. */
export function goLabelSelector(sel: unknown): GoStructValue | null {
  if (!sel || typeof sel !== 'object') return null;
  const s = sel as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }> };
  const labels = s.matchLabels ? goStringMap(s.matchLabels) : 'map[string]string(nil)';
  const req = (r: { key?: string; operator?: string; values?: string[] }): string =>
    `v1.LabelSelectorRequirement{Key:${JSON.stringify(r.key ?? '')}, Operator:${JSON.stringify(r.operator ?? '')}, Values:${r.values ? `[]string{${r.values.map((v) => JSON.stringify(v)).join(', ')}}` : '[]string(nil)'}}`;
  const exprs = s.matchExpressions ? `[]v1.LabelSelectorRequirement{${s.matchExpressions.map(req).join(', ')}}` : '[]v1.LabelSelectorRequirement(nil)';
  return new GoStructValue(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}`);
}

/** WarningsOnCreate of the job and cronjob strategies: pod names and hostnames are made from the name. */
export function podNameWarnings(name: string | undefined): string[] {
  const msgs = isDNS1123Label(name ?? '');
  // Go's %v of a []string
  return msgs.length ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`] : [];
}

export const jobStrategy: Strategy = {
  warningsOnCreate: (obj) => podNameWarnings(obj.metadata?.name),
  applyDefaults(obj) {
    const job = obj as Obj;
    const spec = objAt(job, 'spec');
    defaultJobSpec(spec);
    // JobStatus is a struct of omitempty fields: kube always serializes it, as {} at first
    objAt(job, 'status');
    // SetDefaults_Job: a job without labels takes its template's
    const labels = templateLabels(spec);
    const meta = objAt(job, 'metadata');
    if (Object.keys(labels).length > 0 && Object.keys((meta['labels'] as Obj | undefined) ?? {}).length === 0) meta['labels'] = { ...labels };
    // PrepareForCreate's generateSelector runs on a job without resourceVersion (not stored yet); on updates the
    // stored selector and labels are kept as they are (and checked as immutable)
    if (meta['resourceVersion'] === undefined && spec['manualSelector'] !== true) generateSelector(job);
  },
  validate(obj) {
    return validateJob(obj, true);
  },
  validateUpdate(obj, old) {
    // kube requires the prefixed labels on update only from jobs that had them
    const oldLabels = templateLabels((old['spec'] ?? {}) as Obj);
    const requirePrefixed = jobNameLabel in oldLabels && controllerUidLabel in oldLabels;
    // the status part only fails on /status writes: a spec write keeps the stored status
    return validateJob(obj, requirePrefixed).concat(validateJobUpdate(obj, old), validateJobStatus(obj['status']));
  },
};
