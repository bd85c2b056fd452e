import type { CustomResourceDefinition } from '../api/apiextensions.js';
import { formatFieldError } from '../api/field.js';
import { applyCustomResourceDefinitionDefaults } from './crd-defaults.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate } from './crd-validation.js';

function crd(mutate: (c: CustomResourceDefinition) => void = () => {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    metadata: { name: 'foos.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'foos', kind: 'Foo' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };
  mutate(c);
  applyCustomResourceDefinitionDefaults(c);
  return c;
}

const messages = (c: CustomResourceDefinition): string[] => validateCustomResourceDefinition(c).map(formatFieldError);

describe('CRD defaults', () => {
  it('defaults singular, listKind, conversion None and storedVersions as kube v1 does', () => {
    const c = crd();
    expect(c.spec.names).toEqual({ plural: 'foos', kind: 'Foo', singular: 'foo', listKind: 'FooList' });
    expect(c.spec.conversion).toEqual({ strategy: 'None' });
    expect(c.status?.storedVersions).toEqual(['v1']);
  });
});

describe('validateCustomResourceDefinition', () => {
  it('accepts a minimal valid CRD', () => {
    expect(messages(crd())).toEqual([]);
  });

  it.each<[string, (c: CustomResourceDefinition) => void, string]>([
    ['name must be plural.group', (c) => (c.metadata!.name = 'bars.example.com'), 'metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group'],
    ['group needs a dot', (c) => ((c.spec.group = 'example'), (c.metadata!.name = 'foos.example')), 'spec.group: Invalid value: "example": should be a domain with at least one dot'],
    ['scope is an enum', (c) => ((c.spec as { scope: string }).scope = 'Global'), 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ['kind lower-cased must be a DNS-1035 label', (c) => (c.spec.names.kind = 'Foo_Bar'), 'spec.names.kind: Invalid value: "Foo_Bar": may have mixed case, but should otherwise match: a DNS-1035 label'],
    ['kind and listKind differ', (c) => (c.spec.names.listKind = 'Foo'), 'spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same'],
    ['version names are unique', (c) => c.spec.versions.push({ ...c.spec.versions[0]!, storage: false }), 'spec.versions: Invalid value: '],
    ['exactly one storage version', (c) => (c.spec.versions[0]!.storage = false), 'must have exactly one version marked as storage version'],
    ['a schema per version', (c) => delete c.spec.versions[0]!.schema, 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
    ['preserveUnknownFields may not be true', (c) => (c.spec.preserveUnknownFields = true), 'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
    ['scale paths', (c) => (c.spec.versions[0]!.subresources = { scale: { specReplicasPath: '.status.r', statusReplicasPath: 'status.r' } }), 'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec'],
    ['scale status path starts with a dot', (c) => (c.spec.versions[0]!.subresources = { scale: { specReplicasPath: '.spec.r', statusReplicasPath: 'status.r' } }), 'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.r": must be a simple json path starting with .'],
    ['printer column type', (c) => (c.spec.versions[0]!.additionalPrinterColumns = [{ name: 'X', type: 'float', jsonPath: '.spec.x' }]), 'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string'],
    ['printer column path', (c) => (c.spec.versions[0]!.additionalPrinterColumns = [{ name: 'X', type: 'string', jsonPath: '' }]), 'spec.versions[0].additionalPrinterColumns[0].JSONPath: Required value'],
    ['protected groups need approval', (c) => ((c.spec.group = 'foo.k8s.io'), (c.metadata!.name = 'foos.foo.k8s.io')), 'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation'],
    ['deprecationWarning only when deprecated', (c) => (c.spec.versions[0]!.deprecationWarning = 'old'), 'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
  ])('%s', (_name, mutate, expected) => {
    expect(messages(crd(mutate)).some((m) => m.includes(expected))).toBe(true);
  });

  it('keeps removed versions out of storedVersions', () => {
    const c = crd((x) => (x.status = { storedVersions: ['v0'] }));
    expect(messages(c)).toContain('status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions');
  });
});

describe('bad values kube prints as Go structs', () => {
  const version = (name: string, storage: boolean, extra = ''): string =>
    `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), ` +
    `Schema:(*apiextensions.CustomResourceValidation)(${extra === 'schema' ? '0xc000000000' : 'nil'}), Subresources:(*apiextensions.CustomResourceSubresources)(nil), ` +
    `AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}`;

  it('prints spec.versions with the schemas the versions share moved to the spec (nil per version)', () => {
    const c = crd((x) => x.spec.versions.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }));
    expect(messages(c)).toContain(
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version('v1', true)}, ${version('v2', true)}}: must have exactly one version marked as storage version`,
    );
  });

  it('prints per-version schemas as pointers when the versions differ', () => {
    const c = crd((x) => x.spec.versions.push({ name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string' } } } } }));
    expect(messages(c)).toContain(
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version('v1', true, 'schema')}, ${version('v2', true, 'schema')}}: must have exactly one version marked as storage version`,
    );
  });

  it('prints an empty list of versions as Go does, with no separate error for it', () => {
    const c = crd((x) => (x.spec.versions = []));
    const msgs = messages(c);
    expect(msgs).toContain('spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one version marked as storage version');
    expect(msgs).toContain('status.storedVersions: Invalid value: []string(nil): must have at least one stored version');
    expect(msgs.filter((m) => m.startsWith('spec.versions:'))).toHaveLength(1);
  });

  it('prints the storage version missing from storedVersions as a Go struct', () => {
    const c = crd();
    c.status!.storedVersions = ['v0'];
    expect(messages(c)).toContain(`status.storedVersions: Invalid value: ${version('v1', true)}: must have the storage version v1`);
  });
});

describe('validateCustomResourceDefinitionUpdate', () => {
  const established = (c: CustomResourceDefinition): CustomResourceDefinition => ({ ...c, status: { ...c.status, conditions: [{ type: 'Established', status: 'True' }] } });

  it('keeps group and plural immutable, and scope and kind once established', () => {
    const old = established(crd());
    const next = crd((c) => {
      c.spec.scope = 'Cluster';
      c.spec.names.kind = 'Bar';
      c.spec.names.listKind = 'BarList';
    });
    const msgs = validateCustomResourceDefinitionUpdate(next, old).map(formatFieldError);
    expect(msgs).toContain('spec.scope: Invalid value: "Cluster": field is immutable');
    expect(msgs).toContain('spec.names.kind: Invalid value: "Bar": field is immutable');
    const notEstablished = validateCustomResourceDefinitionUpdate(next, crd()).map(formatFieldError);
    expect(notEstablished).toEqual([]);
  });
});
