import type { CustomResourceDefinition, CustomResourceDefinitionNames } from '../../api/apiextensions.js';
import { decideNames } from './naming.js';

function crd(name: string, group: string, names: CustomResourceDefinitionNames, accepted?: CustomResourceDefinitionNames): CustomResourceDefinition {
  return {
    metadata: { name: `${name}.${group}` },
    spec: { group, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true }] },
    ...(accepted ? { status: { acceptedNames: accepted } } : {}),
  };
}

describe('decideNames (the names controller)', () => {
  const foos: CustomResourceDefinitionNames = { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList', shortNames: ['f'] };

  it('accepts fresh names: NamesAccepted NoConflicts, Established Installing', () => {
    const d = decideNames(crd('foos', 'example.com', foos), []);
    expect(d.acceptedNames).toEqual(foos);
    expect(d.namesAccepted).toEqual({ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(d.established).toEqual({ type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' });
  });

  it.each<[string, CustomResourceDefinitionNames, string, string]>([
    ['plural', { plural: 'foos', singular: 'other', kind: 'Other', listKind: 'OtherList' }, 'PluralConflict', '"foos" is already in use'],
    ['singular as a resource name', { plural: 'others', singular: 'f', kind: 'Other', listKind: 'OtherList' }, 'SingularConflict', '"f" is already in use'],
    ['short name', { plural: 'others', singular: 'other', kind: 'Other', listKind: 'OtherList', shortNames: ['foo'] }, 'ShortNamesConflict', '"foo" is already in use'],
    ['kind', { plural: 'others', singular: 'other', kind: 'Foo', listKind: 'OtherList' }, 'KindConflict', '"Foo" is already in use'],
  ])('refuses a %s another CRD of the group holds', (_what, names, reason, message) => {
    const existing = crd('foos', 'example.com', foos, foos);
    const d = decideNames(crd('others', 'example.com', names), [existing]);
    expect(d.namesAccepted).toEqual({ type: 'NamesAccepted', status: 'False', reason, message });
    expect(d.established).toMatchObject({ status: 'False', reason: 'NotAccepted' });
  });

  it('ignores CRDs of other groups', () => {
    const existing = crd('foos', 'other.com', foos, foos);
    expect(decideNames(crd('foos', 'example.com', foos), [existing]).namesAccepted.status).toBe('True');
  });
});
