// Runtime values of `self`/`oldSelf`: kube's list-type semantics (set and map lists compare without order and merge
// on `+`) and escaped property names, evaluated through the rules' own environment.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import { schemaDeclType } from '../../admission/cel/schema-types.js';
import { toJSON, type CelResult } from '../../admission/cel/engine/values.js';
import { compileSchemaValidations } from './index.js';
import { unescapeProperty } from './object-values.js';
import { compileRuleExpression } from './rule-environment.js';
import { schemaValueToCel } from './schema-values.js';

function evalRule(schema: JSONSchemaProps, expr: string, self: unknown, oldSelf?: unknown): CelResult {
  const type = schemaDeclType(schema, 'selfType1', false);
  if (!type) throw new Error('schema has no CEL type');
  const c = compileRuleExpression(expr, type, { optionalOldSelf: false });
  if (!c.ok) throw new Error(c.issues);
  const bindings = new Map([
    ['self', schemaValueToCel(self, schema)],
    ['oldSelf', oldSelf === undefined ? undefined : schemaValueToCel(oldSelf, schema)],
  ]);
  return c.program.evaluate({ resolve: (n) => bindings.get(n) }).value;
}

const json = (v: CelResult): unknown => toJSON(v as Parameters<typeof toJSON>[0]);

const setList: JSONSchemaProps = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
const atomicList: JSONSchemaProps = { type: 'array', items: { type: 'string' } };
const mapList: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name', 'port'],
  items: { type: 'object', required: ['name', 'port'], properties: { name: { type: 'string' }, port: { type: 'integer' }, value: { type: 'string' } } },
};

describe('set and map lists (kube unstructuredSetList / unstructuredMapList)', () => {
  it.each<[string, JSONSchemaProps, unknown, unknown, boolean]>([
    ['a reordered set', setList, ['a', 'b', 'c'], ['c', 'a', 'b'], true],
    ['a set with another element', setList, ['a', 'b'], ['a', 'c'], false],
    ['a set of another size', setList, ['a', 'b'], ['a'], false],
    ['a reordered atomic list', atomicList, ['a', 'b'], ['b', 'a'], false],
    [
      'a reordered map list',
      mapList,
      [{ name: 'a', port: 1, value: 'x' }, { name: 'a', port: 2 }],
      [{ name: 'a', port: 2 }, { name: 'a', port: 1, value: 'x' }],
      true,
    ],
    ['a map list whose item changed', mapList, [{ name: 'a', port: 1, value: 'x' }], [{ name: 'a', port: 1, value: 'y' }], false],
    ['a map list with another key', mapList, [{ name: 'a', port: 1 }], [{ name: 'a', port: 2 }], false],
  ])('self == oldSelf on %s is %s', (_name, schema, self, old, want) => {
    expect(evalRule(schema, 'self == oldSelf', self, old)).toBe(want);
    expect(evalRule(schema, 'self != oldSelf', self, old)).toBe(!want);
  });

  it('decides by the left operand, as cel-go\'s lhs.Equal(rhs): a literal list compares in order', () => {
    expect(evalRule(setList, "self == ['b', 'a']", ['a', 'b'])).toBe(true);
    expect(evalRule(setList, "['b', 'a'] == self", ['a', 'b'])).toBe(false);
  });

  it('merges a set on +: the union, in the order of first appearance', () => {
    expect(json(evalRule(setList, "self + ['c', 'a', 'd', 'd']", ['a', 'b', 'c']))).toEqual(['a', 'b', 'c', 'd']);
    expect(json(evalRule(setList, 'self + oldSelf', ['a', 'b'], ['c', 'b']))).toEqual(['a', 'b', 'c']);
    // the result is still a set
    expect(evalRule(setList, "self + ['c'] == ['c', 'b', 'a']", ['a', 'b'])).toBe(true);
    expect(json(evalRule(atomicList, "self + ['a']", ['a', 'b']))).toEqual(['a', 'b', 'a']);
  });

  it('merges a map list on +: items with the same keys are replaced in place, others appended', () => {
    const out = evalRule(mapList, 'self + oldSelf', [{ name: 'a', port: 1, value: 'new' }, { name: 'b', port: 1 }], [
      { name: 'c', port: 1 },
      { name: 'a', port: 1, value: 'old' },
    ]);
    expect(json(out)).toEqual([{ name: 'a', port: 1, value: 'old' }, { name: 'b', port: 1 }, { name: 'c', port: 1 }]);
  });
});

describe('escaped property names (kube cel.Escape / Unescape)', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      namespace: { type: 'string' },
      if: { type: 'integer' },
      'x-y': { type: 'string' },
      'a.b': { type: 'string' },
      'a/b': { type: 'string' },
      a__b: { type: 'string' },
      '1st': { type: 'string' },
    },
  };
  const obj = { namespace: 'ns', if: 3, 'x-y': 'dash', 'a.b': 'dot', 'a/b': 'slash', a__b: 'under', '1st': 'first' };

  it.each<[string, unknown]>([
    ['self.__namespace__', 'ns'],
    ['self.namespace', 'ns'],
    ['self.__if__ + 1', 4n],
    ['self.x__dash__y', 'dash'],
    ['self.a__dot__b', 'dot'],
    ['self.a__slash__b', 'slash'],
    ['self.a__underscores__b', 'under'],
    ['has(self.__namespace__) && has(self.x__dash__y)', true],
    ['self == oldSelf', true],
  ])('evaluates %s', (expr, want) => {
    expect(evalRule(schema, expr, obj, obj)).toBe(want);
  });

  it('reads an absent escaped property as absent', () => {
    expect(evalRule(schema, 'has(self.x__dash__y)', { namespace: 'ns' })).toBe(false);
    expect(evalRule(schema, "self.?x__dash__y.orValue('none')", { namespace: 'ns' })).toBe('none');
  });

  it('does not expose a property whose name starts with a digit', () => {
    const type = schemaDeclType(schema, 'selfType1', false);
    expect(compileRuleExpression('self.__1st__ == "x"', type!, { optionalOldSelf: false }).ok).toBe(false);
  });

  it.each<[string, string | undefined]>([
    ['x__dash__y', 'x-y'],
    ['__namespace__', 'namespace'],
    ['a__underscores__b__dot__c', 'a__b.c'],
    ['plain', 'plain'],
    ['a__in__b', undefined],
    ['__foo__', undefined],
  ])('unescapes %s as kube does', (escaped, property) => {
    expect(unescapeProperty(escaped)).toBe(property);
  });
});

describe('transition rules and ratcheting over set and map lists', () => {
  const fldPath = FieldPath.root('spec', 'versions').index(0).child('schema', 'openAPIV3Schema');
  const crd = (list: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec: { type: 'object', properties: { ports: list } } } });
  const cr = (ports: unknown[]) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { ports } });
  const validate = (schema: JSONSchemaProps, obj: unknown, old: unknown) => {
    const r = compileSchemaValidations(schema, { fldPath });
    expect(r.errors.map(formatFieldError)).toEqual([]);
    const out = r.validator.validate(obj, old);
    return { errors: out.errors.map(formatFieldError), warnings: out.warnings };
  };

  it('lets an immutable set be reordered, not changed', () => {
    const schema = crd({ ...setList, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] });
    expect(validate(schema, cr(['b', 'a']), cr(['a', 'b'])).errors).toEqual([]);
    expect(validate(schema, cr(['a', 'c']), cr(['a', 'b'])).errors).toEqual(['spec.ports: Invalid value: "array": immutable']);
  });

  it('ratchets a failing rule on a map list that was only reordered', () => {
    const schema = crd({ ...mapList, 'x-kubernetes-validations': [{ rule: 'self.all(p, p.port > 1)', message: 'ports must be above 1' }] });
    const old = cr([{ name: 'a', port: 1 }, { name: 'b', port: 2 }]);
    expect(validate(schema, cr([{ name: 'b', port: 2 }, { name: 'a', port: 1 }]), old)).toEqual({
      errors: [],
      warnings: ['spec.ports: Invalid value: "array": ports must be above 1'],
    });
    expect(validate(schema, cr([{ name: 'b', port: 2 }, { name: 'a', port: 1, value: 'x' }]), old).errors).toEqual([
      'spec.ports: Invalid value: "array": ports must be above 1',
    ]);
  });

  it('does not ratchet a reordered set (kube compares sets with reflect.DeepEqual)', () => {
    const schema = crd({ ...setList, 'x-kubernetes-validations': [{ rule: "!('x' in self)", message: 'no x' }] });
    expect(validate(schema, cr(['x', 'a']), cr(['x', 'a']))).toEqual({ errors: [], warnings: ['spec.ports: Invalid value: "array": no x'] });
    expect(validate(schema, cr(['a', 'x']), cr(['x', 'a'])).errors).toEqual(['spec.ports: Invalid value: "array": no x']);
  });
});
