// kube-apiserver's etcd key layout and its list continue tokens.
//
// Layout: <prefix>/<resource>/<namespace>/<name> for the core group and <prefix>/<group>/<resource>/<namespace>/<name>
// for the others; cluster-scoped objects have no namespace segment. (kube-apiserver itself stores most built-in
// groups without the group segment, e.g. /registry/deployments, and only CRDs as /registry/<group>/<resource>; this
// harness uses the group segment for every non-core group so that two groups can never share a collection.)
import { StorageError } from './interface.js';

export const defaultKeyPrefix = '/registry';

function trimPrefix(prefix: string): string {
  return prefix.replace(/\/+$/, '');
}

/** path.IsValidPathSegmentName: a key segment may not be "." or ".." and may not contain "/" or "%". */
function checkSegment(what: string, value: string, key: string): void {
  if (value === '') throw new StorageError('InvalidObject', key, `${what} may not be empty`);
  if (value === '.' || value === '..') throw new StorageError('InvalidObject', key, `${what} may not be '${value}'`);
  if (value.includes('/')) throw new StorageError('InvalidObject', key, `${what} may not contain '/'`);
  if (value.includes('%')) throw new StorageError('InvalidObject', key, `${what} may not contain '%'`);
}

/** The key prefix of a collection, ending in "/": all namespaces when namespace is undefined or "". */
export function collectionKey(prefix: string, group: string, resource: string, namespace?: string): string {
  const base = group === '' ? `${trimPrefix(prefix)}/${resource}/` : `${trimPrefix(prefix)}/${group}/${resource}/`;
  if (namespace === undefined || namespace === '') return base;
  checkSegment('namespace', namespace, base);
  return `${base}${namespace}/`;
}

/** The key of one object; namespace undefined (or "") for cluster-scoped resources. */
export function objectKey(prefix: string, group: string, resource: string, namespace: string | undefined, name: string): string {
  const collection = collectionKey(prefix, group, resource, namespace);
  checkSegment('name', name, collection);
  return `${collection}${name}`;
}

/** The exclusive end of the key range holding every key that starts with prefix (etcd's clientv3.GetPrefixRangeEnd). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  // all 0xff: no upper bound ("\0" means "to the end of the keyspace" to etcd)
  return Buffer.from([0]);
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

/**
 * kube-apiserver's continue token (storage.EncodeContinue): base64url (no padding) of
 * {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}.
 */
export function encodeContinue(nextKey: string, keyPrefix: string, revision: number): string {
  if (!nextKey.startsWith(keyPrefix) || nextKey === keyPrefix) {
    throw new Error(`unable to encode next field: the key ${JSON.stringify(nextKey)} and key prefix ${JSON.stringify(keyPrefix)} do not match`);
  }
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: revision, start: nextKey.slice(keyPrefix.length) };
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64url');
}

/**
 * Decodes a continue token into the absolute key to resume from and the revision of the first page
 * (storage.DecodeContinue). An invalid token is an InvalidObject error whose message starts with
 * "invalid continue token" (kube-apiserver answers 400 BadRequest).
 */
export function decodeContinue(token: string, keyPrefix: string): { startKey: string; revision: number } {
  const invalid = (why: string): StorageError => new StorageError('InvalidObject', keyPrefix, `invalid continue token: ${why}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const t = parsed as Partial<ContinueToken> | null;
  if (t === null || typeof t !== 'object' || t.v !== 'meta.k8s.io/v1') {
    throw invalid('continue key is not valid: server does not recognize this encoded version');
  }
  if (typeof t.rv !== 'number' || !Number.isSafeInteger(t.rv)) throw invalid('continue key is not valid: incorrect encoded start resourceVersion');
  if (typeof t.start !== 'string' || t.start === '') throw invalid('continue key is not valid: encoded start key empty');
  // Path traversal protection, as kube-apiserver: the start key must be a clean path below the prefix.
  const key = t.start.startsWith('/') ? t.start : `/${t.start}`;
  if (cleanPath(key) !== key) {
    throw invalid(`continue key is not valid: ${t.start}`);
  }
  return { startKey: keyPrefix + key.slice(1), revision: t.rv };
}

/** Go's path.Clean for absolute paths, enough to reject "..", "." and "//" segments. */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}
