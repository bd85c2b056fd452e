// Issue #15's acceptance test for workloads: the "no privileged containers" ValidatingAdmissionPolicy a policy
// author writes for a real cluster (one `variables` entry selecting the pod spec of every workload kind), bound
// with Deny, Warn and Audit, exercised through the real server with kubectl apply of real manifests and with
// client-node. Texts are kube's (staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go:
// "ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s" under the "%s \"%s\" is forbidden: " of
// apierrors.NewForbidden/NewInvalid; "Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s" for
// Warn; the validation.policy.admission.k8s.io/validation_failure audit annotation for Audit).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { useApiServer } from '../../harness/jest.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';
import { kubectl } from '../support/kubectl.js';

type Obj = Record<string, unknown>;

const policyName = 'no-privileged';
const message = 'privileged containers are not allowed';

/** The policy as an author writes it; the bindings choose the action per namespace (label policy-mode). */
const policyManifest = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${policyName}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments", "replicasets", "statefulsets", "daemonsets"]
    - apiGroups: ["batch"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["jobs", "cronjobs"]
  variables:
  - name: podSpec
    expression: >-
      object.kind == 'Pod' ? object.spec :
      object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec :
      object.spec.template.spec
  - name: containers
    expression: >-
      variables.podSpec.containers +
      (has(variables.podSpec.initContainers) ? variables.podSpec.initContainers : []) +
      (has(variables.podSpec.ephemeralContainers) ? variables.podSpec.ephemeralContainers : [])
  validations:
  - expression: >-
      variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) ||
      !c.securityContext.privileged)
    message: ${message}
  auditAnnotations:
  - key: privileged
    valueExpression: "string(variables.containers.exists(c, has(c.securityContext) && has(c.securityContext.privileged) && c.securityContext.privileged))"
`;

const bindingManifest = (name: string, mode: string, action: string) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policyName}
  validationActions: [${action}]
  matchResources:
    namespaceSelector:
      matchLabels:
        policy-mode: ${mode}
`;

/** Where the privileged container sits: every kind's pod spec, in containers or initContainers. */
function podSpec(privileged: boolean, where: 'containers' | 'initContainers', restartPolicy?: string): Obj {
  const sc = privileged ? { securityContext: { privileged: true } } : { securityContext: { privileged: false } };
  const app = { name: 'app', image: 'nginx:1.27' };
  const init = { name: 'init', image: 'busybox:1.36' };
  return {
    ...(restartPolicy ? { restartPolicy } : {}),
    containers: [where === 'containers' ? { ...app, ...sc } : app],
    ...(where === 'initContainers' ? { initContainers: [{ ...init, ...sc }] } : {}),
  };
}

const template = (name: string, spec: Obj): Obj => ({ metadata: { labels: { app: name } }, spec });

interface Kind {
  kind: string;
  apiVersion: string;
  /** resource.group as kube names it in a Status message */
  qualified: string;
  object(name: string, privileged: boolean): Obj;
}

const kinds: Kind[] = [
  { kind: 'Pod', apiVersion: 'v1', qualified: 'pods', object: (_n, p) => ({ spec: podSpec(p, 'containers') }) },
  {
    kind: 'Deployment', apiVersion: 'apps/v1', qualified: 'deployments.apps',
    object: (n, p) => ({ spec: { selector: { matchLabels: { app: n } }, template: template(n, podSpec(p, 'containers')) } }),
  },
  {
    kind: 'ReplicaSet', apiVersion: 'apps/v1', qualified: 'replicasets.apps',
    object: (n, p) => ({ spec: { selector: { matchLabels: { app: n } }, template: template(n, podSpec(p, 'initContainers')) } }),
  },
  {
    kind: 'StatefulSet', apiVersion: 'apps/v1', qualified: 'statefulsets.apps',
    object: (n, p) => ({ spec: { serviceName: n, selector: { matchLabels: { app: n } }, template: template(n, podSpec(p, 'containers')) } }),
  },
  {
    kind: 'DaemonSet', apiVersion: 'apps/v1', qualified: 'daemonsets.apps',
    object: (n, p) => ({ spec: { selector: { matchLabels: { app: n } }, template: template(n, podSpec(p, 'initContainers')) } }),
  },
  { kind: 'Job', apiVersion: 'batch/v1', qualified: 'jobs.batch', object: (_n, p) => ({ spec: { template: { spec: podSpec(p, 'containers', 'Never') } } }) },
  {
    kind: 'CronJob', apiVersion: 'batch/v1', qualified: 'cronjobs.batch',
    object: (_n, p) => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec(p, 'initContainers', 'OnFailure') } } } } }),
  },
];

const nameOf = (k: Kind, privileged: boolean) => `${k.kind.toLowerCase()}-${privileged ? 'priv' : 'plain'}`;
const manifest = (k: Kind, name: string, privileged: boolean): Obj => ({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name }, ...k.object(name, privileged) });
/** JSON is YAML: a multi-document YAML manifest of JSON documents (a leading --- so kubectl reads it as YAML). */
const stream = (objs: Obj[]) => objs.map((o) => `---\n${JSON.stringify(o)}`).join('\n');

const denial = (k: Kind, name: string, binding: string) =>
  `${k.qualified} "${name}" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${binding}' denied request: ${message}`;

/** client-node: create/get/replace of each kind through its typed API. */
function clients(env: ReturnType<typeof useApiServer>) {
  const core = env.client(CoreV1Api);
  const apps = env.client(AppsV1Api);
  const batch = env.client(BatchV1Api);
  // the generated methods take their own model types; the manifests here are those shapes as plain JSON
  type Body = never;
  const by: Record<string, { create(ns: string, body: Obj): Promise<unknown>; read(ns: string, name: string): Promise<Obj>; replace(ns: string, name: string, body: Obj): Promise<unknown> }> = {
    Pod: {
      create: (namespace, body) => core.createNamespacedPod({ namespace, body: body as Body }),
      read: async (namespace, name) => (await core.readNamespacedPod({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => core.replaceNamespacedPod({ namespace, name, body: body as Body }),
    },
    Deployment: {
      create: (namespace, body) => apps.createNamespacedDeployment({ namespace, body: body as Body }),
      read: async (namespace, name) => (await apps.readNamespacedDeployment({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => apps.replaceNamespacedDeployment({ namespace, name, body: body as Body }),
    },
    ReplicaSet: {
      create: (namespace, body) => apps.createNamespacedReplicaSet({ namespace, body: body as Body }),
      read: async (namespace, name) => (await apps.readNamespacedReplicaSet({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => apps.replaceNamespacedReplicaSet({ namespace, name, body: body as Body }),
    },
    StatefulSet: {
      create: (namespace, body) => apps.createNamespacedStatefulSet({ namespace, body: body as Body }),
      read: async (namespace, name) => (await apps.readNamespacedStatefulSet({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => apps.replaceNamespacedStatefulSet({ namespace, name, body: body as Body }),
    },
    DaemonSet: {
      create: (namespace, body) => apps.createNamespacedDaemonSet({ namespace, body: body as Body }),
      read: async (namespace, name) => (await apps.readNamespacedDaemonSet({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => apps.replaceNamespacedDaemonSet({ namespace, name, body: body as Body }),
    },
    Job: {
      create: (namespace, body) => batch.createNamespacedJob({ namespace, body: body as Body }),
      read: async (namespace, name) => (await batch.readNamespacedJob({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => batch.replaceNamespacedJob({ namespace, name, body: body as Body }),
    },
    CronJob: {
      create: (namespace, body) => batch.createNamespacedCronJob({ namespace, body: body as Body }),
      read: async (namespace, name) => (await batch.readNamespacedCronJob({ namespace, name })) as unknown as Obj,
      replace: (namespace, name, body) => batch.replaceNamespacedCronJob({ namespace, name, body: body as Body }),
    },
  };
  return by;
}

/** The Status body of a client-node failure (ApiException carries the HTTP code and the raw body). */
async function failure(p: Promise<unknown>): Promise<{ code: number; status: Obj }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err === undefined) throw new Error('expected the request to fail, it succeeded');
  const e = err as { code?: number; body?: string };
  return { code: e.code ?? 0, status: JSON.parse(e.body ?? '{}') as Obj };
}

/** client-node parses the returned object into its model classes; back to the wire JSON for editing. */
const plain = (o: Obj): Obj => JSON.parse(JSON.stringify(o)) as Obj;

/** Sets securityContext.privileged on the first container of the kind's pod spec (a user's edit). */
function makePrivileged(kind: string, obj: Obj): Obj {
  const o = plain(obj);
  const spec = o['spec'] as Obj;
  const pod = (kind === 'Pod' ? spec : kind === 'CronJob' ? (((spec['jobTemplate'] as Obj)['spec'] as Obj)['template'] as Obj)['spec'] : (spec['template'] as Obj)['spec']) as Obj;
  const c = (pod['containers'] as Obj[])[0]!;
  c['securityContext'] = { ...((c['securityContext'] as Obj | undefined) ?? {}), privileged: true };
  return o;
}

describe.each([['memory'], ['etcd']] as const)('a no-privileged ValidatingAdmissionPolicy on every workload kind (%s storage)', (storage) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kah-vap-workloads-'));
  const auditLog = path.join(dir, 'audit.log');
  const env = useApiServer({ storage: storage === 'etcd' ? 'etcd3' : 'memory', flags: [`--audit-log-path=${auditLog}`] });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const k = (args: string[], input?: string) => kubectl(env.server.kubeconfigPath, args, input);
  const ns = { deny: `vap-deny-${storage}`, warn: `vap-warn-${storage}`, audit: `vap-audit-${storage}` };

  beforeAll(async () => {
    const namespaces = Object.entries(ns).map(([mode, name]) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'policy-mode': mode } } }));
    const setup = await k(['apply', '-f', '-'], [
      stream(namespaces),
      policyManifest,
      bindingManifest('no-privileged-binding', 'deny', 'Deny'),
      bindingManifest('no-privileged-warn', 'warn', 'Warn'),
      bindingManifest('no-privileged-audit', 'audit', 'Audit'),
    ].join('\n---\n'));
    if (setup.code !== 0) throw new Error(`kubectl apply of the policy: ${setup.stderr}`);
  }, 30_000);

  it('type-checks the policy against all seven kinds without warnings', async () => {
    const status = await eventually(async () => {
      const r = await api(env.server, 'GET', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${policyName}`);
      const s = r.json['status'] as { observedGeneration?: number; typeChecking?: { expressionWarnings?: unknown[] } } | undefined;
      expect(s?.observedGeneration).toBe(1);
      expect(s?.typeChecking).toBeDefined();
      return s!;
    });
    expect(status.typeChecking!.expressionWarnings ?? []).toEqual([]);
  });

  it('knows the seven kinds\' schemas: a field one kind lacks is reported for exactly those kinds', async () => {
    const name = `${policyName}-replicas-${storage}`;
    const created = await api(env.server, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
      spec: { matchConstraints: { resourceRules: (policyManifestRules()) }, validations: [{ expression: 'object.spec.replicas >= 0' }] },
    });
    expect(created.status).toBe(201);
    const warnings = await eventually(async () => {
      const s = (await api(env.server, 'GET', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`)).json['status'] as { typeChecking?: { expressionWarnings?: unknown[] } } | undefined;
      expect(s?.typeChecking).toBeDefined();
      return s!.typeChecking!.expressionWarnings;
    });
    const undefinedReplicas = (gvk: string) => `${gvk}: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas >= 0\n | ...........^\n`;
    // Deployment, ReplicaSet and StatefulSet have spec.replicas; sorted by group, version, kind as kube sorts them
    expect(warnings).toEqual([
      { fieldRef: 'spec.validations[0].expression', warning: ['/v1, Kind=Pod', 'apps/v1, Kind=DaemonSet', 'batch/v1, Kind=CronJob', 'batch/v1, Kind=Job'].map(undefinedReplicas).join('\n') },
    ]);
    expect((await api(env.server, 'DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`)).status).toBe(200);
  });

  it('denies a privileged object of each kind applied with kubectl, with kube\'s message', async () => {
    const r = await k(['apply', '-n', ns.deny, '-f', '-'], stream(kinds.map((kd) => manifest(kd, nameOf(kd, true), true))));
    expect(r.code).not.toBe(0);
    for (const kd of kinds) {
      expect(r.stderr).toContain(`Error from server (Invalid): error when creating "STDIN": ${denial(kd, nameOf(kd, true), 'no-privileged-binding')}\n`);
    }
    // nothing was stored
    const got = await k(['get', '-n', ns.deny, 'pods,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs', '-o', 'name']);
    expect([got.code, got.stdout]).toEqual([0, '']);
  });

  it('denies a privileged object of each kind created with client-node, as a 422 Invalid Status', async () => {
    const by = clients(env);
    for (const kd of kinds) {
      const name = `${nameOf(kd, true)}-client`;
      const { code, status } = await failure(by[kd.kind]!.create(ns.deny, manifest(kd, name, true)));
      expect([kd.kind, code]).toEqual([kd.kind, 422]);
      expect(status).toMatchObject({
        kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422,
        message: denial(kd, name, 'no-privileged-binding'),
        details: { name, ...(kd.apiVersion === 'v1' ? {} : { group: kd.apiVersion.split('/')[0] }), kind: kd.qualified.split('.')[0], causes: [{ message: `ValidatingAdmissionPolicy '${policyName}' with binding 'no-privileged-binding' denied request: ${message}` }] },
      });
    }
  });

  it('admits the unprivileged object of each kind, and denies the update that makes it privileged', async () => {
    const plainObjs = kinds.map((kd) => manifest(kd, nameOf(kd, false), false));
    const applied = await k(['apply', '-n', ns.deny, '-f', '-'], stream(plainObjs));
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    for (const kd of kinds) expect(applied.stdout).toContain(`${kd.qualified.replace(/^pods$/, 'pod').replace(/s(\.|$)/, '$1')}/${nameOf(kd, false)} created`);

    const by = clients(env);
    for (const kd of kinds) {
      const name = nameOf(kd, false);
      const current = await by[kd.kind]!.read(ns.deny, name);
      const { code, status } = await failure(by[kd.kind]!.replace(ns.deny, name, makePrivileged(kd.kind, current)));
      // kube validates an update before validating admission, and a pod's containers and a job's template are
      // immutable (ValidatePodUpdate, ValidateJobSpecUpdate): those edits never reach the policy
      if (kd.kind === 'Pod') {
        expect([code, status['reason']]).toEqual([422, 'Invalid']);
        expect(String(status['message'])).toContain(`Pod "${name}" is invalid: spec: Forbidden: pod updates may not change fields other than`);
        continue;
      }
      if (kd.kind === 'Job') {
        expect([code, status['message']]).toEqual([422, `Job.batch "${name}" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable`]);
        continue;
      }
      expect([kd.kind, code, status['message']]).toEqual([kd.kind, 422, denial(kd, name, 'no-privileged-binding')]);
    }

    // kubectl apply of the privileged manifest over the admitted object: a patch, denied the same way
    const mutable = kinds.filter((kd) => kd.kind !== 'Pod' && kd.kind !== 'Job');
    const reapplied = await k(['apply', '-n', ns.deny, '-f', '-'], stream(mutable.map((kd) => manifest(kd, nameOf(kd, false), true))));
    expect(reapplied.code).not.toBe(0);
    for (const kd of mutable) expect(reapplied.stderr).toContain(denial(kd, nameOf(kd, false), 'no-privileged-binding'));
  });

  it('refuses a privileged ephemeral container by validation where kube does, and by the policy in a StatefulSet template', async () => {
    // kube's ValidatePodCreate and ValidatePodTemplateSpec refuse ephemeral containers before admission runs; a
    // StatefulSet's template pod spec is not validated (ValidatePodTemplateSpecForStatefulSet), so only the policy's
    // ephemeralContainers check stands between it and the cluster
    const ephemeral = { name: 'debug', image: 'busybox:1.36', securityContext: { privileged: true } };
    const invalid: Record<string, string> = {
      Pod: 'Pod "{name}" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create',
      Deployment: 'Deployment.apps "{name}" is invalid: spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      ReplicaSet: 'ReplicaSet.apps "{name}" is invalid: spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      DaemonSet: 'DaemonSet.apps "{name}" is invalid: spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      Job: 'Job.batch "{name}" is invalid: spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
      CronJob: 'CronJob.batch "{name}" is invalid: spec.jobTemplate.spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    };
    for (const kd of kinds) {
      const name = `${kd.kind.toLowerCase()}-ephemeral`;
      const obj = manifest(kd, name, false);
      const spec = obj['spec'] as Obj;
      const pod = (kd.kind === 'Pod' ? spec : kd.kind === 'CronJob' ? (((spec['jobTemplate'] as Obj)['spec'] as Obj)['template'] as Obj)['spec'] : (spec['template'] as Obj)['spec']) as Obj;
      pod['ephemeralContainers'] = [ephemeral];
      const res = await api(env.server, 'POST', restPath(kd, ns.deny), obj);
      const expected = kd.kind === 'StatefulSet' ? denial(kd, name, 'no-privileged-binding') : invalid[kd.kind]!.replace('{name}', name);
      expect([kd.kind, res.status, res.json['message']]).toEqual([kd.kind, 422, expected]);
    }
  });

  it('admits each privileged kind with the binding\'s warning when validationActions is [Warn]', async () => {
    const r = await k(['apply', '-n', ns.warn, '-f', '-'], stream(kinds.map((kd) => manifest(kd, nameOf(kd, true), true))));
    expect(r.code).toBe(0);
    const warning = `Warning: Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding 'no-privileged-warn': ${message}`;
    // kubectl prints a warning text once per invocation (its WarningWriter deduplicates); the API sends it per request
    expect(r.stderr).toBe(`${warning}\n`);
    for (const kd of kinds) expect(r.stdout).toContain(`/${nameOf(kd, true)} created`);

    const by = clients(env);
    for (const kd of kinds) {
      const name = `${nameOf(kd, true)}-client`;
      const res = await api(env.server, 'POST', restPath(kd, ns.warn), manifest(kd, name, true));
      expect([kd.kind, res.status, res.warnings]).toEqual([kd.kind, 201, [warning.replace(/^Warning: /, '')]]);
      expect((await by[kd.kind]!.read(ns.warn, name))['metadata']).toMatchObject({ name });
    }
  });

  it('admits each privileged kind and writes the audit annotations when validationActions is [Audit]', async () => {
    const r = await k(['apply', '-n', ns.audit, '-f', '-'], stream(kinds.map((kd) => manifest(kd, nameOf(kd, true), true))));
    expect([r.code, r.stderr]).toEqual([0, '']);
    await eventually(() => {
      expect(existsSync(auditLog)).toBe(true);
      const events = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { verb: string; stage: string; objectRef?: { namespace?: string; resource?: string; apiGroup?: string }; annotations?: Record<string, string> });
      for (const kd of kinds) {
        const resource = kd.qualified.split('.')[0];
        const ev = events.find((e) => e.verb === 'create' && e.stage === 'ResponseComplete' && e.objectRef?.namespace === ns.audit && e.objectRef?.resource === resource);
        expect([kd.kind, JSON.parse(ev?.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? 'null')]).toEqual([
          kd.kind,
          [{ message, policy: policyName, binding: 'no-privileged-audit', expressionIndex: 0, validationActions: ['Audit'] }],
        ]);
        expect([kd.kind, ev?.annotations?.[`${policyName}/privileged`]]).toEqual([kd.kind, 'true']);
      }
    });
  });
});

/** The policy's resourceRules, as the manifest above lists them. */
function policyManifestRules(): Obj[] {
  return [
    { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets'] },
    { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['jobs', 'cronjobs'] },
  ];
}

function restPath(k: Kind, ns: string): string {
  const [resource, group] = [k.qualified.split('.')[0], k.qualified.split('.').slice(1).join('.')];
  return group ? `/apis/${group}/v1/namespaces/${ns}/${resource}` : `/api/v1/namespaces/${ns}/${resource}`;
}

