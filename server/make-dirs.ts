// mkdir -p, one level at a time. Node 20's mkdir with { recursive: true } never returns on some paths (any path
// under /proc, for one: `node -e "fs.mkdirSync('/proc/x/y', { recursive: true })"` spins at full CPU) instead of
// failing; flags such as --cert-dir and --write-kubeconfig name such paths only by mistake, which must end in an
// error, not a hung start. Each level's mkdir fails normally (ENOENT climbs one level; EEXIST is success for a
// directory, and for anything else the same EEXIST error recursive mkdir gives).
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Creates dir and its missing parents with mode (through the umask, as mkdir -p and Go's os.MkdirAll do). */
export function makeDirsSync(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    if (code(err) === 'EEXIST') {
      if (statSync(dir).isDirectory()) return;
      throw err;
    }
    const parent = path.dirname(dir);
    if (code(err) !== 'ENOENT' || parent === dir) throw err;
    makeDirsSync(parent, mode);
    try {
      mkdirSync(dir, { mode });
    } catch (again) {
      if (code(again) !== 'EEXIST') throw again;
    }
  }
}

/** makeDirsSync, without blocking. */
export async function makeDirs(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    if (code(err) === 'EEXIST') {
      if ((await stat(dir)).isDirectory()) return;
      throw err;
    }
    const parent = path.dirname(dir);
    if (code(err) !== 'ENOENT' || parent === dir) throw err;
    await makeDirs(parent, mode);
    try {
      await mkdir(dir, { mode });
    } catch (again) {
      if (code(again) !== 'EEXIST') throw again;
    }
  }
}
