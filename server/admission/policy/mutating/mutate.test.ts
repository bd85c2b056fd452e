// One mutation end to end through the CEL environment: kube's TestJSONPatch and TestApplyConfiguration cases
// (admission/plugin/policy/mutating/patch), on a Deployment.
import type { KubeObject } from '../../../api/types.js';
import { kubernetesCelEnvironment } from '../../cel/kubernetes.js';
import { compileMutatingPolicy } from './compile.js';
import { jsonPatchOperationsOf, strictDecodingError } from './json-patch.js';
import { loadApplySchema } from './apply-schema.js';
import { applyMutation, type MutationOutcome } from './mutate.js';
import { applyConfiguration, jsonPatch, map } from './test-fixtures.js';

const cel = kubernetesCelEnvironment();
const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function deploymentWith(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}
const containers = (...names: string[]) => ({ template: { spec: { containers: names.map((name) => ({ name })) } } });

function run(kind: 'JSONPatch' | 'ApplyConfiguration', expression: string, object: KubeObject, oldObject: KubeObject | null = null): MutationOutcome {
  const e = compileMutatingPolicy(map('p', [kind === 'JSONPatch' ? jsonPatch(expression) : applyConfiguration(expression)]), cel);
  return applyMutation(e.mutations[0]!, e.variables, { object, activation: { oldObject, request: {}, params: null, namespaceObject: null }, kind: deploymentKind });
}

function patched(kind: 'JSONPatch' | 'ApplyConfiguration', expression: string, object: KubeObject, oldObject: KubeObject | null = null): KubeObject {
  const r = run(kind, expression, object, oldObject);
  if (!r.ok) throw new Error('status' in r ? r.status.message : r.error);
  return r.object;
}

function failure(kind: 'JSONPatch' | 'ApplyConfiguration', expression: string, object: KubeObject): string {
  const r = run(kind, expression, object);
  if (r.ok) throw new Error(`mutated: ${JSON.stringify(r.object)}`);
  return 'status' in r ? r.status.message : r.error;
}

describe('JSONPatch mutations (kube\'s TestJSONPatch)', () => {
  const table: Array<[string, string, KubeObject, KubeObject]> = [
    [
      'a false test operation leaves the object unchanged',
      `[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]`,
      deploymentWith({ replicas: 1 }),
      deploymentWith({ replicas: 1 }),
    ],
    [
      'a true test operation lets the rest apply',
      `[JSONPatch{op: "test", path: "/spec/replicas", value: 1}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]`,
      deploymentWith({ replicas: 1 }),
      deploymentWith({ replicas: 3 }),
    ],
    ['remove unsets a field', `[JSONPatch{op: "remove", path: "/spec/replicas"}]`, deploymentWith({ replicas: 1 }), deploymentWith({})],
    ['remove a map entry by key', `[JSONPatch{op: "remove", path: "/metadata/labels/y"}]`, deploymentWith({}, { labels: { x: '1', y: '1' } }), deploymentWith({}, { labels: { x: '1' } })],
    ['remove a list element', `[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]`, deploymentWith(containers('a', 'b', 'c')), deploymentWith(containers('a', 'c'))],
    ['copy a map entry', `[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]`, deploymentWith({}, { labels: { x: '1' } }), deploymentWith({}, { labels: { x: '1', y: '1' } })],
    [
      'copy the first element to the end of a list',
      `[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]`,
      deploymentWith(containers('a', 'b', 'c')),
      deploymentWith(containers('a', 'b', 'c', 'a')),
    ],
    ['move a map entry', `[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y"}]`, deploymentWith({}, { labels: { x: '1' } }), deploymentWith({}, { labels: { y: '1' } })],
    [
      'move the first element to the end of a list',
      `[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]`,
      deploymentWith(containers('a', 'b', 'c')),
      deploymentWith(containers('b', 'c', 'a')),
    ],
    ['add a map entry', `[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]`, deploymentWith({}, { labels: { y: '1' } }), deploymentWith({}, { labels: { y: '1', x: '2' } })],
    ['add a map to an existing map replaces it', `[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]`, deploymentWith({}, { labels: { x: '1' } }), deploymentWith({}, { labels: { y: '2' } })],
    ['add to the start of a list', `[JSONPatch{op: "add", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]`, deploymentWith(containers('a')), deploymentWith(containers('x', 'a'))],
    ['add to the end of a list', `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]`, deploymentWith(containers('a')), deploymentWith(containers('a', 'x'))],
    ['replace a key of a map (adds it)', `[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]`, deploymentWith({}, { labels: { y: '1' } }), deploymentWith({}, { labels: { y: '1', x: '2' } })],
    ['replace an unset map field', `[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]`, deploymentWith({}, {}), deploymentWith({}, { labels: { y: '2' } })],
    ['replace the first element of a list', `[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]`, deploymentWith(containers('a')), deploymentWith(containers('x'))],
    [
      'add an Object initializer value',
      `[JSONPatch{op: "add", path: "/spec", value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]`,
      deploymentWith({}),
      deploymentWith({ selector: {}, replicas: 10 }),
    ],
    [
      'JSONPatch fields can be read back',
      `[JSONPatch{op: "add", path: "/metadata/labels", value: {"op": JSONPatch{op: "opValue"}.op, "path": JSONPatch{path: "pathValue"}.path, "from": JSONPatch{from: "fromValue"}.from, "value": string(JSONPatch{value: "valueValue"}.value)}}]`,
      deploymentWith({}, { labels: {} }),
      deploymentWith({}, { labels: { op: 'opValue', path: 'pathValue', from: 'fromValue', value: 'valueValue' } }),
    ],
    [
      'a nested Object initializer in a list element',
      `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}]}}]`,
      deploymentWith(containers('a')),
      deploymentWith({ template: { spec: { containers: [{ name: 'a' }, { name: 'x', ports: [{ containerPort: 8080 }] }] } } }),
    ],
  ];

  it.each(table)('%s', (_name, expression, object, expected) => {
    expect(patched('JSONPatch', expression, object)).toEqual(expected);
  });

  it('fails with evanphx/json-patch\'s message behind "JSON Patch: "', () => {
    expect(failure('JSONPatch', `[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]`, deploymentWith(containers('a')))).toBe(
      'JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value',
    );
    expect(failure('JSONPatch', `[JSONPatch{op: "remove", path: "/metadata/labels/nope"}]`, deploymentWith({}, { labels: {} }))).toBe(
      "JSON Patch: error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
    );
  });

  it('answers an unknown top-level field in the patched object with kube\'s internal strict-decoding error', () => {
    const r = run('JSONPatch', `[JSONPatch{op: "add", path: "/bogus", value: 1}]`, deploymentWith({}));
    expect(r.ok).toBe(false);
    expect('status' in r && r.status.status).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: strict decoding error: unknown field "bogus"' });
  });

  it('builds operations as kube does: op and path always, from when set, value when set (null included)', () => {
    expect(jsonPatchOperationsOf([{ op: 'remove', path: '/a', from: '' }, { op: 'add', path: '/b', value: null }, {}])).toEqual({
      ok: true,
      operations: [{ op: 'remove', path: '/a' }, { op: 'add', path: '/b', value: null }, { op: '', path: '' }],
    });
    expect(jsonPatchOperationsOf({ op: 'add' })).toEqual({ ok: false, error: 'must evaluate to list(JSONPatch) but got map' });
    expect(strictDecodingError(['a', 'metadata.b'])).toBe('strict decoding error: unknown field "a", unknown field "metadata.b"');
  });
});

describe('ApplyConfiguration mutations (kube\'s TestApplyConfiguration)', () => {
  it('applies a conditional on object and on oldObject', () => {
    expect(patched('ApplyConfiguration', `Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0 ? object.spec.replicas + 1 : object.spec.replicas}}`, deploymentWith({ replicas: 2 }))).toEqual(
      deploymentWith({ replicas: 3 }),
    );
    expect(
      patched('ApplyConfiguration', `Object{spec: Object.spec{replicas: oldObject.spec.replicas % 2 == 0 ? oldObject.spec.replicas + 1 : oldObject.spec.replicas}}`, deploymentWith({ replicas: 1 }), deploymentWith({ replicas: 2 })),
    ).toEqual(deploymentWith({ replicas: 3 }));
  });

  it('initializes a whole pod template', () => {
    const expression = `Object{spec: Object.spec{replicas: 1, template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"app": "nginx"}}, spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", image: "nginx:1.14.2", ports: [Object.spec.template.spec.containers.ports{containerPort: 80}], resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "128M"}}}]}}}}`;
    expect(patched('ApplyConfiguration', expression, deploymentWith({}))).toEqual(
      deploymentWith({
        replicas: 1,
        template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } }] } },
      }),
    );
  });

  it('refuses a change to an atomic struct, an unknown field and a non-Object result', () => {
    expect(failure('ApplyConfiguration', `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}`, deploymentWith({ replicas: 1 }))).toBe(
      'error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector',
    );
    expect(failure('ApplyConfiguration', `Object{bogus: Object.bogus{replicas: 1}}`, deploymentWith({ replicas: 1 }))).toBe(
      'error applying patch: failed to convert patch object to typed object: .bogus: field not declared in schema',
    );
    expect(failure('ApplyConfiguration', `"I'm a teapot!"`, deploymentWith({ replicas: 1 }))).toBe('must evaluate to Object but got string');
  });

  it('reports a compile error as the compiler wrote it, and a runtime error as kube\'s filter does', () => {
    expect(failure('ApplyConfiguration', `Object{spec: Object.spec{replicas: }}`, deploymentWith({}))).toMatch(/^compilation failed: ERROR: <input>:1:/);
    expect(failure('ApplyConfiguration', `Object{spec: Object.spec{replicas: object.spec.nope}}`, deploymentWith({}))).toBe(
      "expression 'Object{spec: Object.spec{replicas: object.spec.nope}}' resulted in error: no such key: nope",
    );
  });
});

describe('result types, checked when the expression is compiled (kube\'s ReturnTypes, IsExactType)', () => {
  const compileError = (kind: 'JSONPatch' | 'ApplyConfiguration', expression: string): string | undefined => {
    const slot = compileMutatingPolicy(map('p', [kind === 'JSONPatch' ? jsonPatch(expression) : applyConfiguration(expression)]), cel).mutations[0]!.slot;
    return slot.compiled.ok ? undefined : slot.compiled.error;
  };

  it.each([
    ['ApplyConfiguration', 'Object{spec: Object.spec{replicas: 1}}', undefined],
    ['ApplyConfiguration', 'object.spec.replicas > 1 ? Object{} : Object{spec: Object.spec{replicas: 2}}', undefined],
    ['ApplyConfiguration', '"I\'m a teapot!"', 'must evaluate to Object but got string'],
    ['ApplyConfiguration', 'Object.spec{replicas: 1}', 'must evaluate to Object but got Object.spec'],
    ['ApplyConfiguration', 'object', 'must evaluate to Object but got dyn'],
    ['ApplyConfiguration', '{"spec": {"replicas": 1}}', 'must evaluate to Object but got map(string, map(string, int))'],
    ['ApplyConfiguration', 'null', 'must evaluate to Object but got null_type'],
    ['JSONPatch', '[JSONPatch{op: "remove", path: "/spec/replicas"}]', undefined],
    ['JSONPatch', 'object.spec.replicas > 1 ? [JSONPatch{op: "remove", path: "/spec/replicas"}] : []', undefined],
    ['JSONPatch', 'object.spec.template.spec.containers.map(c, JSONPatch{op: "test", path: "/spec/replicas", value: 1})', undefined],
    ['JSONPatch', '[]', 'must evaluate to list(JSONPatch) but got list(dyn)'],
    ['JSONPatch', 'JSONPatch{op: "remove", path: "/spec/replicas"}', 'must evaluate to list(JSONPatch) but got JSONPatch'],
    ['JSONPatch', '[{"op": "remove", "path": "/spec/replicas"}]', 'must evaluate to list(JSONPatch) but got list(map(string, string))'],
  ] as const)('%s %s: %s', (kind, expression, want) => {
    expect(compileError(kind, expression)).toBe(want);
  });

  it('answers an invocation with the compile error', () => {
    expect(failure('ApplyConfiguration', 'object', deploymentWith({}))).toBe('must evaluate to Object but got dyn');
    expect(failure('JSONPatch', '[]', deploymentWith({}))).toBe('must evaluate to list(JSONPatch) but got list(dyn)');
  });
});

describe('Object type names, checked after evaluation (kube\'s CheckTypeNamesMatchFieldPathNames)', () => {
  const mismatch = (got: string, want: string) => `unexpected type name "${got}", expected "${want}", which matches field name path from root Object type`;

  it('refuses an ApplyConfiguration whose Object initializer is not named after its field', () => {
    expect(failure('ApplyConfiguration', 'Object{spec: Object.spec{selector: Object.spec.wrong{}}}', deploymentWith({}))).toBe(`type mismatch: ${mismatch('Object.spec.wrong', 'Object.spec.selector')}`);
    // lists and maps are unnamed: their elements are at the field's path
    expect(failure('ApplyConfiguration', 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.container{name: "x"}]}}}}', deploymentWith({}))).toBe(
      `type mismatch: ${mismatch('Object.spec.template.spec.container', 'Object.spec.template.spec.containers')}`,
    );
    expect(failure('ApplyConfiguration', 'Object{spec: Object.spec{a: Object.spec.b{}, c: Object.spec.d{}}}', deploymentWith({}))).toBe(
      `type mismatch: ${mismatch('Object.spec.b', 'Object.spec.a')}\n${mismatch('Object.spec.d', 'Object.spec.c')}`,
    );
  });

  it('refuses a JSONPatch value initializer with a misnamed nested type (kube\'s "jsonPatch invalid CEL initializer type")', () => {
    const expression = `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]`;
    expect(failure('JSONPatch', expression, deploymentWith(containers('a')))).toBe(`type mismatch: ${mismatch('Object.spec.template.spec.containers.portsZ', 'Object.spec.template.spec.containers.ports')}`);
  });

  it('does not look into values read from the object, map literals of named values included', () => {
    expect(patched('ApplyConfiguration', 'Object{metadata: Object.metadata{labels: object.metadata.labels}}', deploymentWith({}, { labels: { a: 'b' } }))).toEqual(deploymentWith({}, { labels: { a: 'b' } }));
    expect(patched('JSONPatch', '[JSONPatch{op: "add", path: "/metadata/labels", value: {"x": "y"}}]', deploymentWith({}, {}))).toEqual(deploymentWith({}, { labels: { x: 'y' } }));
  });
});

describe('mutations with the Deployment\'s OpenAPI schema', () => {
  beforeAll(async () => {
    await loadApplySchema(deploymentKind);
  });

  it('names an unknown field deep in a JSON-patched object as the strict decoder does (kube\'s "jsonPatch invalid CEL initializer field")', () => {
    const expression = `[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}}]`;
    const r = run('JSONPatch', expression, deploymentWith(containers('a')));
    expect('status' in r && r.status.status.message).toBe('Internal error occurred: strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"');
  });

  it('refuses an undeclared field of an ApplyConfiguration at its depth', () => {
    expect(failure('ApplyConfiguration', 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "x", imageZ: "i"}]}}}}', deploymentWith({}))).toBe(
      'error applying patch: failed to convert patch object to typed object: .spec.template.spec.containers[name="x"].imageZ: field not declared in schema',
    );
  });

  it('adds a container by name and keeps the others (listType=map)', () => {
    const expression = 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "sidecar", image: "busybox"}]}}}}';
    expect(patched('ApplyConfiguration', expression, deploymentWith(containers('a')))).toEqual(
      deploymentWith({ template: { spec: { containers: [{ name: 'a' }, { name: 'sidecar', image: 'busybox' }] } } }),
    );
  });
});
