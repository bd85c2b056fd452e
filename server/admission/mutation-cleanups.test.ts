import { dedupOwnerReferences, dedupOwnerReferencesWithWarning, resetInvalidManagedFields, validateManagedFields } from './mutation-cleanups.js';

const ref = (uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', name: 'n', uid, ...extra });

// k8s.io/apiserver/pkg/endpoints/handlers/rest_test.go TestDedupOwnerReferences
describe('dedupOwnerReferences', () => {
  it.each([
    ['no references', [], [], []],
    ['no duplicates', [ref('1'), ref('2')], [ref('1'), ref('2')], []],
    ['one duplicate', [ref('1'), ref('1')], [ref('1')], ['1']],
    ['several duplicates, in order, repeats kept', [ref('1'), ref('2'), ref('1'), ref('2'), ref('1')], [ref('1'), ref('2')], ['1', '2', '1']],
    ['same UID, other fields: both kept', [ref('1'), ref('1', { name: 'm' })], [ref('1'), ref('1', { name: 'm' })], []],
    ['controller set vs unset differ (pointers)', [ref('1'), ref('1', { controller: false })], [ref('1'), ref('1', { controller: false })], []],
    ['equal with all fields', [ref('1', { controller: true, blockOwnerDeletion: true }), ref('1', { blockOwnerDeletion: true, controller: true })], [ref('1', { controller: true, blockOwnerDeletion: true })], ['1']],
  ])('%s', (_name, refs, want, duplicates) => {
    expect(dedupOwnerReferences(refs)).toEqual({ refs: want, duplicates });
  });

  it('dedups in place and words the warning by when it happened', () => {
    const obj = { metadata: { ownerReferences: [ref('a'), ref('a')] } };
    expect(dedupOwnerReferencesWithWarning(obj, false)).toBe(
      '.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: a',
    );
    expect(obj.metadata.ownerReferences).toEqual([ref('a')]);
    expect(dedupOwnerReferencesWithWarning(obj, true)).toBeUndefined();
  });
});

// k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields_test.go TestHasManagedFields-style decode errors
describe('validateManagedFields (DecodeManagedFields)', () => {
  const entry = (e: Record<string, unknown>) => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {}, ...e });
  it.each([
    ['valid entries', [entry({}), entry({ operation: 'Apply' })], undefined],
    ['none', undefined, undefined],
    ['a bad operation', [entry({ operation: 'Patch' })], 'operation must be `Apply` or `Update`'],
    ['no operation', [entry({ operation: undefined })], 'operation must be `Apply` or `Update`'],
    ['no apiVersion', [entry({}), entry({ apiVersion: '' })], 'apiVersion must not be empty'],
    ['no fieldsType', [entry({}), entry({ fieldsType: undefined })], 'missing fieldsType in managed fields entry 1'],
    ['another fieldsType', [entry({ fieldsType: 'FieldsV2' })], 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
  ])('%s', (_name, entries, error) => {
    expect(validateManagedFields(entries)).toBe(error);
  });

  it('resets invalid managedFields to what they were before admission', () => {
    const before = [entry({})];
    const obj = { metadata: { managedFields: [entry({ apiVersion: '' })] } };
    expect(resetInvalidManagedFields(obj, before)).toBe(
      '.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: apiVersion must not be empty',
    );
    expect(obj.metadata.managedFields).toEqual(before);
    const none: { metadata: Record<string, unknown> } = { metadata: { managedFields: [entry({ fieldsType: '' })] } };
    expect(resetInvalidManagedFields(none, undefined)).toMatch(/missing fieldsType in managed fields entry 0$/);
    expect(none.metadata['managedFields']).toBeUndefined();
  });
});
