// serviceaccounts/token: kube's TokenREST.Create (pkg/registry/core/serviceaccount/storage/token.go) with the
// claims of pkg/serviceaccount/claims.go, signed as kube's JWT token generator does (RS256 for RSA keys, ES256/384/512
// for EC keys; kid: the key's id). server/authn/service-account-token.ts authenticates them.
import { createPrivateKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { makeDirsSync } from '../../make-dirs.js';
import { join } from 'node:path';
import { errors } from '../../api/errors.js';
import { fieldErrors, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { metaOf } from '../../registry/object-fields.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { ResourceStore } from '../../registry/store.js';
import { keyIdOf, signCompact } from '../../serviceaccount/jws.js';

export { keyIdOf };

export interface ServiceAccountTokenIssuer {
  /** --service-account-issuer (the first one issues) */
  issuer: string;
  /** --api-audiences: a TokenRequest without spec.audiences gets these */
  apiAudiences: readonly string[];
  key: KeyObject;
  /** the JWT header's kid */
  keyId: string;
}

/** The default file name of the generated signing key in --cert-dir (kube has no default: it needs the flag). */
export const generatedSigningKeyFile = 'service-account-signing.key';

/** Reads --service-account-signing-key-file, or the key generated in the cert dir (made on first start). */
export function loadSigningKey(file: string | undefined, certDir: string): KeyObject {
  if (file) return createPrivateKey(readFileSync(file));
  const path = join(certDir, generatedSigningKeyFile);
  if (existsSync(path)) return createPrivateKey(readFileSync(path));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  makeDirsSync(certDir, 0o777);
  writeFileSync(path, privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  return privateKey;
}

/**
 * The issuer of TokenRequests. `key` is a loader: a generated key (2048-bit RSA, ~0.1 s of CPU) is made on the first
 * TokenRequest rather than at every cold start, which most test servers never pay for.
 */
export function newTokenIssuer(issuer: string, apiAudiences: readonly string[], loadKey: () => KeyObject): ServiceAccountTokenIssuer {
  let key: KeyObject | undefined;
  let keyId: string | undefined;
  return {
    issuer,
    apiAudiences: apiAudiences.length ? apiAudiences : [issuer],
    get key(): KeyObject {
      return (key ??= loadKey());
    },
    get keyId(): string {
      return (keyId ??= keyIdOf(this.key));
    },
  };
}

/** Keys sorted at every level, as go-jose's claims builder marshals them (through a map). */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]));
  return v;
}

export function signJWT(issuer: ServiceAccountTokenIssuer, claims: Record<string, unknown>): string {
  return signCompact(issuer.key, issuer.keyId, sortedKeys(claims));
}

// authentication/validation: MinTokenAgeSec and MaxTokenAgeSec
const minTokenAgeSec = 10 * 60;
const maxTokenAgeSec = 2 ** 32;

function validateTokenRequest(expirationSeconds: number): FieldError[] {
  const errs: FieldError[] = [];
  if (expirationSeconds < minTokenAgeSec) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > maxTokenAgeSec) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

const tokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/** The request as TokenREST prepares it before validating admission: names, defaults, creationTimestamp, no status. */
export function prepareTokenRequest(req: KubeObject, saName: string, namespace: string, issuer: ServiceAccountTokenIssuer, now: Date): KubeObject {
  const meta = metaOf(req);
  if (meta.name && meta.name !== saName) throw errors.invalid(tokenRequestKind, saName, [fieldErrors.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  if (meta.namespace && meta.namespace !== namespace) throw errors.invalid(tokenRequestKind, saName, [fieldErrors.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
  const spec = { ...((req['spec'] ?? {}) as Record<string, unknown>) };
  if (!Array.isArray(spec['audiences']) || spec['audiences'].length === 0) spec['audiences'] = [...issuer.apiAudiences];
  // SetDefaults_TokenRequestSpec
  if (spec['expirationSeconds'] === undefined || spec['expirationSeconds'] === null) spec['expirationSeconds'] = 3600;
  if (spec['boundObjectRef'] === undefined) spec['boundObjectRef'] = null;
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { ...meta, name: saName, namespace, creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    spec,
    status: { token: '', expirationTimestamp: null },
  };
}

export interface TokenObjects {
  serviceAccounts: ResourceStore;
  pods?: ResourceStore;
  secrets?: ResourceStore;
}

/** TokenREST.Create from static validation on: the bound object, the claims, the signed token. */
export async function issueToken(stores: TokenObjects, ctx: RequestContext, saName: string, prepared: KubeObject, issuer: ServiceAccountTokenIssuer, now: Date, validate: (obj: KubeObject) => Promise<void>): Promise<KubeObject> {
  const sa = await stores.serviceAccounts.get(ctx, saName);
  const spec = prepared['spec'] as { audiences: string[]; expirationSeconds: number; boundObjectRef: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null };
  const invalid = validateTokenRequest(spec.expirationSeconds);
  if (invalid.length) throw errors.invalid(tokenRequestKind, '', invalid);
  await validate(structuredClone(prepared));
  const k8s: Record<string, unknown> = { namespace: metaOf(sa).namespace, serviceaccount: { name: metaOf(sa).name, uid: metaOf(sa).uid } };
  const ref = spec.boundObjectRef;
  if (ref) {
    const [group, version] = (ref.apiVersion ?? '').includes('/') ? (ref.apiVersion ?? '').split('/') : ['', ref.apiVersion ?? ''];
    let bound: KubeObject;
    if (group === '' && ref.kind === 'Pod' && stores.pods) {
      bound = await stores.pods.get(ctx, ref.name ?? '');
      const podSA = ((bound['spec'] ?? {}) as { serviceAccountName?: string }).serviceAccountName;
      if (podSA !== saName) throw errors.badRequest(`cannot bind token for serviceaccount ${JSON.stringify(saName)} to pod running with different serviceaccount name.`);
      k8s['pod'] = { name: metaOf(bound).name, uid: metaOf(bound).uid };
      const nodeName = ((bound['spec'] ?? {}) as { nodeName?: string }).nodeName;
      // ServiceAccountTokenPodNodeInfo: the pod's node; its uid only when the node object exists (no nodes here)
      if (nodeName) k8s['node'] = { name: nodeName };
    } else if (group === '' && ref.kind === 'Secret' && stores.secrets) {
      bound = await stores.secrets.get(ctx, ref.name ?? '');
      k8s['secret'] = { name: metaOf(bound).name, uid: metaOf(bound).uid };
    } else {
      // schema.GroupVersionKind.String(): "group/version, Kind=kind"
      throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
    }
    if (ref.uid && ref.uid !== metaOf(bound).uid) {
      throw errors.conflict({ group, resource: ref.kind ?? '' }, ref.name ?? '', `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + spec.expirationSeconds;
  const token = signJWT(issuer, {
    aud: spec.audiences,
    exp,
    iat,
    iss: issuer.issuer,
    jti: randomUUID(),
    'kubernetes.io': k8s,
    nbf: iat,
    sub: `system:serviceaccount:${metaOf(sa).namespace}:${metaOf(sa).name}`,
  });
  return { ...prepared, status: { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') } };
}
