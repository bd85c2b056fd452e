import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuthenticator } from './authenticator.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-authn-load-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('loadAuthenticator', () => {
  it('builds the chain from --token-auth-file', async () => {
    await writeFile(join(dir, 'tokens.csv'), 'tok,alice,1\n,empty,2\n');
    const r = await loadAuthenticator({ clientCertificates: true, tokenAuthFile: join(dir, 'tokens.csv'), anonymous: false });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.warnings).toEqual([`empty token has been found in token file '${join(dir, 'tokens.csv')}', record number '2' (line 2)`]);
    expect(await r.authenticator.authenticate({ headers: { authorization: 'Bearer tok' } })).toMatchObject({ ok: true, user: { username: 'alice' } });
  });

  it('works without a token file', async () => {
    const r = await loadAuthenticator({ clientCertificates: false, anonymous: true });
    expect(r.ok && (await r.authenticator.authenticate({ headers: {} }))).toMatchObject({ ok: true, method: 'anonymous' });
  });

  it.each<[string, string, string]>([
    ['a missing file', 'missing.csv', 'open {dir}/missing.csv: no such file or directory'],
    ['a short record', 'short.csv', "token file '{dir}/short.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 1)"],
  ])('reports %s as an error value', async (_name, file, expected) => {
    await writeFile(join(dir, 'short.csv'), 'tok,alice\n');
    const r = await loadAuthenticator({ clientCertificates: false, tokenAuthFile: join(dir, file), anonymous: true });
    expect(r).toEqual({ ok: false, errors: [expected.replace('{dir}', dir)] });
  });
});
