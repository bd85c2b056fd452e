// The admission CEL facade: kube-apiserver's variables, result-type checks, lazy `variables`, the shared cost
// budget and JSON in/out.
import { celLimits, type CompileOptions, type EvalContext, type EvalResult } from '../../server/admission/cel/environment.js';
import { createCelEnvironment } from '../../server/admission/cel/index.js';
import { kubernetesCelEnvironment } from '../../server/admission/cel/kubernetes.js';

const env = createCelEnvironment();
const opts = (o: Partial<CompileOptions> = {}): CompileOptions => ({ kind: 'bool', hasParams: false, hasAuthorizer: false, variableNames: [], ...o });
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } };
const ctx = (o: Partial<EvalContext> = {}): EvalContext => ({
  object: deployment,
  oldObject: null,
  request: { operation: 'CREATE', name: 'web', namespace: 'default', userInfo: { username: 'alice', groups: ['dev'] } },
  namespaceObject: { metadata: { name: 'default', labels: { env: 'prod' } } },
  ...o,
});
const compile = (expr: string, o: Partial<CompileOptions> = {}) => {
  const r = env.compile(expr, opts(o));
  if (!r.ok) throw new Error(r.error);
  return r.program;
};

describe('admission CEL environment', () => {
  it('keeps JSON integers as int so arithmetic and int comparisons work', () => {
    expect(compile('object.spec.replicas + 1 == 4').evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: true });
    expect(compile('type(object.spec.replicas) == int').evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: true });
    expect(compile('object.spec.replicas', { kind: 'any' }).evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: 3 });
  });

  it('converts an object once per context and again when the context is given another object', () => {
    // the conversion is kept on the context: expressions sharing it read the same values, and a context whose
    // object is replaced (as a mutating policy's reinvocation does) reads the new object, not the kept conversion
    const c = ctx({ object: { ...deployment, spec: { replicas: 3 } } });
    const replicas = compile('object.spec.replicas', { kind: 'any' });
    expect(replicas.evaluate(c, { remaining: 1e6 })).toEqual({ ok: true, value: 3 });
    expect(compile('object.spec.replicas == 3').evaluate(c, { remaining: 1e6 })).toEqual({ ok: true, value: true });
    c.object = { ...deployment, spec: { replicas: 5 } };
    expect(replicas.evaluate(c, { remaining: 1e6 })).toEqual({ ok: true, value: 5 });
    expect(compile('oldObject == null && request.userInfo.username == "alice"').evaluate(c, { remaining: 1e6 })).toEqual({ ok: true, value: true });
    c.request = { ...c.request, userInfo: { username: 'bob', groups: [] } };
    expect(compile('request.userInfo.username', { kind: 'any' }).evaluate(c, { remaining: 1e6 })).toEqual({ ok: true, value: 'bob' });
  });

  it('tells null from absent: oldObject is null on CREATE, has() is false for missing fields', () => {
    expect(compile('oldObject == null && !has(object.spec.paused)').evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: true });
  });

  it('prints compile errors as kube-apiserver does', () => {
    expect(env.compile('object.spec.replicas >', opts())).toEqual({
      ok: false,
      error:
        "compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.spec.replicas >\n | ......................^",
    });
    expect(env.compile("request.nmae == 'x'", opts())).toMatchObject({ ok: false, error: expect.stringContaining("undefined field 'nmae'") });
  });

  it('rejects a validation that cannot be bool and a message that cannot be string', () => {
    expect(env.compile("'denied'", opts())).toEqual({ ok: false, error: 'must evaluate to bool' });
    expect(env.compile('1 + 1', opts({ kind: 'string' }))).toEqual({ ok: false, error: 'must evaluate to string' });
    expect(env.compile("'replicas: ' + string(object.spec.replicas)", opts({ kind: 'string' })).ok).toBe(true);
  });

  it('declares params only with a paramKind and namespaceObject and variables only outside webhook matchConditions', () => {
    expect(env.compile('params.max > 1', opts())).toMatchObject({ ok: false, error: expect.stringContaining("undeclared reference to 'params'") });
    expect(env.compile('params.max > 1', opts({ hasParams: true })).ok).toBe(true);
    expect(env.compile("namespaceObject.metadata.name == 'x'", opts({ forWebhookMatchCondition: true }))).toMatchObject({ ok: false });
    expect(env.compile('variables.a', opts({ forWebhookMatchCondition: true, variableNames: ['a'] }))).toMatchObject({ ok: false });
    expect(env.compile('type(authorizer) == type', opts())).toMatchObject({ ok: false });
    expect(env.compile("namespaceObject.metadata.labels.env == 'prod'", opts()).ok).toBe(true);
  });

  it('evaluates variables lazily, only the ones referenced, with their CEL types intact', () => {
    const calls: string[] = [];
    const isProd = compile("namespaceObject.metadata.labels.env == 'prod'");
    const timeout = compile("duration('30s')", { kind: 'any' });
    const memo = new Map<string, EvalResult>();
    const budget = { remaining: celLimits.runtimeCostBudget };
    const c: EvalContext = ctx({
      variable: (name) => {
        if (!memo.has(name)) {
          calls.push(name);
          memo.set(name, (name === 'isProd' ? isProd : timeout).evaluate(c, budget));
        }
        return memo.get(name)!;
      },
    });
    const expr = compile("variables.isProd && variables.isProd && variables.timeout > duration('10s')", { variableNames: ['isProd', 'timeout', 'unused'] });
    expect(expr.evaluate(c, budget)).toEqual({ ok: true, value: true });
    expect(calls).toEqual(['isProd', 'timeout']);
    expect(env.compile('variables.nope', opts({ variableNames: ['isProd'] }))).toMatchObject({ ok: false, error: expect.stringContaining("undefined field 'nope'") });
  });

  it('shares the budget across expressions and reports running out of it', () => {
    const p = compile('object.spec.replicas > 0');
    const budget = { remaining: 7 };
    expect(p.evaluate(ctx(), budget)).toEqual({ ok: true, value: true });
    expect(budget.remaining).toBe(3);
    expect(p.evaluate(ctx(), budget)).toEqual({
      ok: false,
      kind: 'budget',
      error: 'validation failed due to running out of cost budget, no further validation rules will be run',
    });
  });

  it('stops an expression at the per-call limit', () => {
    const big = { ...deployment, spec: { items: Array.from({ length: 2000 }, (_, i) => i) } };
    const p = compile('object.spec.items.all(x, object.spec.items.all(y, x + y >= 0))');
    expect(p.evaluate(ctx({ object: big }), { remaining: 1e12 })).toEqual({ ok: false, kind: 'cost', error: 'operation cancelled: actual cost limit exceeded' });
  });

  it('reports runtime errors as kube does', () => {
    expect(compile('object.spec.missing > 1').evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: false, kind: 'runtime', error: 'no such key: missing' });
  });

  it('gives the same results when an expression is evaluated again, after a cancellation, and from within its own evaluation', () => {
    // an expression reuses its evaluation state from one evaluation to the next; none of it may leak between them
    const p = compile('variables.again && object.spec.items.all(x, x >= 0)', { variableNames: ['again'] });
    const small = { ...deployment, spec: { items: [1, 2, 3] } };
    const negative = { ...deployment, spec: { items: [-1] } };
    const big = { ...deployment, spec: { items: Array.from({ length: 400_000 }, (_, i) => i) } };
    const plain = (object: typeof small): EvalContext => ctx({ object, variable: () => ({ ok: true, value: true }) });
    const first = { remaining: 1e9 };
    expect(p.evaluate(plain(small), first)).toEqual({ ok: true, value: true });
    // the same compiled expression, evaluated while it is evaluating, over another object (where it is false)
    const nested: EvalResult[] = [];
    const nesting = ctx({
      object: small,
      variable: () => {
        nested.push(p.evaluate(plain(negative), { remaining: 1e9 }));
        return { ok: true, value: true };
      },
    });
    const outer = { remaining: 1e9 };
    expect(p.evaluate(nesting, outer)).toEqual({ ok: true, value: true });
    expect(nested).toEqual([{ ok: true, value: false }]);
    expect(outer.remaining).toBe(first.remaining);
    expect(p.evaluate(plain(big), { remaining: 1e9 })).toEqual({ ok: false, kind: 'cost', error: 'operation cancelled: actual cost limit exceeded' });
    const again = { remaining: 1e9 };
    expect(p.evaluate(plain(small), again)).toEqual({ ok: true, value: true });
    expect(again.remaining).toBe(first.remaining);
    // and so does the same expression in a new environment, whose program was never evaluated
    const other = createCelEnvironment().compile('variables.again && object.spec.items.all(x, x >= 0)', opts({ variableNames: ['again'] }));
    if (!other.ok) throw new Error(other.error);
    const once = { remaining: 1e9 };
    expect(other.program.evaluate(ctx({ object: small, variable: () => ({ ok: true, value: true }) }), once)).toEqual({ ok: true, value: true });
    expect(once.remaining).toBe(first.remaining);
  });

  it('caches compiled programs by expression and options', () => {
    const a = env.compile('object.spec.replicas > 1', opts());
    const b = env.compile('object.spec.replicas > 1', opts());
    const c = env.compile('object.spec.replicas > 1', opts({ hasParams: true }));
    expect(a.ok && b.ok && a.program === b.program).toBe(true);
    expect(a.ok && c.ok && a.program !== c.program).toBe(true);
  });

  it('builds ApplyConfiguration and JSONPatch values for mutations', () => {
    const apply = compile('Object{spec: Object.spec{replicas: object.spec.replicas + 1}}', { kind: 'any', mutation: 'ApplyConfiguration' });
    expect(apply.evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: { spec: { replicas: 4 } } });
    const patch = compile("[JSONPatch{op: 'replace', path: '/spec/replicas', value: 5}]", { kind: 'any', mutation: 'JSONPatch' });
    expect(patch.evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: [{ op: 'replace', path: '/spec/replicas', value: 5 }] });
    expect(env.compile('JSONPatch{op: 1}', opts({ kind: 'any', mutation: 'JSONPatch' }))).toMatchObject({
      ok: false,
      error: expect.stringContaining("expected type of field 'op' is 'string' but provided type is 'int'"),
    });
  });

  it('exposes the request as typed fields and userInfo', () => {
    expect(compile("request.operation == 'CREATE' && 'dev' in request.userInfo.groups").evaluate(ctx(), { remaining: 1e6 })).toEqual({ ok: true, value: true });
  });

  it('declares authorizer when asked and binds the request authorizer', () => {
    const p = compile('type(authorizer) == kubernetes.authorization.Authorizer', { hasAuthorizer: true });
    const authorizer = {
      check: () => ({ decision: 'allow' as const, reason: '' }),
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments', subresource: '', namespace: 'default', name: 'web' },
    };
    expect(p.evaluate(ctx({ authorizer }), { remaining: 1e6 })).toEqual({ ok: true, value: true });
  });

  it('gives a static cost estimate for write-time checks', () => {
    expect(compile('object.spec.replicas > 1').estimatedCost).toBe(4);
  });
});

// kube's admission compiler over the 1.36 base environment (kubernetesCelEnvironment): what the validators, the
// library set and the runtime give for policy expressions, with kube's texts.
describe('Kubernetes 1.36 CEL environment for admission', () => {
  const kenv = kubernetesCelEnvironment();
  const kcompile = (expr: string, o: Partial<CompileOptions> = {}) => kenv.compile(expr, opts(o));
  const keval = (expr: string, c: Partial<EvalContext> = {}, o: Partial<CompileOptions> = {}) => {
    const r = kcompile(expr, o);
    if (!r.ok) throw new Error(r.error);
    return r.program.evaluate(ctx(c), { remaining: 1e6 });
  };

  it('rejects heterogeneous list and map literals with the checker text (cel.HomogeneousAggregateLiterals)', () => {
    expect(kcompile("object.metadata.name in ['web', 1]")).toEqual({
      ok: false,
      error: "compilation failed: ERROR: <input>:1:33: expected type 'string' but found 'int'\n | object.metadata.name in ['web', 1]\n | ................................^",
    });
    expect(kcompile("object.metadata.name in ['web', 'api']").ok).toBe(true);
  });

  it('validates constant matches patterns at compile time and constant find patterns at program creation', () => {
    expect(kcompile("object.metadata.name.matches('[a-z')")).toEqual({
      ok: false,
      error: "compilation failed: ERROR: <input>:1:30: invalid matches argument\n | object.metadata.name.matches('[a-z')\n | .............................^",
    });
    expect(kcompile("object.metadata.name.find('(web') != ''")).toEqual({
      ok: false,
      error: 'program instantiation failed: error parsing regexp: missing closing ): `(web`',
      internal: true,
    });
    expect(kcompile("duration('1d') > duration('1h')")).toMatchObject({ ok: false, error: expect.stringContaining('invalid duration argument') });
  });

  it('offers the lists extension at version 3 and neither the math nor the encoders extension', () => {
    expect(keval("object.metadata.name.split('').sortBy(c, c).distinct().reverse().slice(0, 2) == ['w', 'e']")).toEqual({ ok: true, value: true });
    expect(keval('lists.range(3) == [0, 1, 2] && [[1], [2]].flatten() == [1, 2] && [3, 1, 2].sort() == [1, 2, 3]')).toEqual({ ok: true, value: true });
    expect(kcompile('math.greatest(1, 2) == 2')).toMatchObject({ ok: false, error: expect.stringContaining("undeclared reference to 'math' (in container '')") });
    expect(kcompile("base64.encode(b'a') == 'YQ=='")).toMatchObject({ ok: false, error: expect.stringContaining("undeclared reference to 'base64' (in container '')") });
    expect(kcompile("'abc'.reverse() == 'cba'")).toMatchObject({ ok: false, error: expect.stringContaining("found no matching overload for 'reverse' applied to 'string.()'") });
  });

  // kube condition_test.go "test deny paramKind without paramRef" / "test allow paramKind without paramRef": a policy
  // with a paramKind whose binding has no paramRef evaluates with params = null. cel-go's refQualify makes a field of
  // null a missing key, and has() of it false rather than an error.
  it('treats a null params as kube does: params == null, no such key on selection, has() false', () => {
    const p = { hasParams: true };
    expect(keval('params != null', { params: null }, p)).toEqual({ ok: true, value: false });
    expect(keval('params == null', { params: null }, p)).toEqual({ ok: true, value: true });
    expect(keval('params.maxReplicas > 1', { params: null }, p)).toEqual({ ok: false, kind: 'runtime', error: 'no such key: maxReplicas' });
    expect(keval("params['maxReplicas'] > 1", { params: null }, p)).toEqual({ ok: false, kind: 'runtime', error: 'no such key: maxReplicas' });
    expect(keval('has(params.maxReplicas)', { params: null }, p)).toEqual({ ok: true, value: false });
    expect(keval('!has(params.spec) || params.spec.max > 1', { params: null }, p)).toEqual({ ok: true, value: true });
    expect(keval('params.?maxReplicas.orValue(3) == 3', { params: null }, p)).toEqual({ ok: true, value: true });
    expect(keval('has(params.spec.max)', { params: null }, p)).toEqual({ ok: false, kind: 'runtime', error: 'no such key: spec' });
  });
});
