import { formatFieldError } from '../../api/field.js';
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { validateCustomResourceValue } from './index.js';

const spec = (properties: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});

const render = (obj: unknown, schema: JSONSchemaProps): string[] => validateCustomResourceValue(obj, schema).map(formatFieldError);

describe('validateCustomResourceValue: kube-openapi keywords', () => {
  const cases: Array<[string, JSONSchemaProps, unknown, string[]]> = [
    ['type integer given a string', spec({ replicas: { type: 'integer' } }), { spec: { replicas: 'x' } }, ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
    ['type integer given a float', spec({ replicas: { type: 'integer' } }), { spec: { replicas: 1.5 } }, ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
    ['type number accepts an integer', spec({ ratio: { type: 'number' } }), { spec: { ratio: 2 } }, []],
    ['type string given an object', spec({ name: { type: 'string' } }), { spec: { name: { a: 1 } } }, ['spec.name: Invalid value: "object": spec.name in body must be of type string: "object"']],
    ['type boolean given null', spec({ on: { type: 'boolean' } }), { spec: { on: null } }, ['spec.on: Invalid value: "null": spec.on in body must be of type boolean: "null"']],
    ['nullable accepts null', spec({ on: { type: 'boolean', nullable: true } }), { spec: { on: null } }, []],
    ['type array given a string', spec({ l: { type: 'array', items: { type: 'string' } } }), { spec: { l: 'a' } }, ['spec.l: Invalid value: "string": spec.l in body must be of type array: "string"']],
    ['required', spec({ cron: { type: 'string' } }, { required: ['cron'] }), { spec: {} }, ['spec.cron: Required value']],
    ['required at the root', { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } }, {}, ['spec: Required value']],
    ['enum', spec({ size: { type: 'string', enum: ['a', 'b'] } }), { spec: { size: 'x' } }, ['spec.size: Unsupported value: "x": supported values: "a", "b"']],
    ['enum of numbers', spec({ n: { type: 'integer', enum: [1, 2] } }), { spec: { n: 3 } }, ['spec.n: Unsupported value: 3: supported values: "1", "2"']],
    ['enum accepts a member', spec({ size: { type: 'string', enum: ['a', 'b'] } }), { spec: { size: 'b' } }, []],
    ['minLength', spec({ name: { type: 'string', minLength: 3 } }), { spec: { name: 'ab' } }, ['spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long']],
    ['maxLength counts characters', spec({ name: { type: 'string', maxLength: 3 } }), { spec: { name: 'äöü' } }, []],
    ['maxLength', spec({ name: { type: 'string', maxLength: 3 } }), { spec: { name: 'abcd' } }, ['spec.name: Too long: may not be more than 3 bytes']],
    ['pattern', spec({ name: { type: 'string', pattern: '^[a-z]+$' } }), { spec: { name: 'A1' } }, ["spec.name: Invalid value: \"A1\": spec.name in body should match '^[a-z]+$'"]],
    ['pattern is unanchored like Go MatchString', spec({ name: { type: 'string', pattern: '[0-9]' } }), { spec: { name: 'ab1' } }, []],
    ['maximum', spec({ replicas: { type: 'integer', maximum: 10 } }), { spec: { replicas: 20 } }, ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10']],
    ['exclusiveMaximum', spec({ replicas: { type: 'integer', maximum: 10, exclusiveMaximum: true } }), { spec: { replicas: 10 } }, ['spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10']],
    ['minimum', spec({ replicas: { type: 'integer', minimum: 1 } }), { spec: { replicas: 0 } }, ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1']],
    ['exclusiveMinimum on a float', spec({ r: { type: 'number', minimum: 0.5, exclusiveMinimum: true } }), { spec: { r: 0.5 } }, ['spec.r: Invalid value: 0.5: spec.r in body should be greater than 0.5']],
    ['multipleOf', spec({ n: { type: 'integer', multipleOf: 5 } }), { spec: { n: 12 } }, ['spec.n: Invalid value: 12: spec.n in body should be a multiple of 5']],
    ['minItems', spec({ l: { type: 'array', minItems: 2, items: { type: 'string' } } }), { spec: { l: ['a'] } }, ['spec.l: Invalid value: 1: spec.l in body should have at least 2 items']],
    ['maxItems', spec({ l: { type: 'array', maxItems: 1, items: { type: 'string' } } }), { spec: { l: ['a', 'b'] } }, ['spec.l: Too many: 2: must have at most 1 items']],
    ['uniqueItems', spec({ l: { type: 'array', uniqueItems: true, items: { type: 'string' } } }), { spec: { l: ['a', 'a'] } }, ['spec.l: Invalid value: "": spec.l in body shouldn\'t contain duplicates']],
    ['items are validated with their index', spec({ l: { type: 'array', items: { type: 'integer' } } }), { spec: { l: [1, 'x'] } }, ['spec.l[1]: Invalid value: "string": spec.l[1] in body must be of type integer: "string"']],
    ['minProperties', spec({ m: { type: 'object', minProperties: 2, additionalProperties: { type: 'string' } } }), { spec: { m: { a: 'x' } } }, ['spec.m: Invalid value: 1: spec.m in body should have at least 2 properties']],
    ['maxProperties', spec({ m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }), { spec: { m: { a: 'x', b: 'y' } } }, ['spec.m: Too many: 2: must have at most 1 items']],
    ['additionalProperties map values', spec({ m: { type: 'object', additionalProperties: { type: 'integer' } } }), { spec: { m: { a: 1, b: 'x' } } }, ['spec.m.b: Invalid value: "string": spec.m.b in body must be of type integer: "string"']],
    ['format uuid', spec({ id: { type: 'string', format: 'uuid' } }), { spec: { id: 'nope' } }, ['spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"']],
    ['format date-time', spec({ t: { type: 'string', format: 'date-time' } }), { spec: { t: '2024-13-01T00:00:00Z' } }, ['spec.t: Invalid value: "2024-13-01T00:00:00Z": spec.t in body must be of type date-time: "2024-13-01T00:00:00Z"']],
    ['format date-time accepts RFC 3339', spec({ t: { type: 'string', format: 'date-time' } }), { spec: { t: '2024-02-29T10:00:00.5+01:00' } }, []],
    ['format ipv4', spec({ ip: { type: 'string', format: 'ipv4' } }), { spec: { ip: '1.2.3' } }, ['spec.ip: Invalid value: "1.2.3": spec.ip in body must be of type ipv4: "1.2.3"']],
    ['unknown formats are ignored', spec({ x: { type: 'string', format: 'my-format' } }), { spec: { x: 'anything' } }, []],
    ['int32 format on an integer is a range hint only', spec({ x: { type: 'integer', format: 'int32' } }), { spec: { x: 5 } }, []],
  ];
  it.each(cases)('%s', (_name, schema, obj, want) => {
    expect(render(obj, schema)).toEqual(want);
  });
});

describe('validateCustomResourceValue: x-kubernetes extensions', () => {
  const ios: JSONSchemaProps = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
  const cases: Array<[string, JSONSchemaProps, unknown, string[]]> = [
    ['int-or-string accepts an integer', spec({ port: ios }), { spec: { port: 80 } }, []],
    ['int-or-string accepts a string', spec({ port: ios }), { spec: { port: 'http' } }, []],
    [
      'int-or-string rejects a boolean',
      spec({ port: ios }),
      { spec: { port: true } },
      [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        'Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
      ],
    ],
    ['preserve-unknown-fields accepts anything below', spec({ cfg: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }), { spec: { cfg: { a: [1, { b: 2 }] } } }, []],
    [
      'list-type set duplicates',
      spec({ tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
      { spec: { tags: ['a', 'b', 'a', 'a'] } },
      ['spec.tags[2]: Duplicate value: "a"'],
    ],
    [
      'list-type map duplicate keys',
      spec({
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      }),
      { spec: { ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }] } },
      ['spec.ports[1]: Duplicate value: {"name":"a"}'],
    ],
    [
      'list-type map with two keys',
      spec({
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
        },
      }),
      { spec: { ports: [{ port: 1, protocol: 'TCP' }, { port: 1, protocol: 'UDP' }, { port: 1, protocol: 'TCP' }] } },
      ['spec.ports[2]: Duplicate value: {"port":1,"protocol":"TCP"}'],
    ],
    [
      'embedded resource requires apiVersion and kind',
      spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      { spec: { template: { metadata: { name: 'x' } } } },
      ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'],
    ],
    [
      'embedded resource metadata is an ObjectMeta',
      spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b', labels: { 'bad key!': 'x' } } } } },
      [
        'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
        expect.stringContaining('spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters'),
      ] as unknown as string[],
    ],
    [
      'embedded resource kind must be a DNS-1035 label in any case',
      spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      { spec: { template: { apiVersion: 'a/b/c', kind: 'My_Kind' } } },
      [
        'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        expect.stringContaining('spec.template.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: a DNS-1035 label'),
      ] as unknown as string[],
    ],
  ];
  it.each(cases)('%s', (_name, schema, obj, want) => {
    expect(render(obj, schema)).toEqual(want);
  });

  it('returns the same errors on repeated calls with the same schema object (compiled once)', () => {
    const schema = spec({ replicas: { type: 'integer', maximum: 3 } });
    const first = render({ spec: { replicas: 5 } }, schema);
    expect(render({ spec: { replicas: 5 } }, schema)).toEqual(first);
    expect(first).toHaveLength(1);
  });
});
