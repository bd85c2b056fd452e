// Admission policies on a custom resource served at two versions whose shapes differ (issue #9): a
// ValidatingAdmissionPolicy or MutatingAdmissionPolicy whose rules name v1 only (matchPolicy Equivalent) is matched
// by a v2 request and sees the object converted to v1 by the CRD's conversion webhook, as kube-apiserver's policy
// dispatchers build VersionedAttributes per matched kind; a MutatingAdmissionPolicy's v1 object is converted back
// to the request's version. request.kind/resource are the matched v1, requestKind/requestResource the v2 used.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { startConversionWebhookServer, type ConversionWebhookServer } from '../../harness/conversion-webhook-server.js';
import { api, freshNamespace } from '../admission/support.js';
import { createConvertedCronTabCRD, cronConvert } from './fixtures.js';

let server: ApiServerHandle;
let conversion: ConversionWebhookServer;

beforeAll(async () => {
  conversion = await startConversionWebhookServer({ convert: cronConvert });
  server = await startApiServer({ storage: 'memory' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
  await conversion?.close();
});

let crdCount = 0;
/** A v1 (storage) / v2 CronTab CRD of a group of its own, converted by the conversion webhook. */
const convertedCRD = () => createConvertedCronTabCRD(server, `policy-conv-${++crdCount}.example.com`, conversion);

async function create(path: string, body: unknown): Promise<void> {
  const r = await api(server, 'POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
}

const v1Only = (crd: { group: string; plural: string }) => ({
  // matchPolicy defaults to Equivalent; said here because it is what the test is about
  matchPolicy: 'Equivalent',
  resourceRules: [{ apiGroups: [crd.group], apiVersions: ['v1'], resources: [crd.plural], operations: ['CREATE', 'UPDATE'] }],
});

describe('policies matched through an equivalent CRD version see the converted object', () => {
  it('a ValidatingAdmissionPolicy on v1 evaluates the v1 field of a v2 request, with the matched and requested versions', async () => {
    const crd = await convertedCRD();
    const ns = await freshNamespace(server);
    const policyName = `v1-cron-spec.${crd.group}`;
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: policyName },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: v1Only(crd),
        validations: [
          { expression: "object.spec.cronSpec != '0 * * * *'", messageExpression: "'cronSpec ' + object.spec.cronSpec + ' runs too often'" },
          { expression: "request.kind.version == 'v1' && request.requestKind.version == 'v2'", message: 'not matched as v1 for a v2 request' },
        ],
      },
    });
    await create('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: `${policyName}-binding` },
      spec: { policyName, validationActions: ['Deny'] },
    });

    const v2 = `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`;
    const tab = (name: string, version: string, spec: Record<string, unknown>) => ({ apiVersion: `${crd.group}/${version}`, kind: crd.kind, metadata: { name }, spec });
    const before = conversion.reviews.length;
    let r = await api(server, 'POST', v2, tab('hourly', 'v2', { schedule: '0 * * * *' }));
    expect(r.status).toBe(422);
    expect(r.json['reason']).toBe('Invalid');
    expect(r.json['message']).toBe(
      `${crd.plural}.${crd.group} "hourly" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}-binding' denied request: cronSpec 0 * * * * runs too often`,
    );
    // the conversion webhook was asked for the v1 object the policy evaluated
    const asked = conversion.reviews.slice(before).map((x) => x.request.desiredAPIVersion);
    expect(asked).toContain(`${crd.group}/v1`);

    // both validations hold for a v2 request with another schedule
    r = await api(server, 'POST', v2, tab('daily', 'v2', { schedule: '0 0 * * *' }));
    expect(r.status).toBe(201);
    expect(r.json['spec']).toEqual({ schedule: '0 0 * * *' });

    // a v1 request is matched as v1 and requested as v1: the version expression is false
    r = await api(server, 'POST', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}`, tab('v1-request', 'v1', { cronSpec: '0 0 * * *' }));
    expect(r.status).toBe(422);
    expect(r.json['message']).toBe(
      `${crd.plural}.${crd.group} "v1-request" is forbidden: ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}-binding' denied request: not matched as v1 for a v2 request`,
    );
  });

  it('a MutatingAdmissionPolicy on v1 sets a v1-only field of a v2 create, read back through v2 as the converted field', async () => {
    const crd = await convertedCRD();
    const ns = await freshNamespace(server);
    const policyName = `v1-set-cron-spec.${crd.group}`;
    await create('/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies', {
      metadata: { name: policyName },
      spec: {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        matchConstraints: v1Only(crd),
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: { expression: `Object{spec: Object.spec{cronSpec: "*/5 * * * *", matchedAs: request.kind.version + "/" + request.requestKind.version}}` },
          },
        ],
      },
    });
    await create('/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings', { metadata: { name: `${policyName}-binding` }, spec: { policyName } });

    const v2 = `/apis/${crd.group}/v2/namespaces/${ns}/${crd.plural}`;
    const r = await api(server, 'POST', v2, { apiVersion: `${crd.group}/v2`, kind: crd.kind, metadata: { name: 'mutated' }, spec: { schedule: '0 * * * *' } });
    expect(r.status).toBe(201);
    expect(r.json['apiVersion']).toBe(`${crd.group}/v2`);
    // the v1 field set by the policy is the v2 field once converted back; no cronSpec leaks into v2
    expect(r.json['spec']).toEqual({ schedule: '*/5 * * * *', matchedAs: 'v1/v2' });

    const got = await api(server, 'GET', `${v2}/mutated`);
    expect(got.status).toBe(200);
    expect(got.json['spec']).toEqual({ schedule: '*/5 * * * *', matchedAs: 'v1/v2' });
    const stored = await api(server, 'GET', `/apis/${crd.group}/v1/namespaces/${ns}/${crd.plural}/mutated`);
    expect(stored.json['spec']).toEqual({ cronSpec: '*/5 * * * *', matchedAs: 'v1/v2' });
  });
});
