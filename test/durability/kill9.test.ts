// Durability (issue #13): concurrent writers create and update ConfigMaps while the apiserver is killed -9 several times
// and etcd once, each restarted. Like kube-apiserver on etcd, every acknowledged write (2xx) must survive with its
// content (for updates: the last acknowledged content, or a later write whose answer was lost), and the
// resourceVersions a client sees for one object only grow. KAH_DURABILITY_SEED=<seed> reproduces a run's contents.
import { useApiServer } from '../../harness/jest.js';
import { eventually } from '../support/eventually.js';
import { Prng, seedFrom } from '../support/prng.js';
import { rawClient, type RawClient } from '../support/raw-https.js';

const seed = seedFrom('KAH_DURABILITY_SEED');
const namespace = 'durable';
const writers = 6;
const objectsPerWriter = 4;
/** acknowledged writes between two kills: the kills land mid-load */
const acksBetweenKills = 80;

interface Attempt {
  seq: number;
  content: string;
  /** 'acked': 2xx with the stored object; 'unknown': the answer was lost (the write may or may not be stored) */
  outcome: 'acked' | 'unknown' | 'refused';
  status: number;
  resourceVersion?: string;
}

interface Tracked {
  name: string;
  created: boolean;
  attempts: Attempt[];
}

const acked = (t: Tracked): Attempt[] => t.attempts.filter((a) => a.outcome === 'acked');

/** The contents the object may hold now: the last acked one, or any attempted after it whose outcome is unknown. */
function allowedContents(t: Tracked): Set<string> {
  const last = acked(t).at(-1);
  return new Set(t.attempts.filter((a) => (last ? a.seq >= last.seq : true) && a.outcome !== 'refused').map((a) => a.content));
}

describe('durability under kill -9 of the apiserver and etcd', () => {
  const env = useApiServer({ storage: 'etcd3' });

  it('keeps every acknowledged ConfigMap write, with monotonic resourceVersions per object', async () => {
    try {
      await writeThroughKills();
    } catch (err) {
      // whatever failed, the seed reproduces the run
      (err as Error).message = `KAH_DURABILITY_SEED=${seed}: ${(err as Error).message}`;
      throw err;
    }
  }, 90_000);

  async function writeThroughKills(): Promise<void> {
    const server = env.server;
    const etcd = server.etcd;
    if (!etcd) throw new Error('the harness started no etcd');
    let client: RawClient = rawClient(server, writers * 2);
    const json = { 'Content-Type': 'application/json', Accept: 'application/json' };
    const created = await client.send({ method: 'POST', path: '/api/v1/namespaces', headers: json, body: Buffer.from(JSON.stringify({ metadata: { name: namespace } })) });
    expect(created.status).toBe(201);

    const rng = new Prng(seed);
    const objects: Tracked[][] = Array.from({ length: writers }, (_, w) => Array.from({ length: objectsPerWriter }, (_, j) => ({ name: `w${w}-${j}`, created: false, attempts: [] })));
    const log: string[] = [];
    let ackCount = 0;
    let stopping = false;

    const writer = async (w: number): Promise<void> => {
      // each writer draws from its own stream, so contents do not depend on the interleaving
      const wr = new Prng(rng.int(0, 0xffffffff));
      let seq = 0;
      while (!stopping) {
        const t = wr.pick(objects[w]!);
        const content = `${t.name}#${++seq}:${wr.word(wr.int(1, 64))}`;
        const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: t.name, namespace }, data: { content, seq: String(seq) } }));
        const req = t.created
          ? { method: 'PUT', path: `/api/v1/namespaces/${namespace}/configmaps/${t.name}` }
          : { method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps` };
        const attempt: Attempt = { seq, content, outcome: 'unknown', status: 0 };
        t.attempts.push(attempt);
        try {
          const res = await client.send({ ...req, headers: json, body, timeoutMs: 10_000 });
          attempt.status = res.status;
          if (res.status === 200 || res.status === 201) {
            attempt.outcome = 'acked';
            attempt.resourceVersion = (JSON.parse(res.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
            t.created = true;
            ackCount++;
          } else if (res.status === 409 && !t.created) {
            // an earlier create whose answer was lost did happen: the content is not this one
            attempt.outcome = 'refused';
            t.created = true;
          } else if (res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 404) {
            attempt.outcome = 'refused';
            log.push(`${req.method} ${t.name} #${seq} refused: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
          }
          // 5xx (etcd down, timeouts), 429 and 404 during a restart: the write may or may not have happened
        } catch {
          // connection refused or reset while the apiserver restarts: retry after a short pause
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };

    const running = Array.from({ length: writers }, (_, w) => writer(w));
    const chaos: Array<{ what: string; act: () => Promise<void> }> = [
      { what: 'kill -9 apiserver', act: async () => (await server.kill('SIGKILL'), await server.restart()) },
      { what: 'kill -9 etcd', act: async () => (await etcd.kill('SIGKILL'), await etcd.restart()) },
      { what: 'kill -9 apiserver', act: async () => (await server.kill('SIGKILL'), await server.restart()) },
      { what: 'kill -9 etcd and apiserver', act: async () => (await etcd.kill('SIGKILL'), await server.kill('SIGKILL'), await etcd.restart(), await server.restart()) },
      { what: 'kill -9 apiserver', act: async () => (await server.kill('SIGKILL'), await server.restart()) },
    ];
    try {
      for (const step of chaos) {
        const before = ackCount;
        await eventually(() => expect(ackCount).toBeGreaterThanOrEqual(before + acksBetweenKills), 20_000, 20);
        log.push(`${step.what} after ${ackCount} acks`);
        await step.act();
        // the old keep-alive sockets are dead: writers continue on fresh connections
        const old = client;
        client = rawClient(server, writers * 2);
        old.close();
      }
      const before = ackCount;
      await eventually(() => expect(ackCount).toBeGreaterThanOrEqual(before + acksBetweenKills), 20_000, 20);
    } finally {
      stopping = true;
      await Promise.all(running);
    }

    const problems: string[] = [];
    for (const t of objects.flat()) {
      const rvs = acked(t).map((a) => BigInt(a.resourceVersion!));
      for (let i = 1; i < rvs.length; i++) {
        if (rvs[i]! <= rvs[i - 1]!) problems.push(`${t.name}: resourceVersion went from ${rvs[i - 1]} to ${rvs[i]} between acked writes #${acked(t)[i - 1]!.seq} and #${acked(t)[i]!.seq}`);
      }
      const res = await eventually(async () => {
        const r = await client.send({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps/${t.name}`, headers: { Accept: 'application/json' } });
        if (r.status !== 200 && r.status !== 404) throw new Error(`GET ${t.name} answered ${r.status}`);
        return r;
      });
      const last = acked(t).at(-1);
      if (res.status === 404) {
        if (last) problems.push(`${t.name}: acked write #${last.seq} (rv ${last.resourceVersion}) lost: the object is gone`);
        continue;
      }
      const stored = JSON.parse(res.body.toString('utf8')) as { data?: { content?: string }; metadata: { resourceVersion: string } };
      const content = stored.data?.content ?? '';
      if (!allowedContents(t).has(content)) {
        problems.push(`${t.name}: holds "${content}", but the last acked write is #${last?.seq} "${last?.content}" (attempts since: ${t.attempts.filter((a) => !last || a.seq > last.seq).map((a) => `#${a.seq} ${a.outcome} ${a.status}`).join(', ')})`);
      }
      if (last && BigInt(stored.metadata.resourceVersion) < BigInt(last.resourceVersion!)) {
        problems.push(`${t.name}: resourceVersion ${stored.metadata.resourceVersion} is older than the last acked ${last.resourceVersion}`);
      }
    }
    client.close();
    const attempts = objects.flat().reduce((n, t) => n + t.attempts.length, 0);
    if (problems.length > 0) throw new Error(`${problems.length} durability problems after ${ackCount} acked of ${attempts} writes:\n${problems.join('\n')}\nchaos log:\n${log.join('\n')}`);
    expect(ackCount).toBeGreaterThanOrEqual(acksBetweenKills * (chaos.length + 1));
    // the kills landed mid-load: some writes were in flight and lost their answer
    expect(objects.flat().some((t) => t.attempts.some((a) => a.outcome === 'unknown'))).toBe(true);
  }
});
