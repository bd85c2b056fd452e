import net from 'node:net';
import { etcdWaitApplies, waitForEtcdConnection } from './etcd-preflight.js';

/** A TCP listener on a free port that is not listening yet: `port` is reserved by listening once and closing. */
async function freePortServer(): Promise<{ port: number; listen: () => Promise<void>; close: () => Promise<void> }> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const server = net.createServer((s) => s.destroy());
  return {
    port,
    listen: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: () => new Promise<void>((r) => (server.listening ? server.close(() => r()) : r())),
  };
}

describe('waitForEtcdConnection (kube-apiserver preflight.EtcdConnection)', () => {
  it('resolves at once when a server accepts connections', async () => {
    const s = await freePortServer();
    await s.listen();
    let retries = 0;
    await waitForEtcdConnection([`http://127.0.0.1:${s.port}`], { onRetry: () => retries++ });
    expect(retries).toBe(0);
    await s.close();
  });

  it('waits until the server listens, checking again after short intervals', async () => {
    const s = await freePortServer();
    let retries = 0;
    let listening = false;
    await waitForEtcdConnection([`http://127.0.0.1:${s.port}`], {
      onRetry: () => {
        retries++;
        if (retries === 3) void s.listen().then(() => (listening = true));
      },
    });
    expect(listening).toBe(true);
    expect(retries).toBeGreaterThanOrEqual(3);
    await s.close();
  });

  it('one reachable server of several is enough', async () => {
    const down = await freePortServer();
    const up = await freePortServer();
    await up.listen();
    await waitForEtcdConnection([`http://127.0.0.1:${down.port}`, `https://127.0.0.1:${up.port}`]);
    await up.close();
  });

  it("fails with kube's error when no server accepted a connection in time", async () => {
    const s = await freePortServer();
    await expect(waitForEtcdConnection([`http://127.0.0.1:${s.port}`], { timeoutMs: 50 })).rejects.toThrow(
      new Error('error waiting for etcd connection: timed out waiting for the condition'),
    );
  });

  it('is skipped, as in kube, when the first server names port 0 or none', async () => {
    expect(etcdWaitApplies(['http://127.0.0.1:0'])).toBe(false);
    expect(etcdWaitApplies(['http://127.0.0.1:'])).toBe(false);
    expect(etcdWaitApplies([])).toBe(false);
    expect(etcdWaitApplies(['http://127.0.0.1:2379'])).toBe(true);
    await waitForEtcdConnection(['http://127.0.0.1:0'], { timeoutMs: 1 });
  });

  // kube's preflight tests (k8s.io/apiserver/pkg/storage/etcd3/preflight/checks_test.go) through the control-plane
  // path that calls it (CreateControlPlaneConfig): "-invalid uri$@#%" (TestParseServerURIBad, TestCheckEtcdServersUri)
  // has no port for net.SplitHostPort, so kube does not wait on it at all, and neither does this server; an empty
  // list (TestCheckEtcdServersEmpty) is nothing to wait for.
  it("follows kube's preflight cases as its control plane reaches them", async () => {
    expect(etcdWaitApplies(['-invalid uri$@#%'])).toBe(false);
    await waitForEtcdConnection(['-invalid uri$@#%'], { timeoutMs: 1 });
    await waitForEtcdConnection([], { timeoutMs: 1 });
    // TestParseServerURIGood: the host and port of https://127.0.0.1:2379 are what is dialled
    expect(etcdWaitApplies(['https://127.0.0.1:2379'])).toBe(true);
  });

  it('reports a server URL it cannot parse', async () => {
    await expect(waitForEtcdConnection(['not a url:2379'])).rejects.toThrow(/^error waiting for etcd connection: unable to parse etcd url: /);
  });
});
