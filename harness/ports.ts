// Free TCP ports from the OS, so parallel suites never fight over a fixed port.
//
// A port the OS just picked is free again the moment it is closed, and the OS may pick it again: two servers asked
// for one after the other (an apiserver and the etcd it is started with, or two test files running side by side)
// could be given the same port, and the second to listen would fail with EADDRINUSE. As envtest's port allocator
// does (controller-runtime pkg/internal/testing/addr), a port handed out is reserved for a while, in this process
// and, through a file of its own in a shared directory, for every other process on the machine; the OS's pick is
// taken only when it is not reserved.
import { mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** How long a port handed out stays reserved (envtest's portReserveTime). */
export const portReserveMs = 2 * 60_000;
/** How many of the OS's picks are tried before the last one is taken anyway. */
const maxPicks = 20;

const reservedHere = new Map<number, number>();

/** The directory of the machine-wide reservations: one empty file per port. */
export function portReservationDir(): string {
  return path.join(os.tmpdir(), 'kah-ports');
}

/** A port on 127.0.0.1 that was free a moment ago and was not handed out in the last two minutes. */
export async function freePort(): Promise<number> {
  let port = 0;
  for (let pick = 1; pick <= maxPicks; pick++) {
    port = await osFreePort();
    if (reserve(port, Date.now())) return port;
  }
  // every pick was reserved (a machine short of ports): the OS's last word stands
  return port;
}

/** Reserves the port for portReserveMs; false when this process or another one holds it (exported for tests). */
export function reserve(port: number, now: number): boolean {
  const until = reservedHere.get(port);
  if (until !== undefined && until > now) return false;
  if (!reserveOnMachine(port, now)) return false;
  reservedHere.set(port, now + portReserveMs);
  return true;
}

function reserveOnMachine(port: number, now: number): boolean {
  const dir = portReservationDir();
  const file = path.join(dir, `port-${port}`);
  try {
    mkdirSync(dir, { recursive: true });
    // exclusive create: of two processes reserving the same port, one gets it
    writeFileSync(file, '', { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no shared directory to use: this process's own reservations only
  }
  try {
    if (now - statSync(file).mtimeMs < portReserveMs) return false;
    // an expired reservation: taken over through a new exclusive create
    unlinkSync(file);
    writeFileSync(file, '', { flag: 'wx' });
    return true;
  } catch {
    // another process took it over first, or removed it meanwhile
    return false;
  }
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`freePort: unexpected listen address ${String(address)}`));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
