// A watcher that stops reading must not make the apiserver buffer without limit: it is terminated once its unsent
// bytes pass the bound, as kube's watch cache terminates a watcher whose channel stays full
// (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go), and counted in apiserver_terminated_watchers_total.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { defaultWatchBufferBytes } from '../../server/endpoints/watch-buffer.js';
import { eventually } from '../support/eventually.js';

const cmPath = '/api/v1/namespaces/default/configmaps';
const payloadBytes = 900 * 1024; // below kube's 1 MiB ConfigMap limit and etcd's default request size
const mib = 1024 * 1024;

let server: ApiServerHandle;
beforeAll(async () => {
  server = await startApiServer({ flags: ['--v=1'] });
}, 90_000);
afterAll(async () => {
  await server?.cleanup();
});

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** A TLS client that sends a watch request and then never reads: the socket stays paused. */
function openStalledWatch(srv: ApiServerHandle, pathAndQuery: string): Promise<{ socket: tls.TLSSocket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: srv.port,
      ca: srv.caPem,
      cert: readFileSync(path.join(srv.certDir, 'admin.crt')),
      key: readFileSync(path.join(srv.certDir, 'admin.key')),
      servername: 'localhost',
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', () => {}); // a reset by the server is the expected end
    socket.once('secureConnect', () => {
      socket.write(`GET ${pathAndQuery} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`);
      // read the status line once so the request is known to be served, then stop reading for good
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) reject(new Error(`watch not accepted: ${chunk.toString('latin1').slice(0, 200)}`));
        else resolve({ socket, closed });
      });
    });
    socket.once('error', reject);
  });
}

/** A well-behaved watcher that reads everything and collects the names it was told about. */
function openReadingWatch(srv: ApiServerHandle, pathAndQuery: string): { names: Set<string>; stop: () => void; ended: () => boolean } {
  const names = new Set<string>();
  let ended = false;
  let rest = '';
  const req = https.get(`${srv.url}${pathAndQuery}`, {
    ca: srv.caPem,
    cert: readFileSync(path.join(srv.certDir, 'admin.crt')),
    key: readFileSync(path.join(srv.certDir, 'admin.key')),
  }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      rest += chunk;
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        const ev = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
        if (ev.type === 'ADDED' && ev.object.metadata?.name) names.add(ev.object.metadata.name);
      }
    });
    res.on('end', () => (ended = true));
    res.on('close', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  return { names, stop: () => req.destroy(), ended: () => ended };
}

describe('a watcher that stops reading', () => {
  it('is closed once its buffer passes the bound, counted with kube\'s labels, while other watchers and requests carry on and memory stays bounded', async () => {
    // Far more than the bound plus what the kernel's socket buffers can take: without the bound, all of it stays in the server.
    const total = 8 * defaultWatchBufferBytes + 32 * mib;
    const count = Math.ceil(total / payloadBytes);
    const payload = 'x'.repeat(payloadBytes);
    const createAll = async (prefix: string, labels: Record<string, string>) => {
      for (let i = 0; i < count; i++) {
        const r = await server.request(cmPath, { method: 'POST', body: { metadata: { name: `${prefix}-${i}`, labels }, data: { payload } }, timeoutMs: 30_000 });
        expect(r.status).toBe(201);
      }
    };
    // The same load once without a stalled watcher first, so the garbage it leaves (request bodies, etcd replies) is
    // already in the baseline and the growth measured next is what the stalled watch holds.
    await createAll('warmup', { warmup: 'true' });
    const list = await server.request(`${cmPath}?limit=1`);
    const rv = list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;

    const stalled = await openStalledWatch(server, `${cmPath}?watch=true&resourceVersion=${rv}`);
    const reader = openReadingWatch(server, `${cmPath}?watch=true&resourceVersion=${rv}&labelSelector=big%3Dtrue`);
    const rssBefore = rssBytes(server.pid!);
    await createAll('big', { big: 'true' });
    const rssAfter = rssBytes(server.pid!);
    const written = count * payloadBytes;
    // memory: generous, but far below the data written (without the bound, the stalled watch alone holds all of it)
    expect(rssAfter - rssBefore).toBeLessThan(written / 2);

    // kube's metric, name and labels (k8s.io/apiserver/pkg/storage/cacher/metrics), and its V(1) log line
    await eventually(async () => {
      const metrics = await server.request('/metrics');
      expect(metrics.body).toContain('# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.');
      expect(metrics.body).toMatch(/^apiserver_terminated_watchers_total\{group="",resource="configmaps"\} 1$/m);
    }, 30_000);
    await server.waitForLog(/Forcing configmaps watcher close due to unresponsiveness: key: \\"\/configmaps\/default\\"/, 10_000);

    // the server closed the stalled watch: reading it now gets what was already on its way, then the end,
    // far less than was written
    let received = 0;
    stalled.socket.on('data', (chunk: Buffer) => (received += chunk.length));
    stalled.socket.resume();
    await stalled.closed;
    expect(received).toBeLessThan(written / 2);

    // the reading watcher got every object and is still open; other requests are served
    await eventually(() => expect(reader.names.size).toBe(count), 60_000);
    expect(reader.ended()).toBe(false);
    reader.stop();
    const after = await server.request(`${cmPath}?labelSelector=big%3Dtrue&limit=1`);
    expect(after.status).toBe(200);
    expect((await server.request('/readyz')).status).toBe(200);

    // the initial state is not held to the bound (kube sends it from the watcher's own goroutine, blocking on the
    // client): a watch whose initial list is far bigger than the bound, read late, gets all of it
    const late = await openStalledWatch(server, `${cmPath}?watch=true&labelSelector=big%3Dtrue`);
    expect((await server.request(`${cmPath}?labelSelector=big%3Dtrue&limit=1`)).status).toBe(200);
    const names = new Set<string>();
    let rest = '';
    late.socket.on('data', (chunk: Buffer) => {
      rest += chunk.toString('latin1');
      for (const m of rest.matchAll(/"name":"(big-\d+)"/g)) names.add(m[1]!);
      rest = rest.slice(Math.max(0, rest.length - 64));
    });
    late.socket.resume();
    await eventually(() => expect(names.size).toBe(count), 60_000);
    late.socket.destroy();
    const metricsAfter = await server.request('/metrics');
    expect(metricsAfter.body).toMatch(/^apiserver_terminated_watchers_total\{group="",resource="configmaps"\} 1$/m);
  }, 300_000);
});
