// CustomResourceDefinitions end to end with the real kubectl: apply a CRD, wait for Established, then create,
// get, list, patch, scale and delete custom resources the way a webhook author does against a cluster.
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';
import { crontabCRD } from './fixtures.js';

const env = useApiServer({ storage: 'memory' });
const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);

function expectClean(r: { code: number | null; stdout: string; stderr: string }): void {
  if (r.code !== 0) throw new Error(`kubectl exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  expect(r.stderr).toBe('');
}


const cronTab = (name: string, spec: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: ${name}
  namespace: default
spec:
${spec}
`;

describe('a CRD applied with kubectl', () => {
  it('is created and becomes Established', async () => {
    let r = await k(['apply', '-f', '-'], crontabCRD);
    expectClean(r);
    expect(r.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    r = await k(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    expectClean(r);
    r = await k(['get', 'crd', 'crontabs.stable.example.com', '-o', 'json']);
    expectClean(r);
    const crd = JSON.parse(r.stdout);
    expect(crd.spec.names.listKind).toBe('CronTabList');
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
    expect(crd.status.storedVersions).toEqual(['v1']);
    expect(crd.status.acceptedNames).toEqual({ plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    const cond = (t: string) => crd.status.conditions.find((c: { type: string }) => c.type === t);
    expect(cond('NamesAccepted')).toMatchObject({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(cond('Established')).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  });

  it('lists CRDs with NAME and CREATED AT', async () => {
    const r = await k(['get', 'crds']);
    expectClean(r);
    expect(r.stdout).toMatch(/NAME\s+CREATED AT/);
    expect(r.stdout).toMatch(/crontabs\.stable\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  });

  it('creates a custom resource, with defaults and pruning visible on get', async () => {
    let r = await k(['apply', '-f', '-'], cronTab('nightly', '  cronSpec: "0 2 * * *"\n  image: busybox'));
    expectClean(r);
    expect(r.stdout).toContain('crontab.stable.example.com/nightly created');
    r = await k(['get', 'crontab', 'nightly', '-o', 'json']);
    expectClean(r);
    const obj = JSON.parse(r.stdout);
    expect(obj.spec).toEqual({ cronSpec: '0 2 * * *', image: 'busybox', replicas: 1 });
    expect(obj.metadata.generation).toBe(1);
  });

  it('warns about and drops unknown fields; Strict rejects them', async () => {
    let r = await k(['apply', '--validate=warn', '-f', '-'], cronTab('pruned', '  cronSpec: "* * * * *"\n  bogus: 1'));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('unknown field "spec.bogus"');
    r = await k(['get', 'ct', 'pruned', '-o', 'jsonpath={.spec}']);
    expect(JSON.parse(r.stdout)).toEqual({ cronSpec: '* * * * *', replicas: 1 });
    // kubectl's default --validate is strict
    r = await k(['create', '-f', '-'], cronTab('strict', '  cronSpec: "* * * * *"\n  bogus: 1'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.bogus"');
  });

  it('rejects schema violations with the causes kube-apiserver reports', async () => {
    const r = await k(['apply', '-f', '-'], cronTab('bad', '  cronSpec: "not a cron"\n  replicas: 20'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The CronTab "bad" is invalid');
    expect(r.stderr).toContain('spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10');
    expect(r.stderr).toContain('spec.cronSpec: Invalid value: "not a cron": spec.cronSpec in body should match');
  });

  it('gets by short name and category and prints the printer columns', async () => {
    let r = await k(['get', 'ct']);
    expectClean(r);
    expect(r.stdout).toMatch(/NAME\s+SPEC\s+REPLICAS\s+AGE/);
    expect(r.stdout).toMatch(/nightly\s+0 2 \* \* \*\s+1\s+\d+s/);
    r = await k(['get', 'all', '-n', 'default']);
    expectClean(r);
    expect(r.stdout).toContain('crontab.stable.example.com/nightly');
  });

  it('patches with merge and JSON patches; strategic merge patch is 415', async () => {
    let r = await k(['patch', 'crontab', 'nightly', '--type=merge', '-p', '{"spec":{"image":"alpine"}}']);
    expectClean(r);
    r = await k(['patch', 'crontab', 'nightly', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":2}]']);
    expectClean(r);
    r = await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.spec.image}/{.spec.replicas}/{.metadata.generation}']);
    expect(r.stdout).toBe('alpine/2/3');
    r = await k(['patch', 'crontab', 'nightly', '--type=strategic', '-p', '{"spec":{"image":"x"}}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json');
  });

  it('scales through the scale subresource and keeps status for /status', async () => {
    let r = await k(['scale', 'crontab', 'nightly', '--replicas=4']);
    expectClean(r);
    expect(r.stdout).toContain('crontab.stable.example.com/nightly scaled');
    r = await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.spec.replicas}']);
    expect(r.stdout).toBe('4');
    // the main resource ignores status; /status ignores everything else
    r = await k(['patch', 'crontab', 'nightly', '--type=merge', '-p', '{"status":{"replicas":3}}']);
    expectClean(r);
    r = await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.status}']);
    expect(r.stdout).toBe('');
    r = await k(['patch', 'crontab', 'nightly', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":3},"spec":{"image":"ignored"}}']);
    expectClean(r);
    r = await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.status.replicas}/{.spec.image}']);
    expect(r.stdout).toBe('3/alpine');
    r = await k(['get', 'crontab', 'nightly', '-o', 'jsonpath={.metadata.generation}']);
    expect(r.stdout).toBe('4');
  });

  it('deleting the CRD deletes its custom resources and stops serving them', async () => {
    let r = await k(['delete', 'crd', 'crontabs.stable.example.com']);
    expectClean(r);
    await eventually(async () => {
      const res = await env.server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com');
      expect(res.status).toBe(404);
    }, 15_000);
    const res = await env.server.request('/apis/stable.example.com/v1/namespaces/default/crontabs');
    expect(res.status).toBe(404);
    const groups = (await env.server.request('/apis')).json<{ groups: Array<{ name: string }> }>();
    expect(groups.groups.map((g) => g.name)).not.toContain('stable.example.com');
    // recreated, it serves an empty collection: the old objects are gone from storage
    r = await k(['apply', '-f', '-'], crontabCRD);
    expectClean(r);
    r = await k(['wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com']);
    expectClean(r);
    r = await k(['get', 'crontabs', '-A', '-o', 'name']);
    expectClean(r);
    expect(r.stdout).toBe('');
  });
});
