import { CelEngineEnv } from '../engine/env.js';
import { T } from '../engine/types.js';
import { createCelEnvironment } from '../index.js';
import { kubernetesCelEnvironment } from '../kubernetes.js';
import { escapeJsonPatchKey, jsonPatchLibrary } from './jsonpatch.js';
import { kubernetesLibraries, mutationLibraries } from './index.js';

const env = new CelEngineEnv({ libraries: [...kubernetesLibraries, jsonPatchLibrary] });

function run(expr: string, vars: Record<string, string> = {}) {
  const c = env.compile(expr, { variables: new Map(Object.keys(vars).map((k) => [k, T.string])) });
  if (!c.ok) throw new Error(c.message);
  const out = c.program.evaluate({ resolve: (n) => vars[n] }, { presenceTestHasCost: false });
  return { value: out.value, cost: out.cost, estimate: c.program.estimateCost() };
}

describe('jsonpatch.escapeKey', () => {
  it.each([
    // jsonpatch.go's example
    ['k8s.io/my~label', 'k8s.io~1my~0label'],
    ['example.com/environment', 'example.com~1environment'],
    ['plain', 'plain'],
    ['', ''],
    ['a/b/c', 'a~1b~1c'],
    ['~~', '~0~0'],
    // one pass, as strings.NewReplacer: an already escaped key is escaped again
    ['~1', '~01'],
    ['/~', '~1~0'],
    ['ünï/cødé', 'ünï~1cødé'],
  ])('escapes %j as %j', (key, want) => {
    expect(escapeJsonPatchKey(key)).toBe(want);
    expect(run('jsonpatch.escapeKey(k)', { k: key }).value).toBe(want);
  });

  it('builds a JSON Patch path for a label key', () => {
    expect(run(`"/metadata/labels/" + jsonpatch.escapeKey('k8s.io/my~label')`).value).toBe('/metadata/labels/k8s.io~1my~0label');
  });

  it('costs a traversal of its argument (cost.go), estimated from the argument size', () => {
    // ceil(15 * 0.1) for the call; the literal costs nothing
    expect(run(`jsonpatch.escapeKey('k8s.io/my~label')`).cost).toBe(2);
    // ceil(101 * 0.1) for the call, 1 for reading the variable
    expect(run(`jsonpatch.escapeKey(k)`, { k: 'x'.repeat(101) }).cost).toBe(11 + 1);
    expect(run(`jsonpatch.escapeKey('k8s.io/my~label')`).estimate).toEqual({ min: 2, max: 2 });
    expect(jsonPatchLibrary.functions![0]!.estimate!({ args: [{ min: 10, max: 95 }] })).toEqual({ cost: { min: 1, max: 10 }, resultSize: { min: 10, max: 95 } });
  });

  it('is a mutation library, not part of the base environment', () => {
    expect(mutationLibraries).toContain(jsonPatchLibrary);
    expect(kubernetesLibraries).not.toContain(jsonPatchLibrary);
  });
});

describe('jsonpatch.escapeKey in the admission environment', () => {
  const cel = kubernetesCelEnvironment();
  const base = { hasParams: false, hasAuthorizer: true, variableNames: [] as string[] };
  const expression = `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/env"), value: "test"}]`;

  it('is declared for JSONPatch and ApplyConfiguration mutations (kube\'s hasPatchTypes environment)', () => {
    expect(cel.compile(expression, { ...base, kind: 'any', mutation: 'JSONPatch' }).ok).toBe(true);
    expect(cel.compile(`Object{metadata: Object.metadata{labels: {jsonpatch.escapeKey("a/b"): "x"}}}`, { ...base, kind: 'any', mutation: 'ApplyConfiguration' }).ok).toBe(true);
  });

  it('is undeclared in validations, matchConditions and variables, as cel-go reports it', () => {
    const r = cel.compile(`jsonpatch.escapeKey("a/b") == "a~1b"`, { ...base, kind: 'bool' });
    expect(r).toEqual({
      ok: false,
      error: [
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'jsonpatch' (in container '')",
        ' | jsonpatch.escapeKey("a/b") == "a~1b"',
        ' | ^',
        "ERROR: <input>:1:20: undeclared reference to 'escapeKey' (in container '')",
        ' | jsonpatch.escapeKey("a/b") == "a~1b"',
        ' | ...................^',
      ].join('\n'),
    });
  });

  it('evaluates in a mutation', () => {
    const c = cel.compile(expression, { ...base, kind: 'any', mutation: 'JSONPatch' });
    if (!c.ok) throw new Error(c.error);
    const r = c.program.evaluate({ object: null, oldObject: null, request: {} }, { remaining: 1_000_000 });
    expect(r).toEqual({ ok: true, value: [{ op: 'add', path: '/metadata/labels/example.com~1env', value: 'test' }] });
  });

  it('is left out of an environment created without mutation libraries', () => {
    const plain = createCelEnvironment({ libraries: [...kubernetesLibraries] });
    expect(plain.compile(expression, { ...base, kind: 'any', mutation: 'JSONPatch' }).ok).toBe(false);
  });
});
