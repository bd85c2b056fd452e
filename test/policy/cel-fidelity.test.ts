// ValidatingAdmissionPolicy CEL behaviour of kube 1.36 through the HTTP API of a real server: the base environment's
// compile-time checks (cel-go validators, regex constants), its library set (the lists extension at version 3), a
// null `params` (a paramKind policy bound without paramRef), and the validation_failure audit annotation for both
// policy sources (REST and static manifests).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { api, freshNamespace } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let server: ApiServerHandle;
let dir: string;

const group = 'admissionregistration.k8s.io';
const vapPath = `/apis/${group}/v1/validatingadmissionpolicies`;
const vapbPath = `/apis/${group}/v1/validatingadmissionpolicybindings`;
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const failureKey = 'validation.policy.admission.k8s.io/validation_failure';

/** A static policy auditing configmaps labeled static-audit=true (KEP-5793 manifests, bound with Audit only). */
const staticPolicy = {
  apiVersion: `${group}/v1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'audit-cm.static.k8s.io' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
      objectSelector: { matchLabels: { 'static-audit': 'true' } },
    },
    validations: [{ expression: "has(object.data) && 'owner' in object.data", message: 'configmaps need an owner' }],
  },
};
const staticBinding = {
  apiVersion: `${group}/v1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'audit-cm-binding.static.k8s.io' },
  spec: { policyName: 'audit-cm.static.k8s.io', validationActions: ['Audit'] },
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-cel-fidelity-'));
  const manifests = path.join(dir, 'vap');
  mkdirSync(manifests);
  writeFileSync(path.join(manifests, 'audit.yaml'), [staticPolicy, staticBinding].map((o) => stringify(o)).join('---\n'));
  server = await startApiServer({
    storage: 'memory',
    staticManifestDirs: { ValidatingAdmissionPolicy: manifests },
    flags: [`--audit-log-path=${path.join(dir, 'audit.log')}`],
  });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const unique = (base: string) => `${base}-${++counter}-${Date.now().toString(36)}`;

function policy(name: string, label: string, spec: Record<string, unknown>) {
  return {
    apiVersion: `${group}/v1`,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        namespaceSelector: { matchLabels: { [label]: 'true' } },
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
      },
      ...spec,
    },
  };
}

function binding(name: string, label: string, policyName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: `${group}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, matchResources: { namespaceSelector: { matchLabels: { [label]: 'true' } } }, validationActions: ['Deny'], ...spec },
  };
}

async function create(p: string, body: unknown): Promise<void> {
  const r = await api(server, 'POST', p, body);
  if (r.status !== 201) throw new Error(`POST ${p}: ${r.status} ${JSON.stringify(r.json)}`);
}

/** A namespace of its own with the policy and binding in force (the store reports its own writes to admission). */
async function withPolicy(spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}) {
  const label = unique('cel');
  const ns = await freshNamespace(server, { [label]: 'true' });
  const policyName = `${label}.policy.example.com`;
  const bindingName = `${label}.binding.example.com`;
  await create(vapPath, policy(policyName, label, spec));
  await create(vapbPath, binding(bindingName, label, policyName, bindingSpec));
  return { ns, policyName, bindingName };
}

const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data });

/** The audit event of the only configmap create in a namespace (a create's objectRef carries no name). */
function auditEvent(ns: string): Record<string, unknown> | undefined {
  const events = readFileSync(path.join(dir, 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown> & { objectRef?: Record<string, string>; stage?: string; verb?: string });
  return events.find((e) => e.verb === 'create' && e.stage === 'ResponseComplete' && e.objectRef?.namespace === ns && e.objectRef?.resource === 'configmaps');
}

describe('compile-time checks of the Kubernetes base environment on write', () => {
  // cel-go validator.go homogeneousAggregateLiteralValidator, enabled by kube since its CEL epoch
  it('refuses a heterogeneous list literal with the checker text at the expression field', async () => {
    const name = `${unique('hetero')}.example.com`;
    const r = await api(server, 'POST', vapPath, policy(name, 'x', { validations: [{ expression: "object.metadata.name in ['a', 1]" }] }));
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.validations[0].expression' }] } });
    expect(r.json['message']).toContain(
      "compilation failed: ERROR: <input>:1:31: expected type 'string' but found 'int'\n | object.metadata.name in ['a', 1]\n | ..............................^",
    );
  });

  // cel-go ValidateRegexLiterals (kube 1.29+): "invalid matches argument" at the pattern
  it('refuses a constant matches pattern that does not compile', async () => {
    const name = `${unique('matches')}.example.com`;
    const r = await api(server, 'POST', vapPath, policy(name, 'x', { validations: [{ expression: "object.metadata.name.matches('[a-z')" }] }));
    expect(r.status).toBe(422);
    expect(r.json['message']).toContain("compilation failed: ERROR: <input>:1:30: invalid matches argument\n | object.metadata.name.matches('[a-z')");
  });

  // kube's regex library FindRegexOptimization: env.Program fails, an ErrorTypeInternal the write validation
  // reports as field.InternalError
  it('refuses a constant find pattern that does not compile as an internal error of the field', async () => {
    const name = `${unique('find')}.example.com`;
    const r = await api(server, 'POST', vapPath, policy(name, 'x', { validations: [{ expression: "object.metadata.name.find('(a') == ''" }] }));
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ reason: 'InternalError', field: 'spec.validations[0].expression' }] } });
    expect(r.json['message']).toContain('spec.validations[0].expression: Internal error: program instantiation failed: error parsing regexp: missing closing ): `(a`');
  });
});

describe('the library set of kube 1.36 in policies', () => {
  it('evaluates the lists extension (sortBy, distinct, slice) and denies with its result', async () => {
    const { ns, policyName, bindingName } = await withPolicy({
      validations: [
        {
          expression: "!has(object.data) || object.data.map(k, k).sortBy(k, k).distinct().slice(0, 1) != ['a']",
          messageExpression: "'first key: ' + object.data.map(k, k).sortBy(k, k)[0]",
        },
      ],
    });
    expect((await api(server, 'POST', configMaps(ns), configMap('ok', { b: '1', c: '2' }))).status).toBe(201);
    const r = await api(server, 'POST', configMaps(ns), configMap('denied', { c: '1', a: '2' }));
    expect(r.status).toBe(422);
    expect(r.json['message']).toBe(`configmaps "denied" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: first key: a`);
  });
});

// kube condition_test.go "test deny paramKind without paramRef": a paramKind policy whose binding has no paramRef is
// evaluated with null params (policy_dispatcher.go "Validate with nil params")
describe('null params', () => {
  const paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };

  it('fails a field selection on null params with no such key, under failurePolicy Fail', async () => {
    const { ns, policyName, bindingName } = await withPolicy({ paramKind, validations: [{ expression: "params.data.max == '1'" }] });
    const r = await api(server, 'POST', configMaps(ns), configMap('selected'));
    expect(r.status).toBe(422);
    expect(r.json['message']).toBe(
      `configmaps "selected" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: expression 'params.data.max == '1'' resulted in error: no such key: data`,
    );
  });

  it('answers has() on null params with false rather than an error', async () => {
    const { ns, policyName, bindingName } = await withPolicy({
      paramKind,
      validations: [{ expression: 'params == null && !has(params.data)', message: 'params present' }],
    });
    expect((await api(server, 'POST', configMaps(ns), configMap('admitted'))).status).toBe(201);
    // the same policy with a paramRef sees the param, so the validation fails with its message
    const withParam = await api(server, 'POST', configMaps(ns), configMap('param', { max: '1' }));
    expect(withParam.status).toBe(201);
    await create(vapbPath, binding(`${bindingName}-2`, 'unused', policyName, { paramRef: { name: 'param', namespace: ns, parameterNotFoundAction: 'Deny' }, matchResources: {} }));
    const r = await api(server, 'POST', configMaps(ns), configMap('denied'));
    expect(r.status).toBe(422);
    expect(r.json['message']).toContain(`with binding '${bindingName}-2' denied request: params present`);
  });
});

// kube validating/dispatcher.go publishValidationFailureAnnotations (kube 1.37, "publish all VAP audit failures in a
// single annotation", ported from admission_test.go's multiple-audit-bindings case): every Audit-action failure of
// the request, from every policy and binding, is listed once under validation.policy.admission.k8s.io/validation_failure.
describe('validation_failure audit annotation', () => {
  it('lists every Audit failure of a request in one annotation', async () => {
    const { ns, policyName, bindingName } = await withPolicy(
      {
        validations: [
          { expression: "has(object.data) && 'a' in object.data", message: 'needs a' },
          { expression: "has(object.data) && 'b' in object.data", message: 'needs b' },
        ],
      },
      { validationActions: ['Audit'] },
    );
    expect((await api(server, 'POST', configMaps(ns), configMap('audited-twice'))).status).toBe(201);
    await eventually(() => {
      const ev = auditEvent(ns) as { annotations?: Record<string, string> } | undefined;
      expect(JSON.parse(ev?.annotations?.[failureKey] ?? 'null')).toEqual([
        { message: 'needs a', policy: policyName, binding: bindingName, expressionIndex: 0, validationActions: ['Audit'] },
        { message: 'needs b', policy: policyName, binding: bindingName, expressionIndex: 1, validationActions: ['Audit'] },
      ]);
    });
  });

  it('is published for a static-manifest policy bound with Audit', async () => {
    const ns = await freshNamespace(server);
    expect((await api(server, 'POST', configMaps(ns), configMap('static-audited', {}, { 'static-audit': 'true' }))).status).toBe(201);
    await eventually(() => {
      const ev = auditEvent(ns) as { annotations?: Record<string, string> } | undefined;
      expect(JSON.parse(ev?.annotations?.[failureKey] ?? 'null')).toEqual([
        { message: 'configmaps need an owner', policy: 'audit-cm.static.k8s.io', binding: 'audit-cm-binding.static.k8s.io', expressionIndex: 0, validationActions: ['Audit'] },
      ]);
    });
  });
});
