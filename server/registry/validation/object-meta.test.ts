import { formatFieldErrors, type FieldError } from '../../api/field.js';
import type { ObjectMeta } from '../../api/types.js';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './object-meta.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const render = (errs: FieldError[]): string[] => errs.map((e) => formatFieldErrors([e]));
const namespaced = { namespaced: true, nameRule: 'DNS1123Subdomain' as const };
const clusterScoped = { namespaced: false, nameRule: 'DNS1123Subdomain' as const };

describe('validateObjectMetaCreate', () => {
  const cases: Array<[string, ObjectMeta | undefined, { namespaced: boolean; nameRule: 'DNS1123Subdomain' | 'DNS1123Label' | 'PathSegment' }, string[]]> = [
    ['accepts a valid namespaced object', { name: 'a', namespace: 'default' }, namespaced, []],
    ['requires a name or generateName', { namespace: 'default' }, namespaced, ['metadata.name: Required value: name or generateName is required']],
    ['treats missing metadata as missing name', undefined, clusterScoped, ['metadata.name: Required value: name or generateName is required']],
    ['rejects an invalid name per the name rule', { name: 'Foo', namespace: 'd' }, namespaced, [`metadata.name: Invalid value: "Foo": ${subdomainMsg}`]],
    ['applies the DNS label rule', { name: 'a.b' }, { namespaced: false, nameRule: 'DNS1123Label' }, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    ['applies the path segment rule', { name: '..' }, { namespaced: false, nameRule: 'PathSegment' }, [`metadata.name: Invalid value: "..": may not be '..'`]],
    [
      'validates generateName as a prefix as well as the generated name',
      { generateName: 'Bad-', name: 'Bad-abcde' },
      clusterScoped,
      [`metadata.generateName: Invalid value: "Bad-": ${subdomainMsg}`, `metadata.name: Invalid value: "Bad-abcde": ${subdomainMsg}`],
    ],
    ['accepts a generateName with a trailing dash', { generateName: 'web-', name: 'web-x7k2p' }, clusterScoped, []],
    ['requires a namespace for namespaced kinds', { name: 'a' }, namespaced, ['metadata.namespace: Required value']],
    ['forbids a namespace for cluster-scoped kinds', { name: 'a', namespace: 'default' }, clusterScoped, ['metadata.namespace: Forbidden: not allowed on this type']],
    [
      'validates the namespace as a DNS label',
      { name: 'a', namespace: 'a.b' },
      namespaced,
      ['metadata.namespace: Invalid value: "a.b": must not contain dots'],
    ],
    ['rejects a negative generation', { name: 'a', generation: -1 }, clusterScoped, ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
    [
      'reports label keys and values at metadata.labels',
      { name: 'a', labels: { 'bad key': 'ok', good: 'bad value' } },
      clusterScoped,
      [
        `metadata.labels: Invalid value: "bad key": ${namePartMsg}`,
        `metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    ],
    ['accepts uppercase annotation keys (checked lowercased)', { name: 'a', annotations: { 'Example.COM/Key': 'v' } }, clusterScoped, []],
    ['rejects an invalid annotation key', { name: 'a', annotations: { 'a/b/c': 'v' } }, clusterScoped, [expect.stringContaining('metadata.annotations: Invalid value: "a/b/c": a valid label key')] as unknown as string[]],
    [
      'rejects annotations over 256 KiB in total',
      { name: 'a', annotations: { big: 'x'.repeat(262144) } },
      clusterScoped,
      ['metadata.annotations: Too long: must have at most 262144 bytes'],
    ],
    ['accepts annotations of exactly 256 KiB', { name: 'a', annotations: { ab: 'x'.repeat(262142) } }, clusterScoped, []],
    [
      'rejects a finalizer that is not a qualified name',
      { name: 'a', finalizers: ['example.com/ok', 'no way'] },
      clusterScoped,
      [`metadata.finalizers: Invalid value: "no way": ${namePartMsg}`],
    ],
    [
      'rejects orphan together with foregroundDeletion',
      { name: 'a', finalizers: ['orphan', 'foregroundDeletion'] },
      clusterScoped,
      ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set'],
    ],
    [
      'checks owner reference basics at unindexed paths',
      { name: 'a', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
      clusterScoped,
      [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ],
    ],
    [
      'forbids an Event as owner',
      { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
      clusterScoped,
      ['metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner'],
    ],
    [
      'allows only one controller reference',
      {
        name: 'a',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r1', uid: '1', controller: true },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r2', uid: '2', controller: true },
        ],
      },
      clusterScoped,
      [expect.stringContaining('Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/r1 and ReplicaSet/r2')] as unknown as string[],
    ],
    [
      'checks managedFields operations',
      { name: 'a', managedFields: [{ manager: 'm', operation: 'Patch' }] },
      clusterScoped,
      ['metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`'],
    ],
  ];

  it.each(cases)('%s', (_name, meta, opts, expected) => {
    expect(render(validateObjectMetaCreate(meta, opts))).toEqual(expected);
  });

  it('collects every error in kube’s order', () => {
    const errs = validateObjectMetaCreate({ namespace: 'x', labels: { 'a b': 'c' } }, clusterScoped);
    expect(errs.map((e) => e.field)).toEqual(['metadata.name', 'metadata.namespace', 'metadata.labels']);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'ns',
    uid: 'u-1',
    resourceVersion: '5',
    generation: 3,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  it.each<[string, ObjectMeta, ObjectMeta, string[]]>([
    ['accepts an unchanged object', { ...old }, old, []],
    ['requires a resourceVersion', { ...old, resourceVersion: '' }, old, ['metadata.resourceVersion: Invalid value: "": must be specified for an update']],
    ['rejects a decremented generation', { ...old, generation: 2 }, old, ['metadata.generation: Invalid value: 2: must not be decremented']],
    ['keeps name immutable', { ...old, name: 'b' }, old, ['metadata.name: Invalid value: "b": field is immutable']],
    ['keeps namespace immutable', { ...old, namespace: 'other' }, old, ['metadata.namespace: Invalid value: "other": field is immutable']],
    ['keeps uid immutable', { ...old, uid: 'u-2' }, old, ['metadata.uid: Invalid value: "u-2": field is immutable']],
    [
      'keeps creationTimestamp immutable',
      { ...old, creationTimestamp: '2025-01-01T00:00:00Z' },
      old,
      ['metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable'],
    ],
    ['reports a cleared uid as ""', { ...old, uid: undefined }, old, ['metadata.uid: Invalid value: "": field is immutable']],
    [
      'forbids new finalizers while deleting',
      { ...old, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['a.io/x', 'b.io/y'] },
      { ...old, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['a.io/x'] },
      ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}'],
    ],
    ['allows removing finalizers while deleting', { ...old, deletionTimestamp: 't', finalizers: [] }, { ...old, deletionTimestamp: 't', finalizers: ['a.io/x'] }, []],
    ['keeps deletionTimestamp immutable', { ...old, deletionTimestamp: 't2' }, { ...old, deletionTimestamp: 't1' }, ['metadata.deletionTimestamp: Invalid value: "t2": field is immutable']],
    ['keeps deletionGracePeriodSeconds immutable', { ...old, deletionGracePeriodSeconds: 5 }, old, ['metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable']],
    ['validates new labels', { ...old, labels: { a: 'b c' } }, old, [expect.stringContaining('metadata.labels: Invalid value: "b c"')] as unknown as string[]],
  ])('%s', (_name, next, prev, expected) => {
    expect(render(validateObjectMetaUpdate(next, prev))).toEqual(expected);
  });
});
