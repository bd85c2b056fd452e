// batch/v1 jobs and cronjobs as kube-apiserver serves them: SetDefaults_Job/SetDefaults_CronJob, the job
// strategy's generated selector and template labels, ValidateJob/ValidateCronJob with kube's texts (robfig/cron's
// schedule errors among them), the kubectl generators (`create job`, `create job --from=cronjob/…`,
// `create cronjob`) and the printed columns.
import { useApiServer } from '../../harness/jest.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';

const env = useApiServer({ storage: process.env['KAH_RESOURCES_STORAGE'] === 'etcd' ? 'etcd' : 'memory' });
const ns = 'batch-walk';

type Obj = Record<string, unknown>;
const podTemplate = (restartPolicy: string | undefined, labels?: Record<string, string>): Obj => ({
  ...(labels ? { metadata: { labels } } : {}),
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'main', image: 'busybox:1.36' }] },
});

const walks: ResourceWalk[] = [
  {
    group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true,
    object: () => ({ spec: { template: podTemplate('Never') } }),
    defaulted: [
      { path: 'spec.completions', value: 1 },
      { path: 'spec.parallelism', value: 1 },
      { path: 'spec.backoffLimit', value: 6 },
      { path: 'spec.completionMode', value: 'NonIndexed' },
      { path: 'spec.suspend', value: false },
      { path: 'spec.podReplacementPolicy', value: 'TerminatingOrFailed' },
      { path: 'spec.manualSelector', value: false },
      { path: 'spec.template.spec.containers.0.imagePullPolicy', value: 'IfNotPresent' },
      { path: 'spec.template.spec.dnsPolicy', value: 'ClusterFirst' },
    ],
    invalid: [
      {
        name: 'restartPolicy Always (the pod default) is refused',
        object: { spec: { template: podTemplate('Always') } },
        message: 'Job.batch "walk-job-invalid" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
        causes: [{ reason: 'FieldValueRequired', field: 'spec.template.spec.restartPolicy', message: 'Required value: valid values: "OnFailure", "Never"' }],
      },
      {
        name: 'negative backoffLimit and parallelism',
        object: { spec: { backoffLimit: -1, parallelism: -2, template: podTemplate('OnFailure') } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'spec.parallelism', message: 'Invalid value: -2: must be greater than or equal to 0' },
          { reason: 'FieldValueInvalid', field: 'spec.backoffLimit', message: 'Invalid value: -1: must be greater than or equal to 0' },
        ],
      },
      {
        name: 'an unknown completionMode',
        object: { spec: { completionMode: 'Sometimes', template: podTemplate('Never') } },
        causes: [{ reason: 'FieldValueNotSupported', field: 'spec.completionMode', message: 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"' }],
      },
      {
        name: 'a manual selector that does not match the template',
        object: { spec: { manualSelector: true, selector: { matchLabels: { app: 'a' } }, template: podTemplate('Never', { app: 'b' }) } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: 'Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`' }],
      },
    ],
  },
  {
    group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true,
    object: () => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } } }),
    defaulted: [
      { path: 'spec.concurrencyPolicy', value: 'Allow' },
      { path: 'spec.suspend', value: false },
      { path: 'spec.successfulJobsHistoryLimit', value: 3 },
      { path: 'spec.failedJobsHistoryLimit', value: 1 },
      { path: 'spec.jobTemplate.spec.template.spec.containers.0.terminationMessagePolicy', value: 'File' },
      // SetDefaults_Job is the Job's own: a jobTemplate keeps its counts unset
      { path: 'spec.jobTemplate.spec.backoffLimit', value: undefined },
    ],
    invalid: [
      {
        name: 'a minute out of range (robfig/cron)',
        object: { spec: { schedule: '61 * * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } } },
        message: 'CronJob.batch "walk-cronjob-invalid" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61',
      },
      {
        name: 'three fields instead of five',
        object: { spec: { schedule: '* * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.schedule', message: 'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]' }],
      },
      {
        name: 'a TZ in the schedule and an unknown timeZone',
        object: { spec: { schedule: 'TZ=UTC 0 * * * *', timeZone: 'Mars/Olympus', jobTemplate: { spec: { template: podTemplate('OnFailure') } } } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'spec.schedule', message: 'Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead' },
          { reason: 'FieldValueInvalid', field: 'spec.timeZone', message: 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' },
        ],
      },
      {
        name: 'a jobTemplate validated as a job, without a selector of its own',
        object: { spec: { schedule: '@hourly', concurrencyPolicy: 'Sometimes', jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: podTemplate('Always') } } } },
        causes: [
          { reason: 'FieldValueNotSupported', field: 'spec.concurrencyPolicy', message: 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"' },
          { reason: 'FieldValueRequired', field: 'spec.jobTemplate.spec.template.spec.restartPolicy', message: 'Required value: valid values: "OnFailure", "Never"' },
          {
            reason: 'FieldValueInvalid',
            field: 'spec.jobTemplate.spec.selector',
            message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
          },
        ],
      },
    ],
  },
];

describeResourceWalks(env, ns, walks);

const jobsPath = `/apis/batch/v1/namespaces/${ns}/jobs`;
const cronJobsPath = `/apis/batch/v1/namespaces/${ns}/cronjobs`;

describe('the job strategy', () => {
  it('generates the selector from the uid and labels the template as kube does (prefixed and legacy labels)', async () => {
    const res = await env.server.request(jobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'gen-selector' }, spec: { template: podTemplate('Never') } } });
    expect(res.status).toBe(201);
    const job = res.json<{ metadata: { uid: string; labels?: Record<string, string> }; spec: { selector: unknown; template: { metadata: { labels: Record<string, string> } } } }>();
    const uid = job.metadata.uid;
    expect(job.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(job.spec.template.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': 'gen-selector',
      'controller-uid': uid,
      'job-name': 'gen-selector',
    });
    // SetDefaults_Job: a job without labels takes its template's
    expect(job.metadata.labels).toEqual(job.spec.template.metadata.labels);
  });

  it('keeps the selector and the template immutable, and resets status on spec writes', async () => {
    const created = await env.server.request(jobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'immutable' }, spec: { template: podTemplate('Never') }, status: { active: 3 } } });
    expect(created.status).toBe(201);
    expect(created.json<Obj>()['status']).toEqual({});
    const patchSelector = await env.server.request(`${jobsPath}/immutable`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { spec: { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } } } },
    });
    expect(patchSelector.status).toBe(422);
    const causes = patchSelector.json<{ details: { causes: Array<{ field: string; message: string }> } }>().details.causes;
    expect(causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.selector',
      message: 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    });
    const patchImage = await env.server.request(`${jobsPath}/immutable`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: { spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] } } } },
    });
    expect(patchImage.status).toBe(422);
    expect(patchImage.json<{ details: { causes: Array<{ field: string; message: string }> } }>().details.causes.map((c) => [c.field, c.message])).toContainEqual(['spec.template', 'Invalid value: core.PodTemplateSpec{...}: field is immutable']);
    // status goes through /status only; generation counts spec changes
    const status = await env.server.request(`${jobsPath}/immutable/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { active: 1 } } });
    expect([status.status, status.json<{ status: Obj; metadata: { generation: number } }>().status, status.json<{ metadata: { generation: number } }>().metadata.generation]).toEqual([200, { active: 1 }, 1]);
    const negative = await env.server.request(`${jobsPath}/immutable/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { failed: -1 } } });
    expect([negative.status, negative.json<{ message: string }>().message]).toEqual([422, 'Job.batch "immutable" is invalid: status.failed: Invalid value: -1: must be greater than or equal to 0']);
    const suspend = await env.server.request(`${jobsPath}/immutable`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { suspend: true }, status: { active: 7 } } });
    expect([suspend.status, suspend.json<{ status: Obj }>().status, suspend.json<{ metadata: { generation: number } }>().metadata.generation]).toEqual([200, { active: 1 }, 2]);
  });

  it('selects jobs by status.successful, the one field kube adds for jobs', async () => {
    await env.server.request(jobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'succeeded' }, spec: { template: podTemplate('Never') } } });
    const done = await env.server.request(`${jobsPath}/succeeded/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { status: { succeeded: 1 } } });
    expect(done.status).toBe(200);
    const names = async (selector: string) => (await env.server.request(`${jobsPath}?fieldSelector=${encodeURIComponent(selector)}`)).json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name);
    expect(await names('status.successful=1')).toEqual(['succeeded']);
    expect(await names('status.successful=0,metadata.name=succeeded')).toEqual([]);
    const bad = await env.server.request(`${jobsPath}?fieldSelector=status.succeeded%3D1`);
    expect([bad.status, bad.json<{ message: string }>().message]).toEqual([400, 'field label "status.succeeded" not supported for batchv1.Job']);
  });

  it('warns on create when the name is no DNS label (pods and hostnames are made from it)', async () => {
    const res = await env.server.request(jobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'dotted.name' }, spec: { template: podTemplate('Never') } } });
    expect(res.status).toBe(201);
    expect(String(res.headers['warning'])).toBe(
      `299 - "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"`,
    );
  });

  it('refuses an Indexed job whose last pod name would be no DNS label', async () => {
    const name = 'x'.repeat(62);
    const res = await env.server.request(jobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { completionMode: 'Indexed', completions: 10, template: podTemplate('Never') } } });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([422, `Job.batch "${name}" is invalid: metadata.name: Invalid value: "${name}": will not able to create pod with invalid DNS label: ${name}-9`]);
  });

  it('refuses a cronjob name longer than 52 characters (the controller appends 11)', async () => {
    const name = 'c'.repeat(53);
    const res = await env.server.request(cronJobsPath, { method: 'POST', body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '@daily', jobTemplate: { spec: { template: podTemplate('Never') } } } } });
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toBe(`CronJob.batch "${name}" is invalid: metadata.name: Invalid value: "${name}": must be no more than 52 characters`);
  });
});

describe('kubectl', () => {
  const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, ['-n', ns, ...args], input);

  it('creates a job with `kubectl create job` and prints kube\'s job columns', async () => {
    const create = await k(['create', 'job', 'kjob', '--image=busybox:1.36', '--', 'true']);
    expect([create.code, create.stderr, create.stdout.trim()]).toEqual([0, '', 'job.batch/kjob created']);
    const got = JSON.parse((await k(['get', 'job', 'kjob', '-o', 'json'])).stdout) as { metadata: { uid: string }; spec: { selector: unknown; template: { spec: { restartPolicy: string } } } };
    expect(got.spec.template.spec.restartPolicy).toBe('Never');
    expect(got.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': got.metadata.uid } });
    const table = await k(['get', 'jobs', 'kjob']);
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(row!.split(/\s{2,}/).slice(0, 3)).toEqual(['kjob', 'Running', '0/1']);
    const wide = await k(['get', 'jobs', 'kjob', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]!.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(wide.stdout).toContain(`batch.kubernetes.io/controller-uid=${got.metadata.uid}`);
  });

  it('creates a cronjob with `kubectl create cronjob`, a job from it with --from=cronjob/…, and lists both in `get all`', async () => {
    const create = await k(['create', 'cronjob', 'kcron', '--image=busybox:1.36', '--schedule=*/10 * * * *']);
    expect([create.code, create.stderr, create.stdout.trim()]).toEqual([0, '', 'cronjob.batch/kcron created']);
    const table = await k(['get', 'cj', 'kcron']);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    expect(row!.split(/\s{2,}/).slice(0, 6)).toEqual(['kcron', '*/10 * * * *', '<none>', 'False', '0', '<none>']);

    const fromCron = await k(['create', 'job', 'kcron-manual', '--from=cronjob/kcron']);
    expect([fromCron.code, fromCron.stderr, fromCron.stdout.trim()]).toEqual([0, '', 'job.batch/kcron-manual created']);
    const job = JSON.parse((await k(['get', 'job', 'kcron-manual', '-o', 'json'])).stdout) as { metadata: { annotations: Record<string, string>; ownerReferences: Array<{ kind: string; name: string }> }; spec: { template: { spec: { restartPolicy: string } } } };
    expect(job.metadata.annotations['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(job.metadata.ownerReferences.map((o) => [o.kind, o.name])).toEqual([['CronJob', 'kcron']]);
    expect(job.spec.template.spec.restartPolicy).toBe('OnFailure');

    const all = await k(['get', 'all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('job.batch/kcron-manual');
    expect(all.stdout).toContain('cronjob.batch/kcron');
  });

  it('prints kube\'s text for an invalid schedule from `kubectl create cronjob`', async () => {
    const create = await k(['create', 'cronjob', 'bad-cron', '--image=busybox:1.36', '--schedule=* * * * * *']);
    expect(create.code).toBe(1);
    expect(create.stderr.trim()).toBe('error: failed to create cronjob: CronJob.batch "bad-cron" is invalid: spec.schedule: Invalid value: "* * * * * *": expected exactly 5 fields, found 6: [* * * * * *]');
  });
});
