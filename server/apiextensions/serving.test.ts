import type { CustomResourceDefinition } from '../api/apiextensions.js';
import { ResourceIndex } from '../registry/resource-index.js';
import type { CustomResourceOps } from './customresource/schema-ops.js';
import { CustomResourceServing } from './serving.js';

const fakeOps: CustomResourceOps = {
  validateValue: () => [],
  prune: () => [],
  applyDefaults: () => {},
  compileRules: () => undefined,
  converterFor: () => ({ convert: async (objs) => objs }),
  printerCell: () => null,
  structuralViolations: () => ({ violations: [] }),
};

const crd = (resourceVersion: string, established: boolean): CustomResourceDefinition => ({
  metadata: { name: 'foos.example.com', resourceVersion },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'foos', kind: 'Foo' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
  status: { acceptedNames: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' }, conditions: established ? [{ type: 'Established', status: 'True' }] : [] },
});

function setup() {
  const index = new ResourceIndex([]);
  let loads = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const serving = new CustomResourceServing(
    index,
    async () => {
      loads++;
      await gate;
      return fakeOps;
    },
    () => {},
  );
  return { index, serving, release, loads: () => loads };
}

describe('CustomResourceServing', () => {
  it('does not load the custom resource modules for CRDs that are not established', async () => {
    const { serving, loads } = setup();
    serving.observe('ADDED', crd('1', false));
    serving.observe('DELETED', crd('2', false));
    await serving.settled();
    expect(loads()).toBe(0);
  });

  it('serves an established CRD once the modules load, applying the events that wait in order', async () => {
    const { index, serving, release, loads } = setup();
    serving.observe('ADDED', crd('1', true));
    serving.observe('MODIFIED', crd('2', false));
    serving.observe('MODIFIED', crd('3', true));
    expect(index.lookup('example.com', 'v1', 'foos')).toBeUndefined();
    release();
    await serving.settled();
    expect(loads()).toBe(1);
    expect(index.lookup('example.com', 'v1', 'foos')?.kind).toBe('Foo');
    // loaded: later events apply at once
    serving.observe('DELETED', crd('4', true));
    expect(index.lookup('example.com', 'v1', 'foos')).toBeUndefined();
  });
});
