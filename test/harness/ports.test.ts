// freePort reserves what it hands out, in this process and machine-wide, as envtest's port allocator does, so that
// an apiserver and its etcd, or two test files side by side, are not given the same port; and a server whose port
// was taken before it listened fails with the address named, which startApiServer answers with a new port.
import { execFileSync } from 'node:child_process';
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import path from 'node:path';
import { startApiServer } from '../../harness/apiserver-process.js';
import { isAddressInUse } from '../../harness/etcd-process.js';
import { freePort, portReservationDir, portReserveMs, reserve } from '../../harness/ports.js';

const reservedIn = (port: number): string => path.join(portReservationDir(), `port-${port}`);

/** Whether another node process could reserve the port now (its own process, its own in-memory reservations). */
function reservableElsewhere(port: number): boolean {
  const portsModule = path.resolve('dist/harness/ports.js');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', `import { reserve } from ${JSON.stringify(portsModule)}; console.log(reserve(${port}, Date.now()))`]);
  return out.toString().trim() === 'true';
}

describe('freePort', () => {
  it('hands out distinct ports, each reserved for this process and on the machine', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(existsSync(reservedIn(port))).toBe(true);
      // handed out: neither this process nor another one gets it again within the reservation
      expect(reserve(port, Date.now())).toBe(false);
    }
    expect(reservableElsewhere(ports[0]!)).toBe(false);
  });

  it('takes over a reservation once it is older than the reservation time', async () => {
    const port = await freePort();
    // another process's old reservation of a port: expired, so this one may take it (and it is then held again)
    const old = (Date.now() - portReserveMs - 1000) / 1000;
    utimesSync(reservedIn(port), old, old);
    expect(reserve(port, Date.now() + portReserveMs + 1)).toBe(true);
    expect(reservableElsewhere(port)).toBe(false);
  });

  it("another process's fresh reservation keeps the port from this one", async () => {
    const port = await freePort();
    const other = port + 1 > 65535 ? port - 1 : port + 1;
    writeFileSync(reservedIn(other), '');
    expect(reserve(other, Date.now())).toBe(false);
  });
});

describe('a port taken before the server listens on it', () => {
  let holder: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
    holder = undefined;
  });

  it('fails the start of a server given that port with the address named (the harness retries only ports it chose)', async () => {
    const port = await freePort();
    // whoever connects (the harness's readiness poll may, before the server's exit is seen) is hung up on at once,
    // so that closing the holder does not wait for them
    holder = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder!.listen({ host: '127.0.0.1', port }, resolve));
    // a client of the holder, as the readiness poll is when it comes before the server's exit
    const early = connect(port, '127.0.0.1');
    early.on('error', () => undefined);
    const err = await startApiServer({ storage: 'memory', port }).then(
      () => new Error('the server started on a taken port'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toContain(`failed to listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`);
    expect(isAddressInUse(err)).toBe(true);
  }, 60_000);
});
