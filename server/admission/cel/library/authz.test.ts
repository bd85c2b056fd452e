import type { AuthorizerCheck, AuthorizerDecision, CelAuthorizer } from '../environment.js';
import { T } from '../engine/types.js';
import { createCelEnvironment } from '../index.js';
import { evaluateExpression } from './library-test-env.js';
import { kubernetesLibraries } from './index.js';
import { AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE, authorizerValue, requestResourceValue, type AuthorizerCheckRequest } from './authz.js';

/** An authorizer that records what it is asked and answers from a rule. */
function recordingAuthorizer(answer: (c: AuthorizerCheckRequest) => AuthorizerDecision): CelAuthorizer & { checks: AuthorizerCheckRequest[] } {
  const checks: AuthorizerCheckRequest[] = [];
  return {
    checks,
    check: (c: AuthorizerCheck) => {
      checks.push(c);
      return answer(c);
    },
    requestResource: { group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web' },
  };
}

function run(expr: string, authz: CelAuthorizer) {
  const ctx = { object: null, oldObject: null, request: {}, authorizer: authz };
  return evaluateExpression(expr, {
    authorizer: { value: authorizerValue(ctx), type: T.opaque(AUTHORIZER_TYPE) },
    'authorizer.requestResource': { value: requestResourceValue(ctx), type: T.opaque(RESOURCE_CHECK_TYPE) },
  });
}

const allowAll = () => recordingAuthorizer(() => ({ decision: 'allow', reason: 'ok' }));

describe('authorizer library', () => {
  it('checks a resource with every builder field, for all versions', () => {
    const a = allowAll();
    const r = run("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", a);
    expect(r.value).toBe(true);
    expect(a.checks).toEqual([
      { group: 'apps', version: '*', resource: 'deployments', subresource: 'status', namespace: 'test', name: 'backend', verb: 'create' },
    ]);
    // kube's TestAuthzLibrary: six nominal calls plus the check
    expect(r.cost).toBe(350007);
  });

  it('checks a non-resource path', () => {
    const a = allowAll();
    const r = run("authorizer.path('/healthz').check('get').allowed()", a);
    expect(r.value).toBe(true);
    expect(a.checks[0]).toMatchObject({ path: '/healthz', verb: 'get', resource: '' });
    expect(r.cost).toBe(350003);
  });

  it('answers reason, errored and error from the decision', () => {
    const deny = recordingAuthorizer(() => ({ decision: 'deny', reason: 'nope' }));
    expect(run("authorizer.path('/x').check('get').allowed()", deny).value).toBe(false);
    expect(run("authorizer.path('/x').check('get').reason()", deny).value).toBe('nope');
    expect(run("authorizer.path('/x').check('get').errored()", deny).value).toBe(false);
    expect(run("authorizer.path('/x').check('get').error()", deny).value).toBe('');
    const failing = recordingAuthorizer(() => ({ decision: 'noOpinion', reason: '', error: 'webhook down' }));
    expect(run("authorizer.path('/x').check('get').errored()", failing).value).toBe(true);
    expect(run("authorizer.path('/x').check('get').error()", failing).value).toBe('webhook down');
    expect(run("authorizer.path('/x').check('get').allowed()", recordingAuthorizer(() => ({ decision: 'noOpinion', reason: '' }))).value).toBe(false);
  });

  it('checks for a service account instead of the requester', () => {
    const a = allowAll();
    run("authorizer.serviceAccount('default', 'builder').group('').resource('pods').check('list').allowed()", a);
    expect(a.checks[0]!.user).toEqual({ username: 'system:serviceaccount:default:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:default'] });
  });

  it('checks the request resource', () => {
    const a = allowAll();
    expect(run("authorizer.requestResource.check('update').allowed()", a).value).toBe(true);
    expect(a.checks[0]).toEqual({ group: 'apps', version: '*', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web', verb: 'update' });
  });

  it('passes field and label selectors along', () => {
    const a = allowAll();
    run("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=mynode').labelSelector('app=example').check('list').allowed()", a);
    expect(a.checks[0]).toMatchObject({ fieldSelector: 'spec.nodeName=mynode', labelSelector: 'app=example' });
  });

  it.each([
    ["authorizer.path('')", 'path must not be empty'],
    ["authorizer.path('  ')", 'path must not be empty'],
    ["authorizer.group('apps').resource('')", 'resource must not be empty'],
    ["authorizer.group('apps').resource('  ')", 'resource must not be empty'],
    ["authorizer.serviceAccount('not@a#valid!namespace', 'validname')", 'Invalid service account namespace'],
    ["authorizer.serviceAccount('valid.example.com', 'invalid@*name')", 'Invalid service account name'],
  ])('%s fails with %j', (expr, msg) => {
    expect((run(expr, allowAll()).value as { message: string }).message).toBe(msg);
  });

  it('turns an authorizer that throws into an errored decision', () => {
    const broken: CelAuthorizer = { ...allowAll(), check: () => { throw new Error('boom'); } };
    expect(run("authorizer.path('/x').check('get').error()", broken).value).toBe('boom');
  });

  it.each([
    ["authorizer.path('/healthz')", 2],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", 6],
  ])('charges kube’s nominal cost for %s', (expr, cost) => {
    expect(run(expr, allowAll()).cost).toBe(cost);
  });
});

describe('authorizer through the admission CEL environment', () => {
  it('reaches the request’s CelAuthorizer through the declared variables', () => {
    const env = createCelEnvironment({ libraries: [...kubernetesLibraries] });
    const compiled = env.compile("authorizer.requestResource.check('delete').allowed() && !authorizer.path('/metrics').check('get').allowed()", {
      kind: 'bool',
      hasParams: false,
      hasAuthorizer: true,
      variableNames: [],
    });
    if (!compiled.ok) throw new Error(compiled.error);
    const a = recordingAuthorizer((c) => ({ decision: c.path ? 'deny' : 'allow', reason: '' }));
    const r = compiled.program.evaluate({ object: null, oldObject: null, request: {}, authorizer: a }, { remaining: 10_000_000 });
    expect(r).toEqual({ ok: true, value: true });
    expect(a.checks.map((c) => c.verb)).toEqual(['delete', 'get']);
  });

  it('does not declare the authorizer where kube does not', () => {
    const env = createCelEnvironment({ libraries: [...kubernetesLibraries] });
    const r = env.compile("authorizer.path('/healthz').check('get').allowed()", { kind: 'bool', hasParams: false, hasAuthorizer: false, variableNames: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("undeclared reference to 'authorizer'");
  });
});
