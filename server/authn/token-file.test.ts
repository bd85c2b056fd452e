import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '../api/types.js';
import { loadTokenFile, parseTokenFile } from './token-file.js';

const path = '/etc/kah/tokens.csv';

describe('--token-auth-file', () => {
  it.each<[string, string, string, UserInfo | undefined]>([
    ['three columns', 'tok,alice,uid-1\n', 'tok', { username: 'alice', uid: 'uid-1' }],
    ['quoted groups', 'tok,alice,uid-1,"g1,g2"\n', 'tok', { username: 'alice', uid: 'uid-1', groups: ['g1', 'g2'] }],
    ['one unquoted group', 'tok,alice,uid-1,g1\n', 'tok', { username: 'alice', uid: 'uid-1', groups: ['g1'] }],
    ['extra columns are ignored', 'tok,alice,uid-1,g1,extra\n', 'tok', { username: 'alice', uid: 'uid-1', groups: ['g1'] }],
    ['an empty uid is left out', 'tok,alice,\n', 'tok', { username: 'alice' }],
    ['an empty group column is one empty group, as strings.Split gives', 'tok,alice,u,\n', 'tok', { username: 'alice', uid: 'u', groups: [''] }],
    ['CRLF line ends', 'a,b,c\r\ntok,alice,u\r\n', 'tok', { username: 'alice', uid: 'u' }],
    ['the last duplicate wins', 'tok,first,1\ntok,second,2\n', 'tok', { username: 'second', uid: '2' }],
    ['tokens are case-sensitive', 'Tok,alice,u\n', 'tok', undefined],
  ])('%s', (_name, text, token, expected) => {
    const r = parseTokenFile(text, path);
    if (!r.ok) throw new Error(r.error);
    const resp = r.authenticator.authenticateToken(token);
    if (expected === undefined) expect(resp).toEqual({ kind: 'unrecognized' });
    else expect(resp).toEqual({ kind: 'authenticated', user: expected });
  });

  it.each<[string, string, string]>([
    ['too few columns, naming the line', 'ok,user,uid\n\nshort,user\n', `token file '${path}' must have at least 3 columns (token, user name, user uid), found 2 (line 3)`],
    ['a bare quote', 'tok,al"ice,uid\n', `token file '${path}': parse error on line 1, column 7: bare " in non-quoted-field`],
    ['an unterminated quote', 'a,b,c\ntok,alice,uid,"g1,g2\n', `token file '${path}': parse error on line 2, column 22: extraneous or missing " in quoted-field`],
  ])('rejects %s', (_name, text, error) => {
    expect(parseTokenFile(text, path)).toEqual({ ok: false, error });
  });

  it('warns about empty and duplicate tokens with their record numbers, as kube logs them', () => {
    const r = parseTokenFile(',nobody,0\ntok,a,1\ntok,b,2\n', path);
    expect(r.ok && r.warnings).toEqual([
      `empty token has been found in token file '${path}', record number '1' (line 1)`,
      `duplicate token has been found in token file '${path}', record number '3' (line 3)`,
    ]);
    expect(r.ok && r.authenticator.size).toBe(1);
  });

  it('reads the file, and names a missing one as Go does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kah-tokens-'));
    try {
      await writeFile(join(dir, 't.csv'), 'tok,alice,u\n');
      const r = await loadTokenFile(join(dir, 't.csv'));
      expect(r.ok && r.authenticator.authenticateToken('tok')).toEqual({ kind: 'authenticated', user: { username: 'alice', uid: 'u' } });
      expect(await loadTokenFile(join(dir, 'missing.csv'))).toEqual({ ok: false, error: `open ${join(dir, 'missing.csv')}: no such file or directory` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
