import { FieldPath, formatFieldError } from '../../api/field.js';
import type { JSONSchemaProps } from '../../api/apiextensions.js';
import { validateStructuralSchema } from './index.js';

const root = FieldPath.root('spec').child('versions').index(0).child('schema', 'openAPIV3Schema');
const P = 'spec.versions[0].schema.openAPIV3Schema';
const render = (schema: JSONSchemaProps): string[] => validateStructuralSchema(schema, root, { isRoot: true }).map(formatFieldError);
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

describe('validateStructuralSchema', () => {
  const cases: Array<[string, JSONSchemaProps, string[]]> = [
    ['accepts a structural schema', withSpec({ type: 'object', properties: { replicas: { type: 'integer', default: 1, minimum: 0 } } }), []],
    ['missing type at the root', { properties: { spec: { type: 'object' } } }, [`${P}.type: Required value: must not be empty at the root`]],
    ['missing type of a field', withSpec({ type: 'object', properties: { a: {} } }), [`${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`]],
    [
      'missing type of array items',
      withSpec({ type: 'object', properties: { l: { type: 'array', items: {} } } }),
      [`${P}.properties[spec].properties[l].items.type: Required value: must not be empty for specified array items`],
    ],
    ['array without items', withSpec({ type: 'object', properties: { l: { type: 'array' } } }), [`${P}.properties[spec].properties[l].items: Required value: must be specified`]],
    ['non-object root', { type: 'string' }, [`${P}.type: Invalid value: "string": must be object at the root`]],
    ['additionalProperties at the root', { type: 'object', additionalProperties: { type: 'string' } }, [`${P}.additionalProperties: Forbidden: must not be used at the root`]],
    ['nullable root', { type: 'object', nullable: true }, [`${P}.nullable: Forbidden: nullable cannot be true at the root`]],
    [
      'properties with additionalProperties',
      withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }),
      [`${P}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    ],
    ['additionalProperties: true with properties is allowed', withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }), []],
    ['$ref', withSpec({ type: 'object', $ref: '#/definitions/x' }), [`${P}.properties[spec].$ref: Forbidden: $ref is not supported`]],
    ['uniqueItems', withSpec({ type: 'array', uniqueItems: true, items: { type: 'string' } }), [`${P}.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`]],
    [
      'unsupported type',
      withSpec({ type: 'int' }),
      [`${P}.properties[spec].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"`],
    ],
    [
      'type null',
      withSpec({ type: 'null' }),
      [
        `${P}.properties[spec].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${P}.properties[spec].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ],
    ],
    [
      'items as an array (not convertible: only the keyword errors)',
      withSpec({ type: 'array', items: [{ type: 'string' }] }),
      [`${P}.properties[spec].items: Forbidden: items must be a schema object and not an array`],
    ],
    ['preserve-unknown-fields false', withSpec({ type: 'object', 'x-kubernetes-preserve-unknown-fields': false }), [`${P}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`]],
    ['type-less field with preserve-unknown-fields is structural', withSpec({ 'x-kubernetes-preserve-unknown-fields': true }), []],
    ['int-or-string without type is structural', withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } }), []],
    [
      'int-or-string with its anyOf pattern is structural',
      withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }),
      [],
    ],
    [
      'int-or-string with preserve-unknown-fields',
      withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } }),
      [`${P}.properties[spec].properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
    ],
    [
      'types inside anyOf are not structural',
      withSpec({ type: 'object', properties: { a: { type: 'string', anyOf: [{ type: 'string', description: 'd' }] } } }),
      [
        `${P}.properties[spec].properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
        `${P}.properties[spec].properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      ],
    ],
    [
      'fields under a root anyOf must be specified outside',
      { type: 'object', properties: { spec: { type: 'object' } }, anyOf: [{ properties: { status: { minProperties: 1 } } }] },
      [`${P}.properties[status]: Required value: because it is defined in ${P}.anyOf[0].properties[status]`],
    ],
    [
      'embedded resource must be an object with properties or preserve-unknown-fields',
      withSpec({ type: 'object', properties: { t: { 'x-kubernetes-embedded-resource': true } } }),
      [
        `${P}.properties[spec].properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
        `${P}.properties[spec].properties[t].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      ],
    ],
    [
      'metadata at the root may only restrict name and generateName',
      { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } },
      [],
    ],
    [
      'metadata at the root with other fields',
      { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
      [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
    ],
    [
      'default in top-level metadata',
      { type: 'object', properties: { metadata: { type: 'object', default: { name: 'x' } } } },
      [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
    ],
    [
      'kind at the root must be a string',
      { type: 'object', properties: { kind: { type: 'integer' } } },
      [`${P}.properties[kind].type: Invalid value: "integer": must be string`],
    ],
    [
      'invalid pattern',
      withSpec({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }),
      [`${P}.properties[spec].properties[a].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``],
    ],
    [
      'default of the wrong type',
      withSpec({ type: 'object', properties: { replicas: { type: 'integer', default: 'one' } } }),
      [`${P}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`],
    ],
    [
      'default violating maximum',
      withSpec({ type: 'object', properties: { replicas: { type: 'integer', maximum: 3, default: 5 } } }),
      [`${P}.properties[spec].properties[replicas].default: Invalid value: 5:  in body should be less than or equal to 3`],
    ],
    [
      'default with a missing required field',
      withSpec({ type: 'object', default: {}, required: ['a'], properties: { a: { type: 'string' } } }),
      [`${P}.properties[spec].default.a: Required value`],
    ],
    [
      'default with unknown fields',
      withSpec({ type: 'object', default: { a: 'x', b: 'y' }, properties: { a: { type: 'string' } } }),
      [`${P}.properties[spec].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields`],
    ],
    [
      'defaults in items and additionalProperties are validated',
      withSpec({
        type: 'object',
        properties: {
          l: { type: 'array', items: { type: 'string', default: 1 } },
          m: { type: 'object', additionalProperties: { type: 'integer', default: 'x' } },
        },
      }),
      [
        `${P}.properties[spec].properties[l].items.default: Invalid value: "integer":  in body must be of type string: "integer"`,
        `${P}.properties[spec].properties[m].additionalProperties.default: Invalid value: "string":  in body must be of type integer: "string"`,
      ],
    ],
    [
      'list-type on a non-array',
      withSpec({ type: 'object', 'x-kubernetes-list-type': 'set' }),
      [`${P}.properties[spec].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`],
    ],
    [
      'unknown list-type',
      withSpec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' as 'set' }),
      [`${P}.properties[spec].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
    ],
    [
      'list-map-keys without list-type map',
      withSpec({ type: 'array', items: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'] }, 'x-kubernetes-list-map-keys': ['n'] }),
      [`${P}.properties[spec].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`],
    ],
    [
      'list-type map without keys',
      withSpec({ type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' }),
      [`${P}.properties[spec].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`],
    ],
    [
      'list-map-keys naming a missing property',
      withSpec({ type: 'array', items: { type: 'object', properties: { n: { type: 'string' } }, required: ['n'] }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['n', 'x'] }),
      [`${P}.properties[spec].x-kubernetes-list-map-keys: Invalid value: []string{"n", "x"}: entries must all be names of item properties`],
    ],
    [
      'list-map key neither required nor defaulted',
      withSpec({ type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['n'] }),
      [`${P}.properties[spec].items.properties[n].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`],
    ],
    [
      'list-map items must be objects',
      withSpec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['n'] }),
      [`${P}.properties[spec].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`],
    ],
    [
      'list-type set of granular objects',
      withSpec({ type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } }, 'x-kubernetes-list-type': 'set' }),
      [`${P}.properties[spec].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`],
    ],
    [
      'embedded-resource inside resource meta',
      { type: 'object', properties: { metadata: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
      [
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
        `${P}.properties[metadata].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
      ],
    ],
  ];
  it.each(cases)('%s', (_name, schema, want) => {
    expect(render(schema)).toEqual(want);
  });
});
