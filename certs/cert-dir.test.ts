import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingBundle, writeCertBundle } from './bundle.js';
import { certDirModeProblem, prepareCertDir } from './cert-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-certdir-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const modeOf = async (p: string): Promise<number> => (await stat(p)).mode & 0o7777;

describe('certDirModeProblem', () => {
  it.each([
    [0o700, undefined],
    [0o755, undefined],
    [0o750, undefined],
    [0o775, 'group'],
    [0o757, 'others'],
    [0o777, 'group and others'],
    [0o1777, 'group and others'], // sticky does not help: another user may still create ca.crt/ca.key before us
  ])('mode %s: writable by %s', (mode, who) => {
    const problem = certDirModeProblem('/certs', mode);
    if (who === undefined) expect(problem).toBeUndefined();
    else expect(problem).toBe(`certificate directory /certs is writable by ${who} (mode ${(mode & 0o7777).toString(8).padStart(4, '0')}), so another user could replace the CA it holds: remove their write permission (chmod go-w /certs)`);
  });
});

describe('prepareCertDir', () => {
  it('creates a missing directory, and its missing parents, without group or other write', async () => {
    const d = join(dir, 'a', 'b');
    expect(await prepareCertDir(d)).toEqual({ ok: true, dir: d });
    expect((await modeOf(d)) & 0o022).toBe(0);
    expect((await modeOf(join(dir, 'a'))) & 0o022).toBe(0);
  });

  it('accepts an existing owner-only directory as it is', async () => {
    await chmod(dir, 0o700);
    expect(await prepareCertDir(dir)).toEqual({ ok: true, dir });
    expect(await modeOf(dir)).toBe(0o700);
  });

  it('refuses an existing directory group or others may write', async () => {
    await chmod(dir, 0o777);
    expect(await prepareCertDir(dir)).toEqual({ ok: false, error: certDirModeProblem(dir, 0o777) });
  });

  it('refuses a path that is a file', async () => {
    const f = join(dir, 'file');
    await writeFile(f, '');
    const r = await prepareCertDir(f);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(new RegExp(`^unable to create certificate directory ${f}: `));
  });
});

describe('a CA directory others may write', () => {
  it('is refused on reuse (restart) by ensureServingBundle, leaving the CA untouched', async () => {
    const d = join(dir, 'certs');
    const first = await ensureServingBundle(d);
    expect(first.ok).toBe(true);
    const ca = await readFile(join(d, 'ca.crt'), 'utf8');
    await chmod(d, 0o775);
    const again = await ensureServingBundle(d);
    expect(again).toEqual({ ok: false, error: certDirModeProblem(d, 0o775) });
    expect(await readFile(join(d, 'ca.crt'), 'utf8')).toBe(ca);
  });

  it('is refused by writeCertBundle (kah certs), which also reuses the CA there', async () => {
    const d = join(dir, 'bundle');
    await mkdir(d);
    await chmod(d, 0o757);
    expect(await writeCertBundle(d, {})).toEqual({ ok: false, errors: [certDirModeProblem(d, 0o757)] });
  });
});
