import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDirs, makeDirsSync } from './make-dirs.js';

describe.each([
  ['makeDirsSync', async (dir: string, mode: number) => makeDirsSync(dir, mode)],
  ['makeDirs', makeDirs],
])('%s', (_name, make) => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(path.join(os.tmpdir(), 'kah-make-dirs-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates missing parents, each with the mode', async () => {
    const dir = path.join(root, 'a', 'b', 'c');
    await make(dir, 0o700);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(path.join(root, 'a')).mode & 0o777).toBe(0o700 & ~process.umask());
  });

  it('accepts a directory that exists', async () => {
    await make(root, 0o755);
    await make(path.join(root, 'x'), 0o755);
    await make(path.join(root, 'x'), 0o755);
    expect(statSync(path.join(root, 'x')).isDirectory()).toBe(true);
  });

  it('fails, as recursive mkdir does, for a file in its place', async () => {
    writeFileSync(path.join(root, 'f'), '');
    await expect(make(path.join(root, 'f'), 0o755)).rejects.toThrow(/^EEXIST: file already exists, mkdir /);
  });

  it('fails for a file on the way', async () => {
    writeFileSync(path.join(root, 'f'), '');
    await expect(make(path.join(root, 'f', 'd'), 0o755)).rejects.toThrow(/ENOTDIR/);
  });

  // node 20's own recursive mkdir never returns here: this test would time out with it
  it('fails, rather than spinning, under /proc', async () => {
    await expect(make('/proc/kah-no-such-dir/sub', 0o755)).rejects.toThrow(/ENOENT|EROFS|EACCES|EPERM/);
  });
});
