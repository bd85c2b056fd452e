import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from '../api/types.js';
import { AbacAuthorizer, loadAbacPolicyFile, parseAbacPolicyFile, type AbacPolicy } from './abac.js';
import type { AuthorizationAttributes } from './types.js';

const path = '/etc/kah/abac.jsonl';
const v1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

function policies(...lines: string[]): AbacPolicy[] {
  const r = parseAbacPolicyFile(lines.join('\n'), path);
  if (!r.ok) throw new Error(r.error);
  return r.policies;
}

const alice: UserInfo = { username: 'alice', groups: ['dev', 'system:authenticated'] };
const bob: UserInfo = { username: 'bob', groups: ['ops', 'system:authenticated'] };
const anon: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

const res = (user: UserInfo, verb: string, resource: string, namespace = '', apiGroup = '', subresource = ''): AuthorizationAttributes => ({
  user,
  verb,
  resource,
  namespace,
  apiGroup,
  subresource,
  resourceRequest: true,
});
const nonRes = (user: UserInfo, verb: string, p: string): AuthorizationAttributes => ({ user, verb, path: p, resourceRequest: false });

describe('ABAC matching, as pkg/auth/authorizer/abac', () => {
  const file = policies(
    '# comments and blank lines are skipped',
    '',
    v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
    v1({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', readonly: true }),
    v1({ group: 'ops', namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
    v1({ user: '*', nonResourcePath: '/version', readonly: true }),
    v1({ user: 'bob', namespace: '*', nonResourcePath: '/apis/*' }),
    v1({ group: 'system:unauthenticated', nonResourcePath: '/healthz', readonly: true }),
    v1({ user: 'bob', namespace: '', resource: 'nodes', readonly: true }),
  );
  const authz = new AbacAuthorizer(file);

  it.each<[string, AuthorizationAttributes, boolean]>([
    ['alice may do anything on resources', res(alice, 'delete', 'secrets', 'kube-system'), true],
    ['alice has no non-resource policy', nonRes(alice, 'get', '/metrics'), false],
    ['bob may read pods in projectCaribou', res(bob, 'list', 'pods', 'projectCaribou'), true],
    ['bob may not write pods there (readonly)', res(bob, 'create', 'pods', 'projectCaribou'), false],
    ['bob may not read pods elsewhere', res(bob, 'get', 'pods', 'default'), false],
    ['subresources are not looked at', res(bob, 'get', 'pods', 'projectCaribou', '', 'log'), true],
    ['a group policy matches members', res(bob, 'update', 'deployments', 'any', 'apps'), true],
    ['the API group must match', res(bob, 'update', 'deployments', 'any', 'extensions'), false],
    ['an empty apiGroup means the core group only', res(bob, 'get', 'pods', 'projectCaribou', 'apps'), false],
    ['an empty namespace means cluster-scoped only', res(bob, 'get', 'nodes'), true],
    ['an empty namespace does not match a namespace', res(bob, 'get', 'nodes', 'default'), false],
    ['user * means every authenticated user', nonRes(alice, 'get', '/version'), true],
    ['user * is not anonymous', nonRes(anon, 'get', '/version'), false],
    ['a path prefix with *', nonRes(bob, 'post', '/apis/apps/v1'), true],
    ['the prefix is the whole prefix', nonRes(bob, 'get', '/api/v1'), false],
    ['anonymous by group', nonRes(anon, 'get', '/healthz'), true],
    ['head is not read-only', nonRes(anon, 'head', '/healthz'), false],
    ['a resource policy never matches a path', nonRes(alice, 'get', '/api'), false],
  ])('%s', (_name, attrs, allowed) => {
    expect(authz.authorize(attrs)).toEqual(allowed ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: 'No policy matched.' });
  });

  it.each<[string, string, AuthorizationAttributes, boolean]>([
    ['v0: empty user and group is every authenticated user', '{"readonly": true, "resource": "pods"}', res(alice, 'get', 'pods', 'x'), true],
    ['v0: …but not anonymous', '{"readonly": true, "resource": "pods"}', res(anon, 'get', 'pods', 'x'), false],
    ['v0: any API group', '{"user": "alice", "resource": "deployments"}', res(alice, 'create', 'deployments', 'x', 'apps'), true],
    ['v0: no namespace and resource allow paths too', '{"user": "alice"}', nonRes(alice, 'post', '/anything'), true],
    ['v0: a resource blocks paths', '{"user": "alice", "resource": "pods"}', nonRes(alice, 'get', '/api'), false],
    ['v1beta1: group * means authenticated', v1({ group: '*', resource: '*', namespace: '*', apiGroup: '*' }), res(bob, 'get', 'pods', 'x'), true],
    ['v1beta1: a policy with neither user nor group matches nobody', v1({ resource: '*', namespace: '*', apiGroup: '*' }), res(alice, 'get', 'pods', 'x'), false],
  ])('%s', (_name, line, attrs, allowed) => {
    expect(new AbacAuthorizer(policies(line)).authorize(attrs).decision).toBe(allowed ? 'Allow' : 'NoOpinion');
  });

  it('lists the matching policies as rules, non-resource ones only with namespace *, as kube does', () => {
    expect(authz.rulesFor(bob, 'projectCaribou')).toEqual({
      resourceRules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] },
      ],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/apis/*'] }],
      incomplete: false,
    });
  });
});

describe('--authorization-policy-file', () => {
  it('warns about unversioned lines as kube does', () => {
    const r = parseAbacPolicyFile('{"user":"alice"}\n', path);
    expect(r.ok && r.warnings).toEqual([`Policy file ${path} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`]);
  });

  it('records the line of each policy', () => {
    expect(policies('# c', v1({ user: 'a' }), '', v1({ user: 'b' })).map((p) => p.line)).toEqual([2, 4]);
  });

  it.each<[string, string, string]>([
    ['not JSON', `${v1({ user: 'a' })}\nnot json`, `error reading policy file ${path}, line 2: not json: couldn't get version/kind; json parse error: `],
    ['a wrong type', v1({ user: 'a', readonly: 'yes' }), `error reading policy file ${path}, line 1: ${v1({ user: 'a', readonly: 'yes' })}: json: cannot unmarshal string into Go struct field PolicySpec.spec.readonly of type bool`],
    ['an unknown version', '{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}', `error reading policy file ${path}, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy"}: no kind "Policy" is registered for version "abac.authorization.kubernetes.io/v2"`],
    ['a missing kind', '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}', `error reading policy file ${path}, line 1: {"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}: Object 'Kind' is missing in '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1"}'`],
    ['a JSON array', '[1]', `error reading policy file ${path}, line 1: [1]: couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct`],
  ])('rejects %s, naming the line', (_name, text, prefix) => {
    const r = parseAbacPolicyFile(text, path);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.startsWith(prefix)).toBe(true);
  });

  it('reads the file, and names a missing one as Go does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kah-abac-'));
    try {
      await writeFile(join(dir, 'p.jsonl'), `${v1({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' })}\r\n`);
      const r = await loadAbacPolicyFile(join(dir, 'p.jsonl'));
      expect(r.ok && r.policies.length).toBe(1);
      expect(await loadAbacPolicyFile(join(dir, 'nope'))).toEqual({ ok: false, error: `open ${join(dir, 'nope')}: no such file or directory` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
