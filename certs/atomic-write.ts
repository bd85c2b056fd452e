// Certificates, keys and kubeconfigs are written to a temporary file and renamed into place, so a process
// reading them (the harness polling for admin.crt, a restarted server) never sees half a file.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirs, makeDirsSync } from '../server/make-dirs.js';

export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  // as client-go's WriteCert/WriteKey: missing directories 0755, not 0777 minus whatever the umask leaves
  await makeDirs(dirname(path), 0o755);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(tmp, data, { mode });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** writeFileAtomic, blocking: for a file that must be in place before the event loop runs again. */
export function writeFileAtomicSync(path: string, data: string, mode: number): void {
  makeDirsSync(dirname(path), 0o755);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
