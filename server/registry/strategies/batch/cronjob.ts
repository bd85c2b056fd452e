// CronJobs: kube's SetDefaults_CronJob (pkg/apis/batch/v1/defaults.go, plus SetDefaults_Job's spec part on the
// jobTemplate, as the generated defaulters apply it) and the core of ValidateCronJobCreate/Update
// (pkg/apis/batch/validation/validation.go): schedule (robfig/cron's parse errors), timeZone, concurrencyPolicy,
// history limits and the jobTemplate validated as a Job's spec.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { cronScheduleError, isKnownTimeZone } from './cron-schedule.js';
import { defaultJobSpecTypes, goLabelSelector, podNameWarnings, validateJobSpecCommon } from './job.js';

// https://data.iana.org/time-zones/theory.html#naming, with 0-9 and + tolerated for legacy names
const validTimeZoneCharacters = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(tz: unknown, path: FieldPath): FieldError[] {
  if (tz === undefined || tz === null) return [];
  const zone = String(tz);
  if (zone.length === 0) return [fieldErrors.invalid(path, zone, 'timeZone must be nil or non-empty string')];
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !validTimeZoneCharacters.test(part)) return [fieldErrors.invalid(path, zone, `unknown time zone ${zone}`)];
  }
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === 'local') errs.push(fieldErrors.invalid(path, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  // time.LoadLocation("Local") succeeds in Go; other unknown names fail with this text
  else if (!isKnownTimeZone(zone)) errs.push(fieldErrors.invalid(path, zone, `unknown time zone ${zone}`));
  return errs;
}

function validateCronJobSpec(specValue: unknown, oldSpecValue: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (specValue ?? {}) as Obj;
  const oldSpec = oldSpecValue as Obj | undefined;
  const schedule = typeof spec['schedule'] === 'string' ? spec['schedule'] : '';
  if (schedule.length === 0) errs.push(fieldErrors.required(path.child('schedule')));
  else {
    const err = cronScheduleError(schedule);
    if (err) errs.push(fieldErrors.invalid(path.child('schedule'), schedule, err));
    // TZ in a schedule is only kept on objects that already had it
    const allowTZ = oldSpec !== undefined && String(oldSpec['schedule'] ?? '').includes('TZ');
    if (allowTZ && schedule.includes('TZ') && spec['timeZone'] !== undefined && spec['timeZone'] !== null) {
      errs.push(fieldErrors.invalid(path.child('schedule'), schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ && schedule.includes('TZ')) {
      errs.push(fieldErrors.invalid(path.child('schedule'), schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  const sds = spec['startingDeadlineSeconds'];
  if (typeof sds === 'number' && sds < 0) errs.push(fieldErrors.invalid(path.child('startingDeadlineSeconds'), sds, 'must be greater than or equal to 0'));
  if (oldSpec === undefined || (oldSpec['timeZone'] ?? null) !== (spec['timeZone'] ?? null)) errs.push(...validateTimeZone(spec['timeZone'], path.child('timeZone')));
  const cp = spec['concurrencyPolicy'];
  if (cp === undefined || cp === null || cp === '') errs.push(fieldErrors.required(path.child('concurrencyPolicy')));
  else if (!['Allow', 'Forbid', 'Replace'].includes(String(cp))) errs.push(fieldErrors.notSupported(path.child('concurrencyPolicy'), cp, ['Allow', 'Forbid', 'Replace']));
  // ValidateJobTemplateSpec: a job's spec, with a selector kube generates for each job
  const tpath = path.child('jobTemplate');
  const jobSpec = (((spec['jobTemplate'] ?? {}) as Obj)['spec'] ?? {}) as Obj;
  errs.push(...validateJobSpecCommon(jobSpec, tpath.child('spec')));
  if (jobSpec['selector'] !== undefined && jobSpec['selector'] !== null) errs.push(fieldErrors.invalid(tpath.child('spec', 'selector'), goLabelSelector(jobSpec['selector']), '`selector` will be auto-generated'));
  if (jobSpec['manualSelector'] === true) errs.push(fieldErrors.notSupported(tpath.child('spec', 'manualSelector'), true, ['nil', 'false']));
  for (const key of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    const v = spec[key];
    if (typeof v === 'number' && v < 0) errs.push(fieldErrors.invalid(path.child(key), v, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const cronJobStrategy: Strategy = {
  warningsOnCreate: (obj) => podNameWarnings(obj.metadata?.name),
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'concurrencyPolicy', 'Allow');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'successfulJobsHistoryLimit', 3);
    setDefault(spec, 'failedJobsHistoryLimit', 1);
    // CronJobStatus is a struct of omitempty fields: kube always serializes it, as {} at first
    objAt(obj as Obj, 'status');
    // SetDefaults_Job is the Job's: a jobTemplate gets only the defaults of the types inside it (pod spec, …)
    defaultJobSpecTypes(objAt(objAt(spec, 'jobTemplate'), 'spec'));
  },
  validate(obj: KubeObject) {
    const errs = validateCronJobSpec(obj['spec'], undefined, FieldPath.root('spec'));
    // the controller names jobs <cronjob>-<11 chars>, and job names are DNS-1035 labels of at most 63
    const name = obj.metadata?.name ?? '';
    if (name.length > 52) errs.push(fieldErrors.invalid(FieldPath.root('metadata', 'name'), name, 'must be no more than 52 characters'));
    return errs;
  },
  validateUpdate(obj, old) {
    return validateCronJobSpec(obj['spec'], old['spec'] ?? {}, FieldPath.root('spec'));
  },
};
