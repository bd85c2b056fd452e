import type { CustomResourceDefinition, JSONSchemaProps } from '../../api/apiextensions.js';
import { structuralSchemaViolations } from '../schema/index.js';
import { nonStructuralCondition } from './nonstructural.js';

const crd = (...schemas: JSONSchemaProps[]): CustomResourceDefinition => ({
  metadata: { name: 'foos.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'foos', kind: 'Foo' },
    versions: schemas.map((s, i) => ({ name: `v${i + 1}`, served: true, storage: i === 0, schema: { openAPIV3Schema: s } })),
  },
});

describe('nonStructuralCondition (nonstructuralschema controller)', () => {
  it('is absent for structural schemas', () => {
    expect(nonStructuralCondition(crd({ type: 'object', properties: { spec: { type: 'object' } } }), structuralSchemaViolations)).toBeUndefined();
  });

  it('lists the violations of every version with their paths, as an aggregate', () => {
    const cond = nonStructuralCondition(crd({ type: 'object' }, { type: 'object', properties: { spec: { properties: {} } } }, { properties: { a: { type: 'string' } } }), structuralSchemaViolations);
    expect(cond).toEqual({
      type: 'NonStructuralSchema',
      status: 'True',
      reason: 'Violations',
      message:
        '[spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields, ' +
        'spec.versions[2].schema.openAPIV3Schema.type: Required value: must not be empty at the root]',
    });
  });

  it('reports a schema that cannot be read as structural as StructuralError', () => {
    expect(nonStructuralCondition(crd({ type: 'object', $ref: '#/x' }), structuralSchemaViolations)).toEqual({
      type: 'NonStructuralSchema',
      status: 'Unknown',
      reason: 'StructuralError',
      message: "failed to check validation schema for version v1: OpenAPIV3Schema '$ref' is not supported",
    });
  });
});
