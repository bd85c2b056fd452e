// The manifest directory hash: kube-apiserver's (sha256 over each file's bytes and a NUL, in name order), so the
// last_config_info hash of this server and of a real kube-apiserver agree for the same directory.
import { symlinkSync, writeFileSync } from 'node:fs';
import { compareFileNames, hashManifestFiles } from '../../server/admission/manifest/hash.js';
import { readManifestDir } from '../../server/admission/manifest/load.js';
import { readManifestDirSync } from '../../server/admission/manifest/read-dir.js';
import { ManifestDir } from './support.js';

const file = (name: string, data: string) => ({ name, data: Buffer.from(data) });

describe('hashManifestFiles', () => {
  it('is "" for no files, as the last_config_info metric expects for an empty directory', () => {
    expect(hashManifestFiles([])).toBe('');
  });

  it('is "" when every file is empty', () => {
    expect(hashManifestFiles([file('a.yaml', '')])).toBe('');
  });

  it.each([
    ['one file', [file('a.yaml', 'x')], 'sha256:14f825b2bbc32dd8d196367fa8776873069c12a8954d8da7513aa7704ddd09eb'],
    ['two files in name order', [file('a.yaml', 'x'), file('b.yaml', 'y')], 'sha256:7055937302e30e9db629cb0b9f15a885c9b667a84842b5bb9ad716caa128cc5b'],
    ['two files given out of order', [file('b.yaml', 'y'), file('a.yaml', 'x')], 'sha256:7055937302e30e9db629cb0b9f15a885c9b667a84842b5bb9ad716caa128cc5b'],
    ['empty files left out', [file('a.yaml', 'x'), file('m.yaml', ''), file('b.yaml', 'y')], 'sha256:7055937302e30e9db629cb0b9f15a885c9b667a84842b5bb9ad716caa128cc5b'],
    ['the contents swapped between the files', [file('a.yaml', 'y'), file('b.yaml', 'x')], 'sha256:d3d861dc0a1faae9b7b4de07a2145816e23194ba6a084a6494a1799f626e4540'],
  ])('matches kube for %s', (_name, files, hash) => {
    expect(hashManifestFiles(files)).toBe(hash);
  });

  it('changes with any byte of content', () => {
    expect(hashManifestFiles([file('a.yaml', 'x ')])).not.toBe(hashManifestFiles([file('a.yaml', 'x')]));
  });

  it('keeps file boundaries apart: one file "xy" is not two files "x" and "y"', () => {
    expect(hashManifestFiles([file('a.yaml', 'xy')])).not.toBe(hashManifestFiles([file('a.yaml', 'x'), file('b.yaml', 'y')]));
  });
});

describe('compareFileNames', () => {
  // os.ReadDir sorts names as bytes (UTF-8); JavaScript compares UTF-16 code units, which differ above U+D7FF
  const names = ['a.yaml', 'B.yaml', 'a.yml', 'a-b.yaml', 'a_b.yaml', '10.yaml', '9.yaml', 'é.yaml', 'z.yaml', '\uff21.yaml', '\u{1f600}.yaml', '\ue000.yaml', '\ud7ff.yaml', '', 'a'];
  it('orders every pair as their UTF-8 bytes do', () => {
    for (const a of names) {
      for (const b of names) {
        expect([a, b, Math.sign(compareFileNames(a, b))]).toEqual([a, b, Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))]);
      }
    }
  });

  it('puts a name beyond the Basic Multilingual Plane after U+E000–U+FFFF, as bytes do and UTF-16 does not', () => {
    expect(compareFileNames('\u{1f600}.yaml', '\uff21.yaml')).toBeGreaterThan(0);
    expect('\u{1f600}.yaml' < '\uff21.yaml').toBe(true);
  });
});

describe('the hash of a directory', () => {
  let dir: ManifestDir;
  beforeEach(() => {
    dir = new ManifestDir();
  });
  afterEach(() => dir.cleanup());

  const hashOf = async (): Promise<string> => {
    const read = await readManifestDir(dir.path);
    if (!read.ok) throw new Error(read.error.reason);
    return hashManifestFiles(read.files);
  };

  it('covers only the files the loader reads', async () => {
    dir.write('a.yaml', 'x');
    const before = await hashOf();
    dir.write('notes.txt', 'ignored');
    dir.write('a.yaml.tmp', 'ignored');
    dir.write('sub/b.yaml', 'ignored');
    writeFileSync(dir.file('empty.json'), '');
    expect(await hashOf()).toBe(before);
    expect(before).toBe('sha256:14f825b2bbc32dd8d196367fa8776873069c12a8954d8da7513aa7704ddd09eb');
  });

  it('is "" for a directory with nothing to load', async () => {
    dir.write('README.md', 'hello');
    expect(await hashOf()).toBe('');
  });
});

// The startup load reads without promises (cheaper at startup); reloads read with them. Both must see the same files.
describe('readManifestDirSync, the startup read', () => {
  let dir: ManifestDir;
  beforeEach(() => {
    dir = new ManifestDir();
  });
  afterEach(() => dir.cleanup());

  it('reads the same files, in the same order, as readManifestDir', async () => {
    dir.write('b.yaml', 'b');
    dir.write('a.YML', 'a');
    dir.write('c.json', '{}');
    dir.write('notes.txt', 'ignored');
    dir.write('sub/d.yaml', 'ignored');
    writeFileSync(dir.file('empty.yaml'), '');
    symlinkSync(dir.file('b.yaml'), dir.file('link.yaml'));
    const sync = readManifestDirSync(dir.path);
    expect(sync).toEqual(await readManifestDir(dir.path));
    expect(sync.ok && sync.files.map((f) => f.name)).toEqual(['a.YML', 'b.yaml', 'c.json', 'link.yaml']);
  });

  it('reports the first unreadable file in name order, as readManifestDir does', async () => {
    dir.write('a.yaml', 'a');
    symlinkSync(dir.file('missing-target'), dir.file('b.yaml'));
    symlinkSync(dir.file('missing-target-2'), dir.file('c.yaml'));
    const sync = readManifestDirSync(dir.path);
    expect(sync.ok).toBe(false);
    expect(sync).toEqual(await readManifestDir(dir.path));
  });

  it('reports a missing directory as readManifestDir does', async () => {
    const missing = dir.file('nope');
    expect(readManifestDirSync(missing)).toEqual(await readManifestDir(missing));
  });
});
