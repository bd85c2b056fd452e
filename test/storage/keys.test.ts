import { StorageError } from '../../server/storage/interface.js';
import { collectionKey, decodeContinue, encodeContinue, objectKey, prefixRangeEnd } from '../../server/storage/keys.js';

describe('storage keys', () => {
  it.each([
    ['core, namespaced', '/registry', '', 'pods', 'default', 'web', '/registry/pods/default/web'],
    ['core, cluster-scoped', '/registry', '', 'namespaces', undefined, 'default', '/registry/namespaces/default'],
    ['group, namespaced', '/registry', 'apps', 'deployments', 'ns1', 'd', '/registry/apps/deployments/ns1/d'],
    ['group, cluster-scoped', '/registry', 'admissionregistration.k8s.io', 'validatingwebhookconfigurations', undefined, 'v', '/registry/admissionregistration.k8s.io/validatingwebhookconfigurations/v'],
    ['prefix with trailing slash', '/custom/', '', 'pods', 'a', 'b', '/custom/pods/a/b'],
  ])('objectKey: %s', (_, prefix, group, resource, ns, name, want) => {
    expect(objectKey(prefix, group, resource, ns, name)).toBe(want);
  });

  it.each([
    ['/registry', '', 'pods', undefined, '/registry/pods/'],
    ['/registry', '', 'pods', '', '/registry/pods/'],
    ['/registry', '', 'pods', 'a', '/registry/pods/a/'],
    ['/registry', 'apps', 'deployments', 'a', '/registry/apps/deployments/a/'],
  ])('collectionKey(%s, %s, %s, %s) is %s', (prefix, group, resource, ns, want) => {
    expect(collectionKey(prefix, group, resource, ns)).toBe(want);
  });

  it.each(['', '.', '..', 'a/b', 'a%2f'])('rejects the name %j, which would escape or alias a key', (name) => {
    expect(() => objectKey('/registry', '', 'pods', 'ns', name)).toThrow(StorageError);
  });

  it('computes the prefix range end as etcd does', () => {
    expect(prefixRangeEnd(Buffer.from('/registry/pods/a/')).toString()).toBe('/registry/pods/a0');
    expect([...prefixRangeEnd(Buffer.from([0x61, 0xff]))]).toEqual([0x62]);
    expect([...prefixRangeEnd(Buffer.from([0xff]))]).toEqual([0]);
  });

  it('encodes continue tokens as kube-apiserver does and decodes them back', () => {
    const token = encodeContinue('/registry/pods/a/p2\u0000', '/registry/pods/', 42);
    expect(JSON.parse(Buffer.from(token, 'base64url').toString())).toEqual({ v: 'meta.k8s.io/v1', rv: 42, start: 'a/p2\u0000' });
    expect(token).not.toMatch(/[=+/]/);
    expect(decodeContinue(token, '/registry/pods/')).toEqual({ startKey: '/registry/pods/a/p2\u0000', revision: 42 });
  });

  it.each([
    ['garbage', 'x'],
    ['wrong version', Buffer.from(JSON.stringify({ v: 'v2', rv: 1, start: 'a' })).toString('base64url')],
    ['empty start', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '' })).toString('base64url')],
    ['path traversal', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '../secrets/x' })).toString('base64url')],
    ['non-numeric rv', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: '1', start: 'a' })).toString('base64url')],
  ])('rejects a continue token with %s', (_, token) => {
    expect(() => decodeContinue(token, '/registry/pods/')).toThrow(/^invalid continue token/);
  });
});
