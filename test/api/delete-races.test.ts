// A delete the client sent without preconditions never fails because a controller wrote the object meanwhile
// (kube's Store.Delete retries its conditional delete); preconditions the client did send still answer 409.
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';

let server: ApiServerHandle;

beforeAll(async () => {
  server = await startApiServer({ storage: 'etcd3' });
}, 60_000);
afterAll(async () => {
  await server?.cleanup();
});

const vapPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const vap = (name: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: {
    // deployments: the status controller type-checks against the apps/v1 schema, so its write comes a little later
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] }] },
    validations: [{ expression: 'object.spec.replicas <= 5', messageExpression: "'too many replicas: ' + string(object.spec.replicas)" }],
  },
});

async function call(method: string, p: string, body?: unknown) {
  const res = await server.request(p, { method, body, headers: { 'Content-Type': 'application/json' } });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

describe('DELETE racing with the status controller on etcd', () => {
  it('creates and at once deletes a ValidatingAdmissionPolicy 50 times without a 409', async () => {
    const answers: string[] = [];
    // five clients at once, so that the controller's status writes interleave with the deletes' reads and writes
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (client) => {
        for (let i = 0; i < 10; i++) {
          const name = `race-${client}-${i}`;
          const created = await call('POST', vapPath, vap(name));
          expect(created.status).toBe(201);
          const deleted = await call('DELETE', `${vapPath}/${name}`);
          answers.push(deleted.status === 200 ? 'ok' : `${deleted.status}: ${String(deleted.json['message'])}`);
        }
      }),
    );
    expect(answers).toHaveLength(50);
    expect(answers.filter((a) => a !== 'ok')).toEqual([]);
  }, 120_000);

  it("answers a stale resourceVersion precondition with kube's 409 and keeps the object", async () => {
    const created = await call('POST', vapPath, vap('stale-precondition'));
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    // a newer version: the label makes the precondition stale whatever the status controller did
    const labelled = await server.request(`${vapPath}/stale-precondition`, { method: 'PATCH', body: { metadata: { labels: { v: '2' } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(labelled.status).toBe(200);
    const current = (JSON.parse(labelled.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const r = await call('DELETE', `${vapPath}/stale-precondition`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: rv } });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, details: { name: 'stale-precondition', group: 'admissionregistration.k8s.io', kind: 'validatingadmissionpolicies' } });
    // the status controller may have written after the patch: the message names whatever is stored now
    expect(r.json['message']).toMatch(
      new RegExp(
        `^Operation cannot be fulfilled on validatingadmissionpolicies\\.admissionregistration\\.k8s\\.io "stale-precondition": StorageError: invalid object, Code: 4, Key: /registry/\\S*validatingadmissionpolicies/stale-precondition, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: \\d+$`,
      ),
    );
    expect(Number(/object meta: (\d+)$/.exec(String(r.json['message']))![1])).toBeGreaterThanOrEqual(Number(current));
    expect((await call('GET', `${vapPath}/stale-precondition`)).status).toBe(200);
    const ok = await call('DELETE', `${vapPath}/stale-precondition`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: (created.json['metadata'] as { uid: string }).uid } });
    expect(ok.status).toBe(200);
  });
});
