import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuthorizer } from './authorizer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-authz-load-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const bob = { username: 'bob', groups: ['system:authenticated'] };

describe('loadAuthorizer', () => {
  it('reads the ABAC policy file', async () => {
    const file = join(dir, 'policy.jsonl');
    await writeFile(file, `${JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'bob', nonResourcePath: '*' } })}\n`);
    const r = await loadAuthorizer({ modes: ['ABAC'], policyFile: file });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.authorizer.authorize({ user: bob, verb: 'get', path: '/metrics', resourceRequest: false }).decision).toBe('Allow');
    expect(r.authorizer.modes).toEqual(['ABAC']);
  });

  it('needs no file without ABAC', async () => {
    const r = await loadAuthorizer({ modes: ['AlwaysDeny'] });
    expect(r.ok && r.authorizer.authorize({ user: bob, verb: 'get', path: '/', resourceRequest: false })).toEqual({ decision: 'NoOpinion', reason: 'Everything is forbidden.' });
  });

  it.each<[string, string | undefined, string, string]>([
    ['a missing file', 'nope.jsonl', '', 'open {dir}/nope.jsonl: no such file or directory'],
    ['a bad line', 'bad.jsonl', '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy"}\n{oops\n', 'error reading policy file {dir}/bad.jsonl, line 2: {oops: '],
    ['no file at all', undefined, '', "authorization-mode ABAC's authorization policy file not passed"],
  ])('reports %s as an error value', async (_name, file, content, expected) => {
    if (file) await writeFile(join(dir, file === 'nope.jsonl' ? 'other' : file), content);
    const r = await loadAuthorizer({ modes: ['ABAC'], policyFile: file ? join(dir, file) : undefined });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.startsWith(expected.replace('{dir}', dir))).toBe(true);
  });
});
