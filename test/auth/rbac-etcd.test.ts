// RBAC on etcd, where the informers matter: two servers share one etcd (a policy written through one is in force
// on the other through its watch, as kube-apiservers sharing etcd behave), and a restarted server rebuilds its
// policy from the list and creates no second copy of the bootstrap policy (kube's rbac/bootstrap-roles hook
// only adds what is missing).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

let etcd: EtcdProcess;
let first: ApiServerHandle;
let second: ApiServerHandle;
let dir: string;
const rbacGroup = 'rbac.authorization.k8s.io';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kah-rbac-etcd-'));
  writeFileSync(path.join(dir, 'tokens.csv'), 'alice-token,alice,alice-uid\n');
  etcd = await startEtcd();
  const flags = [`--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=Node,RBAC'];
  [first, second] = await Promise.all([startApiServer({ etcdServers: etcd.endpoint, flags }), startApiServer({ etcdServers: etcd.endpoint, flags })]);
}, 90_000);
afterAll(async () => {
  await Promise.all([first?.cleanup(), second?.cleanup()]);
  await etcd?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function asAlice(server: ApiServerHandle, method: string, p: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(p, server.url), { method, ca: server.caPem, agent: false, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer alice-token' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

it('puts a binding written through one server in force on the other, and keeps it across a restart', async () => {
  const ns = `rbac-etcd-${Date.now().toString(36)}`;
  expect((await api(first, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
  expect(await asAlice(second, 'GET', configmaps)).toBe(403);
  const binding = { metadata: { name: 'alice-edit' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'User', apiGroup: rbacGroup, name: 'alice' }] };
  expect((await api(first, 'POST', `/apis/${rbacGroup}/v1/namespaces/${ns}/rolebindings`, binding)).status).toBe(201);
  // at once on the server that wrote it; through the watch on the other
  expect(await asAlice(first, 'GET', configmaps)).toBe(200);
  await eventually(async () => expect(await asAlice(second, 'GET', configmaps)).toBe(200));

  await second.restart();
  expect(await asAlice(second, 'GET', configmaps)).toBe(200);
  // one copy of each bootstrap object, whichever server created it
  const roles = (await api(second, 'GET', `/apis/${rbacGroup}/v1/clusterroles?labelSelector=kubernetes.io/bootstrapping%3Drbac-defaults`)).json as { items: Array<{ metadata: { name: string } }> };
  const names = roles.items.map((r) => r.metadata.name);
  expect(new Set(names).size).toBe(names.length);
  expect(names).toEqual(expect.arrayContaining(['admin', 'cluster-admin', 'edit', 'view']));

  // deleting the binding through the restarted server takes the grant away on both
  expect((await api(second, 'DELETE', `/apis/${rbacGroup}/v1/namespaces/${ns}/rolebindings/alice-edit`)).status).toBe(200);
  expect(await asAlice(second, 'GET', configmaps)).toBe(403);
  await eventually(async () => expect(await asAlice(first, 'GET', configmaps)).toBe(403));
}, 90_000);

it('aggregates a role labelled on one server into view on both', async () => {
  const rule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
  const created = await api(second, 'POST', `/apis/${rbacGroup}/v1/clusterroles`, { metadata: { name: 'widgets-to-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [rule] });
  expect(created.status).toBe(201);
  for (const server of [first, second]) {
    await eventually(async () => expect((await api(server, 'GET', `/apis/${rbacGroup}/v1/clusterroles/view`)).json['rules']).toEqual(expect.arrayContaining([rule])));
  }
});
