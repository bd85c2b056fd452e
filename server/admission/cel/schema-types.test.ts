// Schema-derived CEL types (kube's SchemaDeclType) and the checker's use of them: declared fields, cel-go's
// "undefined field" errors with positions, maps/lists/formats, int-or-string as dyn, escaping.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { CelEngineEnv } from './engine/env.js';
import { formatType, type CelType } from './engine/types.js';
import { celTypeOfSchema, escapeFieldName, schemaDeclType, unescapeFieldName } from './schema-types.js';

const widget: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' }, namespace: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } }, creationTimestamp: { type: 'string', format: 'date-time' } } },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        ratio: { type: 'number' },
        paused: { type: 'boolean' },
        port: { 'x-kubernetes-int-or-string': true },
        target: { type: 'string', format: 'int-or-string' },
        timeout: { type: 'string', format: 'duration' },
        blob: { type: 'string', format: 'byte' },
        'dashed-name': { type: 'string' },
        '1digit': { type: 'string' },
        untyped: { description: 'no type: not exposed' },
        quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
        limits: { type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
        containers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } } },
        noItems: { type: 'array' },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'integer' } } } } },
      },
    },
  },
};

const env = new CelEngineEnv();
const objType = celTypeOfSchema(widget, 'Widget');
const vars = new Map<string, CelType>([['object', objType]]);

function typeOf(expr: string): string {
  const c = env.compile(expr, { variables: vars });
  if (!c.ok) throw new Error(c.message);
  return formatType(c.program.type);
}
function errorOf(expr: string): string {
  const c = env.compile(expr, { variables: vars });
  if (c.ok) throw new Error(`checked: ${expr}`);
  return c.message;
}

describe('celTypeOfSchema', () => {
  it.each([
    ['object.spec.replicas', 'int'],
    ['object.spec.ratio', 'double'],
    ['object.spec.paused', 'bool'],
    ['object.spec.port', 'dyn'],
    ['object.spec.target', 'dyn'],
    ['object.spec.timeout', 'google.protobuf.Duration'],
    ['object.spec.blob', 'bytes'],
    ['object.spec.dashed__dash__name', 'string'],
    ['object.metadata.labels', 'map(string, string)'],
    ['object.metadata.creationTimestamp', 'google.protobuf.Timestamp'],
    ['object.metadata.namespace', 'string'],
    ['object.spec.containers', 'list(Widget.spec.containers.@idx)'],
    ['object.spec.containers[0].image', 'string'],
    ['object.spec.containers.map(c, c.name)', 'list(string)'],
    ['object.spec', 'Widget.spec'],
    ['has(object.spec.replicas)', 'bool'],
    ['object.?spec.?replicas', 'optional_type(int)'],
    ['object.spec.embedded.kind', 'string'],
    ['object.spec.embedded.metadata.name', 'string'],
    ['object.spec.embedded.spec.x', 'int'],
  ])('types %s as %s', (expr, want) => {
    expect(typeOf(expr)).toBe(want);
  });

  it.each([
    ['object.spec.replicass > 1', "ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^"],
    ["object.spec.replicas > '1'", "ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > '1'\n | .....................^"],
    ["'got ' + object.spec.replicas", "ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'\n | 'got ' + object.spec.replicas\n | .......^"],
    // the presence test sits at the macro's call position, as cel-go places expanded macros
    ['has(object.spec.replicass)', "ERROR: <input>:1:4: undefined field 'replicass'\n | has(object.spec.replicass)\n | ...^"],
    ['object.spec.untyped', "ERROR: <input>:1:12: undefined field 'untyped'\n | object.spec.untyped\n | ...........^"],
    ['object.spec.quantity', "ERROR: <input>:1:12: undefined field 'quantity'\n | object.spec.quantity\n | ...........^"],
    ['object.spec.limits', "ERROR: <input>:1:12: undefined field 'limits'\n | object.spec.limits\n | ...........^"],
    ['object.spec.noItems', "ERROR: <input>:1:12: undefined field 'noItems'\n | object.spec.noItems\n | ...........^"],
    ['object.spec.raw.anything', "ERROR: <input>:1:16: undefined field 'anything'\n | object.spec.raw.anything\n | ...............^"],
    ['object.spec == 1', "ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(Widget.spec, int)'\n | object.spec == 1\n | ............^"],
  ])('rejects %s', (expr, want) => {
    expect(errorOf(expr)).toBe(want);
  });

  it('gives a resource root kind, apiVersion and metadata.name/generateName only when it declares no full metadata', () => {
    const bare = schemaDeclType({ type: 'object', properties: { spec: { type: 'object' } } }, 'Bare', true)!;
    expect(bare.kind === 'object' && bare.fields?.names()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    const meta = bare.kind === 'object' ? bare.fields!.field('metadata')! : undefined;
    expect(meta?.kind === 'object' && meta.fields?.names()).toEqual(['generateName', 'name']);
    const notRoot = schemaDeclType({ type: 'object', properties: { spec: { type: 'object' } } }, 'Nested', false)!;
    expect(notRoot.kind === 'object' && notRoot.fields?.names()).toEqual(['spec']);
  });

  it('is dyn for a schema CEL cannot represent', () => {
    expect(celTypeOfSchema({}, 'X', { isResourceRoot: false })).toEqual({ kind: 'dyn' });
  });

  it.each([
    ['name', 'name'],
    ['namespace', '__namespace__'],
    ['dashed-name', 'dashed__dash__name'],
    ['a.b/c', 'a__dot__b__slash__c'],
    ['x__y', 'x__underscores__y'],
  ])('escapes property %s as %s and back', (property, field) => {
    expect(escapeFieldName(property)).toBe(field);
    expect(unescapeFieldName(field)).toBe(property);
  });

  it('cannot escape names with a leading digit or other characters', () => {
    expect(escapeFieldName('1digit')).toBeUndefined();
    expect(escapeFieldName('a b')).toBeUndefined();
  });
});
