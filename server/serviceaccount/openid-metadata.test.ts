// Ported from kube's pkg/serviceaccount/openidmetadata_test.go (TestNewOpenIDMetadata, with kube's test keys and its
// exact documents) and jwt_test.go TestReadPublicKeys; the keys are kube's test keys from jwt_test.go.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { configJson, keysetJson, newOpenIdMetadata } from './openid-metadata.js';
import { parsePublicKeysPem, staticPublicKeys, toServiceAccountKeys } from './public-keys.js';

const rsaPublicKey = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA249XwEo9k4tM8fMxV7zx
OhcrP+WvXn917koM5Qr2ZXs4vo26e4ytdlrV0bQ9SlcLpQVSYjIxNfhTZdDt+ecI
zshKuv1gKIxbbLQMOuK1eA/4HALyEkFgmS/tleLJrhc65tKPMGD+pKQ/xhmzRuCG
51RoiMgbQxaCyYxGfNLpLAZK9L0Tctv9a0mJmGIYnIOQM4kC1A1I1n3EsXMWmeJU
j7OTh/AjjCnMnkgvKT2tpKxYQ59PgDgU8Ssc7RDSmSkLxnrv+OrN80j6xrw0OjEi
B4Ycr0PqfzZcvy8efTtFQ/Jnc4Bp1zUtFXt7+QeevePtQ2EcyELXE0i63T1CujRM
WwIDAQAB
-----END PUBLIC KEY-----
`;
const rsaPrivateKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA249XwEo9k4tM8fMxV7zxOhcrP+WvXn917koM5Qr2ZXs4vo26
e4ytdlrV0bQ9SlcLpQVSYjIxNfhTZdDt+ecIzshKuv1gKIxbbLQMOuK1eA/4HALy
EkFgmS/tleLJrhc65tKPMGD+pKQ/xhmzRuCG51RoiMgbQxaCyYxGfNLpLAZK9L0T
ctv9a0mJmGIYnIOQM4kC1A1I1n3EsXMWmeJUj7OTh/AjjCnMnkgvKT2tpKxYQ59P
gDgU8Ssc7RDSmSkLxnrv+OrN80j6xrw0OjEiB4Ycr0PqfzZcvy8efTtFQ/Jnc4Bp
1zUtFXt7+QeevePtQ2EcyELXE0i63T1CujRMWwIDAQABAoIBAHJx8GqyCBDNbqk7
e7/hI9iE1S10Wwol5GH2RWxqX28cYMKq+8aE2LI1vPiXO89xOgelk4DN6urX6xjK
ZBF8RRIMQy/e/O2F4+3wl+Nl4vOXV1u6iVXMsD6JRg137mqJf1Fr9elg1bsaRofL
Q7CxPoB8dhS+Qb+hj0DhlqhgA9zG345CQCAds0ZYAZe8fP7bkwrLqZpMn7Dz9WVm
++YgYYKjuE95kPuup/LtWfA9rJyE/Fws8/jGvRSpVn1XglMLSMKhLd27sE8ZUSV0
2KUzbfRGE0+AnRULRrjpYaPu0XQ2JjdNvtkjBnv27RB89W9Gklxq821eH1Y8got8
FZodjxECgYEA93pz7AQZ2xDs67d1XLCzpX84GxKzttirmyj3OIlxgzVHjEMsvw8v
sjFiBU5xEEQDosrBdSknnlJqyiq1YwWG/WDckr13d8G2RQWoySN7JVmTQfXcLoTu
YGRiiTuoEi3ab3ZqrgGrFgX7T/cHuasbYvzCvhM2b4VIR3aSxU2DTUMCgYEA4x7J
T/ErP6GkU5nKstu/mIXwNzayEO1BJvPYsy7i7EsxTm3xe/b8/6cYOz5fvJLGH5mT
Q8YvuLqBcMwZardrYcwokD55UvNLOyfADDFZ6l3WntIqbA640Ok2g1X4U8J09xIq
ZLIWK1yWbbvi4QCeN5hvWq47e8sIj5QHjIIjRwkCgYEAyNqjltxFN9zmzPDa2d24
EAvOt3pYTYBQ1t9KtqImdL0bUqV6fZ6PsWoPCgt+DBuHb+prVPGP7Bkr/uTmznU/
+AlTO+12NsYLbr2HHagkXE31DEXE7CSLa8RNjN/UKtz4Ohq7vnowJvG35FCz/mb3
FUHbtHTXa2+bGBUOTf/5Hw0CgYBxw0r9EwUhw1qnUYJ5op7OzFAtp+T7m4ul8kCa
SCL8TxGsgl+SQ34opE775dtYfoBk9a0RJqVit3D8yg71KFjOTNAIqHJm/Vyyjc+h
i9rJDSXiuczsAVfLtPVMRfS0J9QkqeG4PIfkQmVLI/CZ2ZBmsqEcX+eFs4ZfPLun
Qsxe2QKBgGuPilIbLeIBDIaPiUI0FwU8v2j8CEQBYvoQn34c95hVQsig/o5z7zlo
UsO0wlTngXKlWdOcCs1kqEhTLrstf48djDxAYAxkw40nzeJOt7q52ib/fvf4/UBy
X024wzbiw1q07jFCyfQmODzURAx1VNT7QVUMdz/N8vy47/H40AZJ
-----END RSA PRIVATE KEY-----
`;
const ecdsaPrivateKeyWithParams = `-----BEGIN EC PARAMETERS-----
BggqhkjOPQMBBw==
-----END EC PARAMETERS-----
-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIJ9LWDj3ZWe9CksPV7mZjD2dYXG9icfzxadCRwd3vr1toAoGCCqGSM49
AwEHoUQDQgAEaLNEpzbaaNTCkKjBVj7sxpfJ1ifJQGNvcck4nrzcwFRuujwVDDJh
95iIGwKCQeSg+yhdN6Q/p2XaxNIZlYmUhg==
-----END EC PRIVATE KEY-----
`;
const ecdsaPrivateKey = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIEZmTmUhuanLjPA2CLquXivuwBDHTt5XYwgIr/kA1LtRoAoGCCqGSM49
AwEHoUQDQgAEH6cuzP8XuD5wal6wf9M6xDljTOPLX2i8uIp/C/ASqiIGUeeKQtX0
/IR3qCXyThP/dbCiHrF3v1cuhBOHY8CLVg==
-----END EC PRIVATE KEY-----`;
const ecdsaPublicKey = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEH6cuzP8XuD5wal6wf9M6xDljTOPL
X2i8uIp/C/ASqiIGUeeKQtX0/IR3qCXyThP/dbCiHrF3v1cuhBOHY8CLVg==
-----END PUBLIC KEY-----`;

const exampleIssuer = 'https://issuer.example.com';
const defaultKeys = toServiceAccountKeys([createPublicKey(rsaPublicKey), createPublicKey(ecdsaPublicKey)]);
const wantKeyset =
  '{"keys":[{"use":"sig","kty":"RSA","kid":"JHJehTTTZlsspKHT-GaJxK7Kd1NQgZJu3fyK6K_QDYU","alg":"RS256","n":"249XwEo9k4tM8fMxV7zxOhcrP-WvXn917koM5Qr2ZXs4vo26e4ytdlrV0bQ9SlcLpQVSYjIxNfhTZdDt-ecIzshKuv1gKIxbbLQMOuK1eA_4HALyEkFgmS_tleLJrhc65tKPMGD-pKQ_xhmzRuCG51RoiMgbQxaCyYxGfNLpLAZK9L0Tctv9a0mJmGIYnIOQM4kC1A1I1n3EsXMWmeJUj7OTh_AjjCnMnkgvKT2tpKxYQ59PgDgU8Ssc7RDSmSkLxnrv-OrN80j6xrw0OjEiB4Ycr0PqfzZcvy8efTtFQ_Jnc4Bp1zUtFXt7-QeevePtQ2EcyELXE0i63T1CujRMWw","e":"AQAB"},{"use":"sig","kty":"EC","kid":"SoABiieYuNx4UdqYvZRVeuC6SihxgLrhLy9peHMHpTc","crv":"P-256","alg":"ES256","x":"H6cuzP8XuD5wal6wf9M6xDljTOPLX2i8uIp_C_ASqiI","y":"BlHnikLV9PyEd6gl8k4T_3Wwoh6xd79XLoQTh2PAi1Y"}]}';

describe('TestNewOpenIDMetadata', () => {
  it.each<[string, string, string, string, string]>([
    [
      'valid inputs',
      exampleIssuer,
      `${exampleIssuer}/openid/v1/jwks`,
      '',
      '{"issuer":"https://issuer.example.com","jwks_uri":"https://issuer.example.com/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}',
    ],
    [
      'valid inputs, default JWKSURI to external address',
      exampleIssuer,
      '',
      '192.0.2.1:80',
      '{"issuer":"https://issuer.example.com","jwks_uri":"https://192.0.2.1:80/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}',
    ],
    [
      'valid inputs, IP addresses instead of domains',
      'https://192.0.2.1:80',
      'https://192.0.2.1:80/openid/v1/jwks',
      '',
      '{"issuer":"https://192.0.2.1:80","jwks_uri":"https://192.0.2.1:80/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}',
    ],
  ])('%s', (_name, issuer, jwksUri, externalAddress, wantConfig) => {
    const r = newOpenIdMetadata(issuer, jwksUri, externalAddress, staticPublicKeys(() => defaultKeys));
    if (!r.ok) throw new Error(r.error);
    expect(r.metadata.config()).toBe(wantConfig);
    expect(r.metadata.keyset()).toBe(wantKeyset);
  });

  it('response only contains public keys, even when private keys are provided', () => {
    const keys = toServiceAccountKeys([createPrivateKey(rsaPrivateKey), createPrivateKey(ecdsaPrivateKey)]);
    expect(keysetJson(keys)).toBe(wantKeyset);
    expect(configJson(exampleIssuer, `${exampleIssuer}/openid/v1/jwks`, keys)).toBe(
      '{"issuer":"https://issuer.example.com","jwks_uri":"https://issuer.example.com/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}',
    );
  });

  it.each<[string, string, string, string, string]>([
    ['issuer missing https', 'http://issuer.example.com', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL must use https scheme, got: http://issuer.example.com'],
    ['issuer missing scheme', 'issuer.example.com', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL must use https scheme, got: issuer.example.com'],
    ['issuer includes query', 'https://issuer.example.com?foo=bar', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL may not include a query, got: https://issuer.example.com?foo=bar'],
    ['issuer includes fragment', 'https://issuer.example.com#baz', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL may not include a fragment, got: https://issuer.example.com#baz'],
    ['issuer includes query and fragment', 'https://issuer.example.com?foo=bar#baz', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL may not include a query, got: https://issuer.example.com?foo=bar#baz'],
    ['issuer is not a valid URL', 'issuer', `${exampleIssuer}/openid/v1/jwks`, '', 'issuer URL must use https scheme, got: issuer'],
    ['jwks missing https', exampleIssuer, 'http://issuer.example.com/openid/v1/jwks', '', 'jwksURI requires https scheme, parsed as: http://issuer.example.com/openid/v1/jwks'],
    ['jwks missing scheme', exampleIssuer, 'issuer.example.com/openid/v1/jwks', '', 'jwksURI requires https scheme, parsed as: issuer.example.com/openid/v1/jwks'],
    ['jwks is not a valid URL', exampleIssuer, 'issuer/openid/v1/jwks', '', 'jwksURI requires https scheme, parsed as: issuer/openid/v1/jwks'],
    ['external address also has a scheme', exampleIssuer, '', 'https://192.0.2.1:80', 'attempted to build jwks_uri from external address https://192.0.2.1:80, but could not construct a valid URL.'],
    ['missing external address and jwks', exampleIssuer, '', '', 'either the JWKS URI or the default external address, or both, must be set'],
  ])('refuses: %s', (_name, issuer, jwksUri, externalAddress, error) => {
    const r = newOpenIdMetadata(issuer, jwksUri, externalAddress, staticPublicKeys(() => defaultKeys));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.startsWith(error)).toBe(true);
  });
});

describe('TestReadPublicKeys (keyutil.ParsePublicKeysPEM)', () => {
  it('refuses an empty file', () => {
    expect(parsePublicKeysPem('')).toEqual({ ok: false, error: 'data does not contain any valid RSA or ECDSA public keys' });
  });
  it.each<[string, string, number]>([
    ['an RSA public key', rsaPublicKey, 1],
    ['an ECDSA public key', ecdsaPublicKey, 1],
    ['a combined RSA/ECDSA public key file', `${rsaPublicKey}\n${ecdsaPublicKey}`, 2],
    ['an ECDSA private key with its EC PARAMETERS block', ecdsaPrivateKeyWithParams, 1],
  ])('reads %s', (_name, pem, n) => {
    const r = parsePublicKeysPem(pem);
    expect(r.ok && r.keys.length).toBe(n);
  });
});
