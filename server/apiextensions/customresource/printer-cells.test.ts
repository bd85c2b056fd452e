import type { KubeObject } from '../../api/types.js';
import { customResourceCell, goFloatText, goJsonMarshal, jsonPathText } from './printer-cells.js';

const now = new Date('2024-05-01T12:00:00Z');
const obj: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', creationTimestamp: '2024-05-01T11:56:40Z', labels: { z: '1', a: '<b>' } },
  spec: { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], ratio: 2.7, big: 1234567.5, flag: true, nothing: null, when: 'yesterday', empty: '' },
  status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
};

describe('customResourceCell (apiextensions tableconvertor)', () => {
  it.each<[string, 'string' | 'integer' | 'number' | 'boolean' | 'date', string, unknown]>([
    ['a filter picks the matching element', 'string', '.status.conditions[?(@.type=="Ready")].status', 'True'],
    ['a wildcard prints only the first result', 'string', '.spec.ports[*].name', 'http'],
    ['a negative index is from the end', 'string', '.spec.ports[-1].name', 'https'],
    ['a slice prints its first element', 'integer', '.spec.ports[1:].port', 443],
    ['recursive descent', 'string', '..port', '80'],
    ['a missing field is a null cell', 'string', '.spec.missing', null],
    ['a filter without a match is a null cell', 'string', '.status.conditions[?(@.type=="Gone")].status', null],
    ['an index out of range is a null cell', 'string', '.spec.ports[5].name', null],
    ['a JSON null in a string column is printed as text/template does', 'string', '.spec.nothing', '<no value>'],
    ['a JSON null in another column is null', 'integer', '.spec.nothing', null],
    ['maps print as Go JSON: sorted keys, HTML escaped', 'string', '.metadata.labels', '{"a":"\\u003cb\\u003e","z":"1"}'],
    ['lists print as JSON', 'string', '.spec.ports[0]', '{"name":"http","port":80}'],
    ['numbers in string columns print as Go %v', 'string', '.spec.big', '1.2345675e+06'],
    ['booleans in string columns', 'string', '.spec.flag', 'true'],
    ['integer columns truncate floats', 'integer', '.spec.ratio', 2],
    ['number columns keep floats', 'number', '.spec.ratio', 2.7],
    ['a mistyped value is null, not the value', 'integer', '.spec.flag', null],
    ['boolean columns take only booleans', 'boolean', '.spec.ports[0].name', null],
    ['dates are ages', 'date', '.metadata.creationTimestamp', '3m20s'],
    ['a date that is not RFC 3339 is <invalid>', 'date', '.spec.when', '<invalid>'],
    ['an empty date is <unknown>', 'date', '.spec.empty', '<unknown>'],
    ['a non-string date is null', 'date', '.spec.ratio', null],
  ])('%s', (_name, type, jsonPath, expected) => {
    expect(customResourceCell({ type, jsonPath }, obj, now)).toEqual(expected);
  });
});

describe('Go formatting of jsonpath results', () => {
  it.each<[number, string]>([
    [2.5, '2.5'],
    [123456.5, '123456.5'],
    [1234567.5, '1.2345675e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-1.5e-7, '-1.5e-07'],
  ])('%d prints as %s', (v, text) => {
    expect(goFloatText(v)).toBe(text);
  });

  it('prints whole numbers as int64 and strings as they are', () => {
    expect(jsonPathText(1000000)).toBe('1000000');
    expect(jsonPathText('x y')).toBe('x y');
    expect(goJsonMarshal({ b: [1, { d: 1, c: '&' }], a: null })).toBe('{"a":null,"b":[1,{"c":"\\u0026","d":1}]}');
  });
});
