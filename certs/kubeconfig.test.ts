import { KubeConfig } from '@kubernetes/client-node';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { parse } from 'yaml';
import { ensureServingBundle, type ServingBundle } from './bundle.js';
import { buildKubeconfig, writeKubeconfig } from './kubeconfig.js';

let dir: string;
let bundle: ServingBundle;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kah-kubeconfig-'));
  const r = await ensureServingBundle(join(dir, 'certs'));
  if (!r.ok) throw new Error(r.error);
  bundle = r.bundle;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('kubeconfig', () => {
  it('embeds the CA and client certificate and sets the current context', () => {
    const text = buildKubeconfig({
      server: 'https://127.0.0.1:6443',
      caPem: bundle.ca.cert,
      clientCertPem: bundle.admin.cert,
      clientKeyPem: bundle.admin.key,
      user: 'kubernetes-admin',
      namespace: 'team-a',
    });
    const doc = parse(text) as Record<string, unknown>;
    expect(doc).toMatchObject({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'kubernetes-admin@kube-admission-harness',
      clusters: [{ name: 'kube-admission-harness', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(bundle.ca.cert).toString('base64') } }],
      users: [{ name: 'kubernetes-admin', user: { 'client-certificate-data': Buffer.from(bundle.admin.cert).toString('base64') } }],
      contexts: [{ name: 'kubernetes-admin@kube-admission-harness', context: { cluster: 'kube-admission-harness', user: 'kubernetes-admin', namespace: 'team-a' } }],
    });
  });

  it('writes a 0600 file that client-node loads', async () => {
    const path = join(dir, 'admin.kubeconfig');
    await writeKubeconfig(path, {
      server: 'https://127.0.0.1:6443',
      caPem: bundle.ca.cert,
      clientCertPem: bundle.admin.cert,
      clientKeyPem: bundle.admin.key,
      user: 'kubernetes-admin',
      contextName: 'kah',
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    expect(kc.getCurrentContext()).toBe('kah');
    expect(kc.getCurrentCluster()).toMatchObject({ name: 'kube-admission-harness', server: 'https://127.0.0.1:6443', caData: Buffer.from(bundle.ca.cert).toString('base64') });
    expect(kc.getCurrentUser()).toMatchObject({ name: 'kubernetes-admin', keyData: Buffer.from(bundle.admin.key).toString('base64') });
  });

  it('holds a token user instead of a certificate', () => {
    const kc = new KubeConfig();
    kc.loadFromString(buildKubeconfig({ server: 'https://[::1]:6443', caPem: bundle.ca.cert, token: 's3cr3t', user: 'bob' }));
    expect(kc.getCurrentUser()).toMatchObject({ name: 'bob', token: 's3cr3t' });
    expect(kc.getCurrentUser()?.certData).toBeUndefined();
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBeUndefined();
  });

  it('lets client-node authenticate to the serving certificate with the admin certificate', async () => {
    const server = https.createServer(
      { key: bundle.serving.key, cert: bundle.serving.cert, ca: bundle.ca.cert, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const s = req.socket as TLSSocket;
        res.end(JSON.stringify(s.getPeerCertificate().subject));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const kc = new KubeConfig();
      kc.loadFromString(
        buildKubeconfig({ server: `https://127.0.0.1:${port}`, caPem: bundle.ca.cert, clientCertPem: bundle.admin.cert, clientKeyPem: bundle.admin.key, user: 'kubernetes-admin' }),
      );
      const opts: https.RequestOptions = { host: '127.0.0.1', port, path: '/', agent: false };
      await kc.applyToHTTPSOptions(opts);
      const subject = await new Promise<unknown>((resolve, reject) => {
        const req = https.request(opts, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(JSON.parse(body)));
        });
        req.on('error', reject);
        req.end();
      });
      expect(subject).toEqual({ CN: 'kubernetes-admin', O: 'system:masters' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
