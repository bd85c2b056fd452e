// The manifest directory hash: kube-apiserver's (sha256 over each file's bytes and a NUL, in name order), so the
// last_config_info hash of this server and of a real kube-apiserver agree for the same directory.
import { writeFileSync } from 'node:fs';
import { hashManifestFiles } from '../../server/admission/manifest/hash.js';
import { readManifestDir } from '../../server/admission/manifest/load.js';
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
