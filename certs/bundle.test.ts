import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA } from './ca.js';
import { ensureServingBundle as ensureServingBundleResult, writeCertBundle, type ServingBundle, type ServingBundleOptions } from './bundle.js';
import { certCoversHosts, certIssuedBy, inspectCert } from './inspect.js';
import { issueClientCert } from './issue.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-certs-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

async function ensureServingBundle(d: string, opts?: ServingBundleOptions): Promise<ServingBundle> {
  const r = await ensureServingBundleResult(d, opts);
  if (!r.ok) throw new Error(r.error);
  return r.bundle;
}

describe('ensureServingBundle', () => {
  it('generates the CA, serving and admin certificates in an empty directory', async () => {
    const b = await ensureServingBundle(join(dir, 'nested'));
    expect(b.generated).toEqual(['ca', 'serving', 'admin']);
    expect(await readFile(b.paths.caCert, 'utf8')).toBe(b.ca.cert);
    expect(await readFile(b.paths.servingKey, 'utf8')).toBe(b.serving.key);
    expect(certCoversHosts(b.serving.cert, ['localhost', '127.0.0.1', '::1'])).toBe(true);
    expect(inspectCert(b.admin.cert)).toMatchObject({ commonName: 'kubernetes-admin', organizations: ['system:masters'], clientAuth: true });
    expect(certIssuedBy(b.admin.cert, b.ca.cert)).toBe(true);
    expect(await mode(b.paths.caKey)).toBe(0o600);
    expect(await mode(b.paths.adminKey)).toBe(0o600);
    expect(await mode(b.paths.servingCert)).toBe(0o644);
  });

  it('reuses every file on restart', async () => {
    const first = await ensureServingBundle(dir);
    const second = await ensureServingBundle(dir);
    expect(second.generated).toEqual([]);
    expect(second.ca).toEqual(first.ca);
    expect(second.serving).toEqual(first.serving);
    expect(second.admin).toEqual(first.admin);
  });

  it('keeps the CA and the admin certificate but renews the serving certificate when hosts change', async () => {
    const first = await ensureServingBundle(dir);
    const second = await ensureServingBundle(dir, { hosts: ['localhost', '127.0.0.1', '::1', 'kah.test'] });
    expect(second.generated).toEqual(['serving']);
    expect(second.reasons[0]).toMatch(/apiserver\.crt: does not cover localhost, 127\.0\.0\.1, ::1, kah\.test$/);
    expect(second.ca).toEqual(first.ca);
    expect(second.admin).toEqual(first.admin);
    expect(certCoversHosts(second.serving.cert, ['kah.test'])).toBe(true);
  });

  it('renews expired leaves under the same CA', async () => {
    const first = await ensureServingBundle(dir);
    const later = new Date(Date.now() + 400 * 24 * 3600 * 1000);
    const second = await ensureServingBundle(dir, { now: later });
    expect(second.generated).toEqual(['serving', 'admin']);
    expect(second.ca).toEqual(first.ca);
    expect(second.reasons[0]).toMatch(/not valid now/);
  });

  it('starts over with a new CA when ca.key does not match ca.crt', async () => {
    const first = await ensureServingBundle(dir);
    await writeFile(first.paths.caKey, (await generateCA()).key);
    const second = await ensureServingBundle(dir);
    expect(second.generated).toEqual(['ca', 'serving', 'admin']);
    expect(second.reasons[0]).toMatch(/ca\.crt: key does not match the certificate/);
    expect(certIssuedBy(second.serving.cert, second.ca.cert)).toBe(true);
  });

  it('replaces an admin certificate that is not kubernetes-admin in system:masters', async () => {
    const first = await ensureServingBundle(dir);
    const bob = await issueClientCert(first.ca, { user: 'bob' });
    await writeFile(first.paths.adminCert, bob.cert);
    await writeFile(first.paths.adminKey, bob.key);
    const second = await ensureServingBundle(dir);
    expect(second.generated).toEqual(['admin']);
    expect(inspectCert(second.admin.cert)?.commonName).toBe('kubernetes-admin');
  });

  it('replaces a leaf signed by another CA and garbage files', async () => {
    const first = await ensureServingBundle(dir);
    await writeFile(first.paths.servingCert, 'not a cert');
    const second = await ensureServingBundle(dir);
    expect(second.generated).toEqual(['serving']);
    expect(second.reasons).toEqual([`${first.paths.servingCert}: not a PEM certificate`]);
  });
});

describe('writeCertBundle', () => {
  it('writes a CA and the named serving and client certificates', async () => {
    const r = await writeCertBundle(dir, {
      servingCerts: [{ name: 'webhook', hosts: ['webhook.default.svc', '127.0.0.1'] }],
      clientCerts: [
        { name: 'admin', user: 'kubernetes-admin', groups: ['system:masters'] },
        { name: 'bob', user: 'bob', groups: ['dev'] },
      ],
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.bundle.newCA).toBe(true);
    expect(Object.keys(r.bundle.files)).toEqual(['ca', 'webhook', 'admin', 'bob']);
    const webhook = await readFile(r.bundle.files['webhook']!.cert, 'utf8');
    expect(certCoversHosts(webhook, ['webhook.default.svc', '127.0.0.1'])).toBe(true);
    expect(inspectCert(await readFile(r.bundle.files['bob']!.cert, 'utf8'))).toMatchObject({ commonName: 'bob', organizations: ['dev'] });
    expect(await mode(r.bundle.files['bob']!.key)).toBe(0o600);
  });

  it('signs with the CA already in the directory', async () => {
    const first = await writeCertBundle(dir, { caName: 'root' });
    const second = await writeCertBundle(dir, { caName: 'root', clientCerts: [{ name: 'c', user: 'u' }] });
    if (!first.ok || !second.ok) throw new Error('expected ok');
    expect(second.bundle.newCA).toBe(false);
    expect(second.bundle.ca).toEqual(first.bundle.ca);
    expect(certIssuedBy(await readFile(second.bundle.files['c']!.cert, 'utf8'), first.bundle.ca.cert)).toBe(true);
  });

  it('generates a new CA when asked not to reuse', async () => {
    const first = await writeCertBundle(dir, {});
    const second = await writeCertBundle(dir, { reuseCA: false });
    if (!first.ok || !second.ok) throw new Error('expected ok');
    expect(second.bundle.newCA).toBe(true);
    expect(second.bundle.ca.cert).not.toBe(first.bundle.ca.cert);
  });

  it('reports every bad name at once, writing nothing', async () => {
    const r = await writeCertBundle(dir, {
      caName: '../ca',
      servingCerts: [{ name: 'x', hosts: [] }],
      clientCerts: [
        { name: 'x', user: '' },
        { name: 'a/b', user: 'u' },
      ],
    });
    expect(r).toEqual({
      ok: false,
      errors: [
        `caName: Invalid value: "../ca": must be a file name (letters, digits, '.', '_', '-')`,
        'clientCerts[0].name: Duplicate value: "x"',
        `clientCerts[1].name: Invalid value: "a/b": must be a file name (letters, digits, '.', '_', '-')`,
        'clientCerts[0].user: Required value',
        'servingCerts[0].hosts: Required value: at least one DNS name or IP',
      ],
    });
  });
});
