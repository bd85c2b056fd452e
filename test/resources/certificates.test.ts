// certificates.k8s.io/v1 through the real server: the resource walk, kube's PrepareForCreate (the requestor is the
// authenticated user), the /approval subresource `kubectl certificate approve|deny` PUTs, and what the main
// resource and /status may not change (kube's csrStrategy, csrStatusStrategy, csrApprovalStrategy).
import { useApiServer } from '../../harness/jest.js';
import { certificateRequestPem } from '../support/csr.js';
import { kubectl } from '../support/kubectl.js';
import { describeResourceWalks } from '../support/resource-walk.js';

const env = useApiServer({ storage: 'memory' });

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const csrPath = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

function csr(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(certificateRequestPem({ commonName: name })), signerName: 'example.com/signer', usages: ['client auth'], ...extra },
  };
}

type Obj = Record<string, unknown> & { spec?: Record<string, unknown>; status?: { conditions?: Array<Record<string, unknown>>; certificate?: string } };

describeResourceWalks(env, 'walk-certificates', [
  {
    group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false,
    object: (name) => ({ spec: csr(name)['spec'] }),
    // kube defaults nothing in certificates/v1; the server sets the requestor (asserted below)
    defaulted: [],
    invalid: [
      {
        name: 'a request that is not PEM',
        object: { spec: { request: b64('hi'), signerName: 'example.com/signer', usages: ['client auth'] } },
        message: 'CertificateSigningRequest.certificates.k8s.io "walk-certificatesigningrequest-invalid" is invalid: spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST',
      },
      {
        name: 'no usages, no signerName',
        object: { spec: { request: b64(certificateRequestPem({ commonName: 'x' })) } },
        causes: [
          { reason: 'FieldValueRequired', field: 'spec.usages', message: 'Required value' },
          { reason: 'FieldValueRequired', field: 'spec.signerName', message: 'Required value' },
        ],
      },
      {
        name: 'an unknown usage and a short expiration',
        object: { spec: { request: b64(certificateRequestPem({ commonName: 'x' })), signerName: 'example.com/signer', usages: ['client auth', 'flying'], expirationSeconds: 60 } },
        causes: [
          { reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: 'Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)' },
          { reason: 'FieldValueNotSupported', field: 'spec.usages[1]', message: expect.stringMatching(/^Unsupported value: "flying": supported values: "any", "cert sign", /) as unknown as string },
        ],
      },
      {
        name: 'a signer name without a path',
        object: { spec: { request: b64(certificateRequestPem({ commonName: 'x' })), signerName: 'example.com', usages: ['client auth'] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.signerName', message: `Invalid value: "example.com": must be a fully qualified domain and path of the form 'example.com/signer-name'` }],
      },
      {
        name: 'a request whose signature does not verify',
        object: { spec: { request: b64(certificateRequestPem({ commonName: 'x', tamper: true })), signerName: 'example.com/signer', usages: ['client auth'] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.request', message: expect.stringMatching(/^Invalid value: \[\]byte\{0x2d, .*\}: x509: Ed25519 verification failure$/) as unknown as string }],
      },
    ],
  },
]);

describe('CertificateSigningRequest strategies', () => {
  it('sets spec.username/groups from the requesting user, whatever the body says, and starts with an empty status', async () => {
    const who = await env.server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    const user = who.json<{ status: { userInfo: { username: string; groups?: string[] } } }>().status.userInfo;
    const body = csr('requestor', { username: 'mallory', groups: ['system:masters-forged'], uid: 'forged' });
    (body as Obj)['status'] = { conditions: [{ type: 'Approved', status: 'True', reason: 'Self' }] };
    const res = await env.server.request(csrPath, { method: 'POST', body });
    expect(res.status).toBe(201);
    const created = res.json<Obj>();
    expect(created.spec?.['username']).toBe(user.username);
    expect(created.spec?.['groups']).toEqual(user.groups);
    expect(created.spec?.['uid']).toBeUndefined();
    expect(created.status).toEqual({});
  });

  it('kubectl certificate approve PUTs /approval: Approved condition set, table shows it', async () => {
    expect((await env.server.request(csrPath, { method: 'POST', body: csr('to-approve') })).status).toBe(201);
    const approve = await kubectl(env.server.kubeconfigPath, ['certificate', 'approve', 'to-approve']);
    expect([approve.code, approve.stderr, approve.stdout.trim()]).toEqual([0, '', 'certificatesigningrequest.certificates.k8s.io/to-approve approved']);
    const got = (await env.server.request(`${csrPath}/to-approve`)).json<Obj>();
    expect(got.status?.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'KubectlApprove' })]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'csr', 'to-approve']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    expect(table.stdout).toMatch(/to-approve\s+\S+\s+example\.com\/signer\s+\S+\s+<none>\s+Approved\n/);
    // approving again is a no-op for kubectl; denying an approved request is refused by kubectl itself
    const deny = await kubectl(env.server.kubeconfigPath, ['certificate', 'deny', 'to-approve']);
    expect(deny.code).not.toBe(0);
  });

  it('kubectl certificate deny sets Denied; the printer shows Denied', async () => {
    expect((await env.server.request(csrPath, { method: 'POST', body: csr('to-deny', { expirationSeconds: 3600 }) })).status).toBe(201);
    const deny = await kubectl(env.server.kubeconfigPath, ['certificate', 'deny', 'to-deny']);
    expect([deny.code, deny.stderr]).toEqual([0, '']);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'csr', 'to-deny', '--no-headers']);
    expect(table.stdout).toMatch(/^to-deny\s+\S+\s+example\.com\/signer\s+\S+\s+60m\s+Denied\n$/);
  });

  it('the main resource changes neither spec nor status; /status cannot approve; /approval writes only conditions', async () => {
    expect((await env.server.request(csrPath, { method: 'POST', body: csr('split') })).status).toBe(201);
    // without a resourceVersion: each write applies to what is stored (kube's AllowUnconditionalUpdate)
    const cur = { ...(await env.server.request(`${csrPath}/split`)).json<Obj>(), metadata: { name: 'split' } };
    const approved = { type: 'Approved', status: 'True', reason: 'Test', message: 'ok' };
    // main resource: spec.usages and status are reset to the stored ones (kube's csrStrategy.PrepareForUpdate)
    const main = await env.server.request(`${csrPath}/split`, { method: 'PUT', body: { ...cur, spec: { ...cur.spec, usages: ['server auth'] }, status: { conditions: [approved] } } });
    expect(main.status).toBe(200);
    expect([main.json<Obj>().spec?.['usages'], main.json<Obj>().status]).toEqual([['client auth'], {}]);
    // /status: the certificate must be PEM CERTIFICATE blocks (kube's validateCertificate)
    const notPem = await env.server.request(`${csrPath}/split/status`, { method: 'PUT', body: { ...cur, status: { certificate: b64('cert') } } });
    expect([notPem.status, notPem.json<{ message: string }>().message]).toEqual([
      422,
      'CertificateSigningRequest.certificates.k8s.io "split" is invalid: status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ]);
    // conditions are kept as stored (csrStatusStrategy), the certificate is written
    const issued = b64(env.server.caPem);
    const status = await env.server.request(`${csrPath}/split/status`, { method: 'PUT', body: { ...cur, status: { conditions: [approved], certificate: issued } } });
    expect(status.status).toBe(200);
    expect(status.json<Obj>().status).toEqual({ certificate: issued });
    // /approval: conditions only, the certificate stays
    const approval = await env.server.request(`${csrPath}/split/approval`, { method: 'PUT', body: { ...cur, spec: { ...cur.spec, usages: ['server auth'] }, status: { conditions: [approved] } } });
    expect(approval.status).toBe(200);
    expect(approval.json<Obj>().spec?.['usages']).toEqual(['client auth']);
    expect(approval.json<Obj>().status).toEqual({ certificate: issued, conditions: [approved] });
    // kube's validateConditions: Approved and Denied are mutually exclusive; a condition may not be removed
    const both = await env.server.request(`${csrPath}/split/approval`, { method: 'PUT', body: { ...cur, status: { conditions: [approved, { type: 'Denied', status: 'True' }] } } });
    expect(both.status).toBe(422);
    expect(both.json<{ message: string }>().message).toBe(
      'CertificateSigningRequest.certificates.k8s.io "split" is invalid: status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    );
    const removed = await env.server.request(`${csrPath}/split/approval`, { method: 'PUT', body: { ...cur, status: { conditions: [] } } });
    expect(removed.status).toBe(422);
    expect(removed.json<{ message: string }>().message).toBe('CertificateSigningRequest.certificates.k8s.io "split" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"');
    // an issued certificate is not replaced (allowResettingCertificate is false in v1)
    const replaced = await env.server.request(`${csrPath}/split/status`, { method: 'PUT', body: { ...cur, status: { certificate: b64(`${env.server.caPem}${env.server.caPem}`) } } });
    expect([replaced.status, replaced.json<{ message: string }>().message]).toEqual([
      422,
      'CertificateSigningRequest.certificates.k8s.io "split" is invalid: status.certificate: Forbidden: updates may not modify existing certificate content',
    ]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'csr', 'split', '--no-headers']);
    expect(table.stdout).toMatch(/^split\s+.*\sApproved,Issued\n$/);
  });

  it('discovery lists the approval subresource and the csr short name', async () => {
    const list = (await env.server.request('/apis/certificates.k8s.io/v1')).json<{ resources: Array<{ name: string; shortNames?: string[]; verbs: string[] }> }>();
    expect(list.resources.find((r) => r.name === 'certificatesigningrequests')?.shortNames).toEqual(['csr']);
    expect(list.resources.find((r) => r.name === 'certificatesigningrequests/approval')?.verbs).toEqual(['get', 'patch', 'update']);
  });
});
