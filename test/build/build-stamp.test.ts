// scripts/build-stamp.mjs, which lets `npm run build` (and so `npm start`) skip an esbuild bundle whose inputs did
// not change: content decides, not mtimes, and an output replaced or removed since forces the rebuild.
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { upToDate, writeStamp } from '../../scripts/build-stamp.mjs';

let root: string;
const stampFile = (): string => path.join(root, 'dist', '.bundle-stamps', 'x.json');
// esbuild's metafile: paths relative to absWorkingDir; "<define:…>"-style virtual inputs have a colon
const metafile = { inputs: { 'src/a.ts': {}, 'node_modules/dep/index.js': {}, '<runtime>:virtual': {} }, outputs: { 'dist/out.js': {}, 'dist/out.js.map': {} } };

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'kah-build-stamp-'));
  const files: Record<string, string> = { 'src/a.ts': 'export const a = 1;\n', 'node_modules/dep/index.js': 'module.exports = 1;\n', 'tsconfig.json': '{}', 'dist/out.js': 'bundle', 'dist/out.js.map': '{}' };
  for (const [f, text] of Object.entries(files)) {
    const file = path.join(root, f);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  await writeStamp(root, stampFile(), metafile, ['tsconfig.json']);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('build stamps', () => {
  it('says up to date right after the build it records', async () => {
    expect(await upToDate(root, stampFile())).toBe(true);
  });

  it('says up to date when an input was touched without changing (a checkout that rewrote it)', async () => {
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(root, 'src/a.ts'), later, later);
    expect(await upToDate(root, stampFile())).toBe(true);
  });

  it.each([['src/a.ts'], ['node_modules/dep/index.js'], ['tsconfig.json']])('rebuilds when %s changed content', async (f) => {
    await writeFile(path.join(root, f), '// changed\n');
    expect(await upToDate(root, stampFile())).toBe(false);
  });

  it('rebuilds when an input is gone', async () => {
    await rm(path.join(root, 'src/a.ts'));
    expect(await upToDate(root, stampFile())).toBe(false);
  });

  it('rebuilds when an output was replaced since (tsc re-emitting over the bundle) or removed', async () => {
    const before = await stat(path.join(root, 'dist/out.js'));
    await writeFile(path.join(root, 'dist/out.js'), 'tsc output, not the bundle');
    expect((await stat(path.join(root, 'dist/out.js'))).size).not.toBe(before.size);
    expect(await upToDate(root, stampFile())).toBe(false);
    await writeStamp(root, stampFile(), metafile, ['tsconfig.json']);
    expect(await upToDate(root, stampFile())).toBe(true);
    await rm(path.join(root, 'dist/out.js.map'));
    expect(await upToDate(root, stampFile())).toBe(false);
  });

  it('rebuilds without a stamp (a fresh clone, or dist/ removed)', async () => {
    await rm(stampFile());
    expect(await upToDate(root, stampFile())).toBe(false);
  });
});
