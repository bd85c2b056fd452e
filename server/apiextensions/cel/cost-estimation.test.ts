// kube's TestCostEstimation (apiextensions-apiserver schema/cel/compilation_test.go): the estimated cost of one rule
// on a schema without size limits ("calc") and with maxItems/maxProperties/maxLength set ("set"). The numbers are
// kube's; they depend on cel-go's estimator and on the schema-derived sizes of every path the rule touches.
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import { MAX_COST } from '../../admission/cel/engine/cost.js';
import { compileNodeRules } from './compiled-rules.js';
import { schemaSizeEstimator } from './schema-sizes.js';
import { compileSchemaValidations } from './index.js';

type Gen = (max: number | undefined) => JSONSchemaProps;

const withRule = (s: JSONSchemaProps, rule: string): JSONSchemaProps => ({ ...s, 'x-kubernetes-validations': [{ rule }] });
const opt = <K extends string>(key: K, v: number | undefined): Partial<Record<K, number>> => (v === undefined ? {} : ({ [key]: v } as Record<K, number>));

/** parseRuleType: duration/date/date-time are formatted strings, int-or-string has no type */
function itemOf(t: string): JSONSchemaProps {
  if (t === 'duration' || t === 'date' || t === 'date-time') return { type: 'string', format: t };
  if (t === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  return { type: t as JSONSchemaProps['type'] };
}

const objectItem = (): JSONSchemaProps => ({
  type: 'object',
  required: ['required'],
  properties: { required: { type: 'string' }, optional: { type: 'string' } },
});

const arrayWith = (t: string, rule: string): Gen => (max) => withRule({ type: 'array', items: itemOf(t), ...opt('maxItems', max) }, rule);
const arrayOfArrays = (t: string, rule: string): Gen => (max) =>
  withRule({ type: 'array', items: { type: 'array', items: { type: t as JSONSchemaProps['type'] } }, ...opt('maxItems', max) }, rule);
const objectArray = (rule: string): Gen => (max) => withRule({ type: 'array', items: objectItem(), ...opt('maxItems', max) }, rule);
const mapArray = (t: string, rule: string): Gen => (max) =>
  withRule({ type: 'array', items: { type: 'object', additionalProperties: { type: t as JSONSchemaProps['type'] } }, ...opt('maxItems', max) }, rule);
const mapWith = (t: string, rule: string): Gen => (max) => withRule({ type: 'object', additionalProperties: itemOf(t), ...opt('maxProperties', max) }, rule);
const mapWithItem = (item: JSONSchemaProps, rule: string): Gen => (max) => withRule({ type: 'object', additionalProperties: item, ...opt('maxProperties', max) }, rule);
const stringWith = (rule: string): Gen => (max) => withRule({ type: 'string', ...opt('maxLength', max) }, rule);
const bytesWith = (rule: string): Gen => (max) => withRule({ type: 'string', format: 'byte', ...opt('maxLength', max) }, rule);
const enumWith = (rule: string, ...values: string[]): Gen => (max) => withRule({ type: 'string', enum: values, ...opt('maxLength', max) }, rule);
const nestedSpec = (rule: string): Gen => (max) =>
  withRule({ type: 'object', additionalProperties: { type: 'string', ...opt('maxLength', max) }, ...opt('maxProperties', max) }, rule);
const allMaxNested = (rule: string): Gen => (max) =>
  withRule(
    {
      type: 'array',
      ...opt('maxItems', max),
      items: { type: 'object', ...opt('maxProperties', max), additionalProperties: { ...objectItem(), ...opt('maxProperties', max) } },
    },
    rule,
  );
const oneMaxNested = (rule: string): Gen => (max) =>
  withRule({ type: 'array', items: { type: 'object', ...opt('maxProperties', max), additionalProperties: objectItem() } }, rule);

/** [name, schema, calc cost (0: only "exceeds"), set max, set cost] */
const cases: [string, Gen, number | 'exceeds', number, number][] = [
  ['number array with all', arrayWith('number', 'self.all(x, true)'), 4718591, 10, 32],
  ['string array with all', arrayWith('string', 'self.all(x, true)'), 3145727, 20, 62],
  ['boolean array with all', arrayWith('boolean', 'self.all(x, true)'), 1887437, 5, 17],
  ['array of number arrays with all', arrayOfArrays('number', 'self.all(x, true)'), 3145727, 100, 302],
  ['array of objects with all', objectArray('self.all(x, true)'), 555128, 50, 152],
  ['map of numbers with all', mapWith('number', 'self.all(x, true)'), 1348169, 10, 32],
  ['map of strings with all', mapWith('string', 'self.all(x, true)'), 1179647, 3, 11],
  ['map of booleans with all', mapWith('boolean', 'self.all(x, true)'), 943718, 100, 302],
  ['string with contains', stringWith("self.contains('test')"), 314574, 10, 5],
  ['string with startsWith', stringWith("self.startsWith('test')"), 2, 15, 2],
  ['string with endsWith', stringWith("self.endsWith('test')"), 2, 30, 2],
  ['concat string', stringWith('size(self + "hello") > size("hello")'), 314578, 4, 7],
  ['index of array with numbers', arrayWith('number', 'self[1] == 0.0'), 2, 5000, 2],
  ['index of array with strings', arrayWith('string', 'self[1] == self[1]'), 314577, 8, 314577],
  ['O(n^2) loop with numbers', arrayWith('number', 'self.all(x, self.all(y, true))'), 'exceeds', 10, 352],
  ['O(n^3) loop with numbers', arrayWith('number', 'self.all(x, self.all(y, self.all(z, true)))'), 'exceeds', 10, 3552],
  ['regex matches simple', stringWith('self.matches("x")'), 314574, 50, 22],
  ['regex matches empty string', stringWith('"".matches("(((((((((())))))))))[0-9]")'), 7, 10, 7],
  ['regex matches empty regex', stringWith('self.matches("")'), 1, 100, 1],
  ['map of strings with value length', nestedSpec('self.all(x, x.contains(self[x]))'), 2752507, 10, 72],
  ['set array maxLength to zero', arrayWith('number', 'self[3] == 0.0'), 2, 0, 2],
  ['set map maxLength to zero', mapWith('number', 'self["x"] == 0.0'), 2, 0, 2],
  ['set string maxLength to zero', stringWith('self == "x"'), 2, 0, 1],
  ['set bytes maxLength to zero', bytesWith('self == b"x"'), 2, 0, 1],
  ['set maxLength greater than estimated maxLength', arrayWith('number', 'self.all(x, x == 0.0)'), 6291454, 3 * 1024 * 2048, 25165826],
  ['nested types with root rule with all supporting maxLength', allMaxNested('self.all(x, x["y"].required == "z")'), 7340027, 10, 72],
  ['nested types with root rule with one supporting maxLength', oneMaxNested('self.all(x, x["y"].required == "z")'), 7340027, 10, 7340027],
  ['int-or-string array with all', arrayWith('int-or-string', 'self.all(x, true)'), 4718591, 10, 32],
  ['index of array with int-or-strings', arrayWith('int-or-string', 'self[0] == 5'), 3, 10, 3],
  ['index of array with booleans', arrayWith('boolean', 'self[0] == false'), 2, 25, 2],
  ['index of array of objects', objectArray('self[0] == null'), 2, 422, 2],
  ['index of array of array of numbers', arrayOfArrays('number', 'self[0][0] == -1.0'), 3, 51, 3],
  ['array of number maps with all', mapArray('number', 'self.all(x, x.y == 25.2)'), 6291452, 12, 74],
  ['index of array of number maps', mapArray('number', 'self[0].x > 2.0'), 4, 3000, 4],
  ['duration array with all', arrayWith('duration', 'self.all(x, true)'), 2359295, 5, 17],
  ['index of duration array', arrayWith('duration', 'self[0].getHours() == 2'), 4, 525, 4],
  ['date array with all', arrayWith('date', 'self.all(x, true)'), 725936, 15, 47],
  ['index of date array', arrayWith('date', 'self[2].getDayOfMonth() == 13'), 4, 42, 4],
  ['date-time array with all', arrayWith('date-time', 'self.all(x, true)'), 428963, 25, 77],
  ['index of date-time array', arrayWith('date-time', 'self[2].getMinutes() == 45'), 4, 99, 4],
  ['map of int-or-strings with all', mapWith('int-or-string', 'self.all(x, true)'), 1348169, 15, 47],
  ['map of objects with all', mapWithItem(objectItem(), 'self.all(x, true)'), 428963, 20, 62],
  ['map of number maps with all', mapWithItem({ type: 'object', additionalProperties: { type: 'number' } }, 'self.all(x, true)'), 1179647, 10, 32],
  ['map of number arrays with all', mapWithItem({ type: 'array', items: { type: 'number' } }, 'self.all(x, true)'), 1179647, 25, 77],
  ['map of durations with all', mapWith('duration', 'self.all(x, true)'), 1048577, 5, 17],
  ['map of dates with all', mapWith('date', 'self.all(x, true)'), 524288, 10, 32],
  ['map of date-times with all', mapWith('date-time', 'self.all(x, true)'), 349526, 25, 77],
  ['check cost of size call', mapWith('integer', 'oldSelf.size() == self.size()'), 5, 10, 5],
  ['check cost of timestamp comparison', mapWith('date-time', 'self["a"] == self["b"]'), 8, 7, 8],
  ['check cost of duration comparison', mapWith('duration', 'self["c"] == self["d"]'), 8, 42, 8],
  ['enums with maxLength equals to the longest possible value', enumWith("self.contains('A')", 'A', 'B', 'C', 'LongValue'), 2, 1000, 401],
];

const costLimit = 100_000_000;

function ruleCost(schema: JSONSchemaProps): number {
  const compiled = compileNodeRules(schema, schema, false);
  expect(compiled.error).toBeUndefined();
  const [rule] = compiled.rules;
  expect(rule?.error).toBeUndefined();
  return rule!.maxCost;
}

describe('estimated rule cost (kube TestCostEstimation)', () => {
  it.each(cases)('%s', (_name, gen, calc, setMax, setCost) => {
    const unbounded = ruleCost(gen(undefined));
    if (calc === 'exceeds') expect(unbounded).toBeGreaterThanOrEqual(costLimit);
    else expect(unbounded).toBe(calc);
    expect(ruleCost(gen(setMax))).toBe(setCost);
  });
});

describe('schemaSizeEstimator', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      'x-y': { type: 'array', maxItems: 7, items: { type: 'string', maxLength: 5 } },
      labels: { type: 'object', maxProperties: 3, additionalProperties: { type: 'string' } },
      count: { type: 'integer' },
    },
  };
  const size = schemaSizeEstimator(schema, false);

  it.each<[string[], number | undefined]>([
    [['self', 'x__dash__y'], 7],
    [['self', 'x__dash__y', '@items'], 20],
    [['oldSelf', 'labels'], 3],
    [['self', 'labels', '@values'], 3145726],
    [['self', 'labels', '@keys'], 0],
    [['self', 'count'], 0],
    [['self'], 0],
    // the unescaped spelling is not a field of kube's DeclType, and other variables have no schema
    [['self', 'x-y'], undefined],
    [['params', 'labels'], undefined],
    [['self', 'count', '@items'], undefined],
  ])('sizes %j as %s', (path, max) => {
    expect(size(path)?.max).toBe(max);
  });
});

describe('CRD-time cost errors with schema-derived sizes', () => {
  const root = FieldPath.root('spec', 'versions').index(0).child('schema', 'openAPIV3Schema');
  const errorsOf = (schema: JSONSchemaProps): string[] => compileSchemaValidations(schema, { fldPath: root }).errors.map(formatFieldError);
  const nested = (bounded: boolean): JSONSchemaProps => ({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          lists: {
            type: 'array',
            ...(bounded ? { maxItems: 10 } : {}),
            items: { type: 'array', ...(bounded ? { maxItems: 10 } : {}), items: { type: 'string', ...(bounded ? { maxLength: 16 } : {}) } },
            'x-kubernetes-validations': [{ rule: "self.all(x, x.all(y, y.startsWith('a')))" }],
          },
        },
      },
    },
  });
  const P = 'spec.versions[0].schema.openAPIV3Schema';

  it('rejects a rule over unbounded nested lists with kube\'s three errors', () => {
    expect(errorsOf(nested(false))).toEqual([
      `${P}.properties[spec].properties[lists].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${P}.properties[spec].properties[lists].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it('accepts the same rule once maxItems and maxLength bound the lists and strings', () => {
    expect(errorsOf(nested(true))).toEqual([]);
  });

  it('prints the factor with one decimal between 1.5x and 100x', () => {
    // 1048575 items × (2 + 1 + 1 + ceil(3145726 × 0.1) × 1) + 2: an unbounded list of unbounded strings
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(x, x.contains('a'))" }] } },
    };
    const errs = errorsOf(schema);
    expect(errs[0]).toBe(
      `${P}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
    const bounded: JSONSchemaProps = {
      type: 'object',
      properties: {
        names: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 64 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] },
      },
    };
    // inner all: 1 + 1000 × (2 + 1 + 2 + ceil(256 × 0.1)) + 1 = 31,002; outer: 1000 × (2 + 1 + 31,002) + 2 = 31,005,002 → 3.1x
    expect(errorsOf(bounded)[0]).toBe(
      `${P}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.1x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
  });

  it('treats sizes nothing bounds as unbounded (cel-go: MaxUint64), as in kube\'s string(int) messageExpression', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        config: {
          type: 'object',
          properties: { attempts: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.attempts >= 0', messageExpression: "'invalid attempts: ' + string(self.attempts)" }],
        },
      },
    };
    const compiled = compileNodeRules(schema.properties!['config']!, schema.properties!['config']!, false);
    expect(compiled.rules[0]!.messageMaxCost).toBeGreaterThanOrEqual(MAX_COST / 10);
    expect(errorsOf(schema)).toContain(
      `${P}.properties[config].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
  });
});
