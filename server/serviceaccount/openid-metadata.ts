// Service account issuer discovery (pkg/serviceaccount/openidmetadata.go, pkg/routes/openidmetadata.go): the OIDC
// discovery document and the JWKS of the token-verifying keys, rendered as kube renders them (go-jose's JWK field
// order, algorithms sorted) and served with kube's content types and `Cache-Control: public, max-age=3600`.
import { algorithmFor } from './jws.js';
import type { PublicKeysGetter, ServiceAccountPublicKey } from './public-keys.js';

export const openIdConfigPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';
/** routes/openidmetadata.go: one hour, the staticPublicKeysGetter's GetCacheAgeMaxSeconds */
export const openIdCacheControl = 'public, max-age=3600';
export const jwksContentType = 'application/jwk-set+json';

/** go-jose's rawJSONWebKey field order: use, kty, kid, crv, alg, n/e or x/y. */
export function jwkOf(k: ServiceAccountPublicKey): Record<string, string> {
  const alg = algorithmFor(k.key);
  if (!alg.ok) throw new Error(alg.error);
  const jwk = k.key.export({ format: 'jwk' });
  if (jwk.kty === 'RSA') return { use: 'sig', kty: 'RSA', kid: k.keyId, alg: alg.alg, n: jwk.n!, e: jwk.e! };
  return { use: 'sig', kty: 'EC', kid: k.keyId, crv: jwk.crv!, alg: alg.alg, x: jwk.x!, y: jwk.y! };
}

export function keysetJson(keys: readonly ServiceAccountPublicKey[]): string {
  return JSON.stringify({ keys: keys.map(jwkOf) });
}

export function configJson(issuer: string, jwksUri: string, keys: readonly ServiceAccountPublicKey[]): string {
  const algs = [...new Set(keys.map((k) => jwkOf(k)['alg']!))].sort();
  return JSON.stringify({ issuer, jwks_uri: jwksUri, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: algs });
}

export interface OpenIdMetadata {
  /** both documents, rendered on first use (the generated signing key is made lazily) and then kept */
  config(): string;
  keyset(): string;
}

/**
 * NewOpenIDMetadataProvider's checks, with its error texts; kube-apiserver logs the error and serves neither path.
 * `externalAddress` is host:port (kube: the advertise address and secure port) for the default jwks_uri; a function
 * when the port is known only once the server listens (--secure-port=0).
 */
export function newOpenIdMetadata(issuer: string, jwksUri: string, externalAddress: string | (() => string), keys: PublicKeysGetter): { ok: true; metadata: OpenIdMetadata } | { ok: false; error: string } {
  if (issuer === '') return { ok: false, error: 'empty issuer URL' };
  if (jwksUri === '' && externalAddress === '') return { ok: false, error: 'either the JWKS URI or the default external address, or both, must be set' };
  // Go's url.Parse takes a host without scheme ("issuer.example.com") as a path; such URLs fail the scheme check
  const iss = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (!iss || iss.protocol !== 'https:') return { ok: false, error: `issuer URL must use https scheme, got: ${issuer}` };
  if (iss.search !== '') return { ok: false, error: `issuer URL may not include a query, got: ${issuer}` };
  if (iss.hash !== '') return { ok: false, error: `issuer URL may not include a fragment, got: ${issuer}` };
  const uri = jwksUri;
  if (uri !== '') {
    if (!URL.canParse(uri) || new URL(uri).protocol !== 'https:') return { ok: false, error: `jwksURI requires https scheme, parsed as: ${uri}` };
  } else if (typeof externalAddress === 'string' && externalAddress.includes('/')) {
    // the URL built from it would not have it as its host
    return { ok: false, error: `attempted to build jwks_uri from external address ${externalAddress}, but could not construct a valid URL. Error: got https://${externalAddress}${jwksPath}, expected a host and port` };
  }
  let rendered: { config: string; keyset: string } | undefined;
  const render = () => {
    if (rendered) return rendered;
    const all = keys.publicKeys();
    const jwks = uri !== '' ? uri : `https://${typeof externalAddress === 'string' ? externalAddress : externalAddress()}${jwksPath}`;
    return (rendered = { config: configJson(issuer, jwks, all), keyset: keysetJson(all) });
  };
  return { ok: true, metadata: { config: () => render().config, keyset: () => render().keyset } };
}
