// The startup objects (APF's mandatory configuration, the local APIServices) on etcd: present after a restart,
// the same objects (uids, resourceVersions), not duplicated and not rewritten; one deleted before a restart
// comes back, as kube's hooks recreate what is missing.
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';

const env = useApiServer({ storage: 'etcd3' });

interface Item {
  metadata: { name: string; uid: string; resourceVersion: string };
}
const paths = ['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', '/apis/apiregistration.k8s.io/v1/apiservices'];

async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) {
    for (const i of (await env.server.request(p)).json<{ items: Item[] }>().items) out.set(`${p}/${i.metadata.name}`, `${i.metadata.uid}@${i.metadata.resourceVersion}`);
  }
  return out;
}

describe('startup objects on etcd', () => {
  it('are kept across a restart, not duplicated or rewritten, and recreated when missing', async () => {
    const before = await snapshot();
    expect(before.has('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt')).toBe(true);
    expect(before.has('/apis/apiregistration.k8s.io/v1/apiservices/v1.')).toBe(true);
    await env.server.restart();
    expect(await snapshot()).toEqual(before);

    // deleted, then the server restarts: the start creates it again (kube's ensurer also does so while running; this server only at startup)
    const del = await env.server.request('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/catch-all', { method: 'DELETE' });
    expect(del.status).toBe(200);
    await env.server.kill();
    await env.server.restart();
    await eventually(async () => {
      const after = await snapshot();
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      const recreated = after.get('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/catch-all');
      expect(recreated).not.toEqual(before.get('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/catch-all'));
      for (const [k, v] of before) if (!k.endsWith('/flowschemas/catch-all')) expect([k, after.get(k)]).toEqual([k, v]);
    });
  });
});
