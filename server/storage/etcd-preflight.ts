// kube-apiserver's wait for etcd before it builds its storage (CreateControlPlaneConfig with
// k8s.io/apiserver/pkg/storage/etcd3/preflight's EtcdConnection.CheckEtcdServers): until one of --etcd-servers
// accepts a TCP connection, for at most 60 s, or the start fails with "error waiting for etcd connection: timed out
// waiting for the condition". kube checks once a second (etcdRetryInterval); here the checks come after 5, 10, 20, …
// ms, at most 100 ms apart, so that a server started beside its etcd (the harness starts both at once) goes on within
// milliseconds of etcd listening. Skipped, as in kube, when the first server's port is empty or 0.
import net from 'node:net';

/** kube's etcdRetryLimit × etcdRetryInterval */
export const etcdWaitTimeoutMs = 60_000;
/** kube's preflight connectionTimeout */
const connectionTimeoutMs = 1000;
const firstIntervalMs = 5;
const maxIntervalMs = 100;

export interface EtcdWaitOptions {
  timeoutMs?: number;
  /** called before each check after the first that failed (tests count them) */
  onRetry?: () => void;
}

/** host and port of an etcd server URL as kube's preflight dials it (http, https and tcp are TCP), or why not */
function dialTarget(server: string): { host: string; port: number } | { error: string } {
  let url: URL;
  try {
    url = new URL(server);
  } catch (err) {
    return { error: `unable to parse etcd url: ${(err as Error).message}` };
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

function reachable(target: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(connectionTimeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Whether kube would wait at all: not when the first server names port 0 or none. */
export function etcdWaitApplies(servers: readonly string[]): boolean {
  const first = servers[0];
  if (first === undefined) return false;
  const colon = first.lastIndexOf(':');
  const port = colon < 0 ? '' : first.slice(colon + 1);
  return port !== '' && port !== '0';
}

/** Resolves once one server accepts a TCP connection; rejects with kube's error when none did in time. */
export async function waitForEtcdConnection(servers: readonly string[], opts: EtcdWaitOptions = {}): Promise<void> {
  if (!etcdWaitApplies(servers)) return;
  const targets = servers.map(dialTarget);
  const bad = targets.find((t): t is { error: string } => 'error' in t);
  if (bad) throw new Error(`error waiting for etcd connection: ${bad.error}`);
  const dialable = targets as Array<{ host: string; port: number }>;
  const deadline = Date.now() + (opts.timeoutMs ?? etcdWaitTimeoutMs);
  for (let interval = firstIntervalMs; ; interval = Math.min(interval * 2, maxIntervalMs)) {
    // any one reachable server will do (kube tries them in random order, one at a time)
    const results = await Promise.all(dialable.map(reachable));
    if (results.includes(true)) return;
    if (Date.now() + interval > deadline) throw new Error('error waiting for etcd connection: timed out waiting for the condition');
    await new Promise((r) => setTimeout(r, interval));
    opts.onRetry?.();
  }
}
