// controller-runtime's envtest, replayed against `kah envtest-assets`: the launcher is started exactly as
// pkg/internal/testing/controlplane/apiserver.go starts kube-apiserver (its argument list, sorted as
// process.Arguments.AsStrings renders it; its --cert-dir layout with a pre-written apiserver.crt/key and the
// sa-signer.crt/key pair; the client CA of CertAuthn and its "admin" user in system:masters), readiness is envtest's
// insecure GET of https://…/healthz, CRDs and a webhook configuration are installed through the API as
// CRDInstallOptions and WebhookInstallOptions do, and SIGTERM stops the server within envtest's stop timeout (20 s).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { generateCA, issueClientCert, issueServingCert, type CertKeyPair } from '../../certs/index.js';
import { trackChild, trackTempDir } from '../../harness/cleanup.js';
import { writeEnvtestAssets, type EnvtestAssets } from '../../harness/commands/envtest-assets.js';
import { startEtcd, type EtcdProcess } from '../../harness/etcd-process.js';
import { freePort } from '../../harness/ports.js';
import { serverNodeFlags } from '../../harness/server-node-flags.js';
import { respond, startWebhookServer, type WebhookServer } from '../../harness/webhook-server.js';
import { eventually } from '../support/eventually.js';

interface Reply {
  status: number;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

function request(port: number, reqPath: string, tls: { ca?: string; cert?: string; key?: string }, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: reqPath,
        method,
        agent: false,
        ...(tls.ca ? { ca: tls.ca } : { rejectUnauthorized: false }),
        ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
        headers: { ...(data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** process.State.CheckFlag: `<binary> --help`, then the multi-line regexp `^\s*--<flag>\b`. */
function helpHasFlag(help: string, flag: string): boolean {
  return new RegExp(`^\\s*--${flag}\\b`, 'm').test(help);
}

describe('kah envtest-assets as controller-runtime envtest starts kube-apiserver', () => {
  let assets: EnvtestAssets;
  let dir: string;
  let certDir: string;
  let etcd: EtcdProcess;
  let webhook: WebhookServer;
  let apiserver: ChildProcess | undefined;
  let output = '';
  let port: number;
  let servingCA: CertKeyPair;
  let serving: CertKeyPair;
  let admin: CertKeyPair;
  let args: string[];
  const adminTls = () => ({ ca: servingCA.cert, cert: admin.cert, key: admin.key });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'kah-envtest-'));
    trackTempDir(dir);
    assets = writeEnvtestAssets(path.join(dir, 'assets'));
    certDir = path.join(dir, 'k8s_test_framework_1');
    await mkdir(certDir, { mode: 0o700 });
    // populateAPIServerCerts: a TinyCA for serving (localhost and the bind address), another for the SA signer
    servingCA = await generateCA({ commonName: 'envtest-environment' });
    serving = await issueServingCert(servingCA, { hosts: ['localhost', '127.0.0.1'] });
    await writeFile(path.join(certDir, 'apiserver.crt'), serving.cert, { mode: 0o640 });
    await writeFile(path.join(certDir, 'apiserver.key'), serving.key, { mode: 0o640 });
    const saCA = await generateCA({ commonName: 'envtest-environment' });
    await writeFile(path.join(certDir, 'sa-signer.crt'), saCA.cert, { mode: 0o640 });
    await writeFile(path.join(certDir, 'sa-signer.key'), saCA.key, { mode: 0o640 });
    // CertAuthn: client-cert-auth-ca.crt, and AddUser(User{Name: "admin", Groups: ["system:masters"]})
    const clientCA = await generateCA({ commonName: 'envtest-environment' });
    await writeFile(path.join(certDir, 'client-cert-auth-ca.crt'), clientCA.cert, { mode: 0o640 });
    admin = await issueClientCert(clientCA, { user: 'admin', groups: ['system:masters'] });
    [etcd, webhook, port] = await Promise.all([startEtcd(), startWebhookServer({ handler: (r) => (r.request.name === 'forbidden-widget' ? respond.deny('widgets named forbidden-widget are not allowed') : respond.allow()) }), freePort()]);
    // APIServer.defaultArgs + CertAuthn.Configure, rendered by Arguments.AsStrings (keys sorted); --insecure-port is
    // disabled because --help does not list it
    args = [
      '--allow-privileged=true',
      '--authorization-mode=RBAC',
      '--bind-address=127.0.0.1',
      `--cert-dir=${certDir}`,
      `--client-ca-file=${path.join(certDir, 'client-cert-auth-ca.crt')}`,
      '--disable-admission-plugins=ServiceAccount',
      `--etcd-servers=${etcd.endpoint}`,
      `--secure-port=${port}`,
      `--service-account-issuer=https://127.0.0.1:${port}/`,
      `--service-account-key-file=${path.join(certDir, 'sa-signer.crt')}`,
      `--service-account-signing-key-file=${path.join(certDir, 'sa-signer.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
    ];
  }, 60_000);

  afterAll(async () => {
    if (apiserver && apiserver.exitCode === null && apiserver.signalCode === null) apiserver.kill('SIGKILL');
    await Promise.all([etcd?.cleanup(), webhook?.close()]);
    await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it('writes kube-apiserver, etcd and kubectl into the assets directory', () => {
    expect(assets.dir).toBe(path.join(dir, 'assets'));
    expect(path.basename(assets.kubeApiserver)).toBe('kube-apiserver');
    expect(spawnSync(path.join(assets.dir, 'etcd'), ['--version'], { encoding: 'utf8' }).stdout).toMatch(/etcd Version/);
    if (assets.kubectl) expect(spawnSync(assets.kubectl, ['version', '--client'], { encoding: 'utf8' }).stdout).toMatch(/Client Version/);
  });

  it('kah envtest-assets prints only the directory, for KUBEBUILDER_ASSETS=$(npx kah envtest-assets)', () => {
    const cli = path.join(path.dirname(path.dirname(assets.kubeApiserver)), 'cli-assets');
    const r = spawnSync(process.execPath, [path.resolve('dist/harness/cli.js'), 'envtest-assets', cli], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${cli}\n`);
    expect(spawnSync(path.join(cli, 'kube-apiserver'), ['--help'], { encoding: 'utf8' }).status).toBe(0);
    const noEtcd = spawnSync(process.execPath, [path.resolve('dist/harness/cli.js'), 'envtest-assets', cli], { encoding: 'utf8', env: { ...process.env, ETCD_BIN: '/nonexistent/etcd' } });
    expect(noEtcd.status).toBe(1);
    expect(noEtcd.stderr).toContain('etcd was not found: /nonexistent/etcd (from ETCD_BIN) does not exist or is not an executable file');
  });

  it("prints a --help from which envtest's flag discovery learns that --insecure-port is gone", () => {
    const help = spawnSync(assets.kubeApiserver, ['--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(helpHasFlag(help.stdout, 'insecure-port')).toBe(false);
    for (const a of args) expect(helpHasFlag(help.stdout, a.slice(2).split('=')[0]!)).toBe(true);
    expect(help.stdout).toMatch(/^\s+--allow-privileged\s+Accepted for kube-apiserver compatibility and ignored/m);
  });

  it("runs the server with the node flags startApiServer uses, unless NODE_OPTIONS sets the pool size itself", async () => {
    // a module preloaded through NODE_OPTIONS reports the node flags of the process the launcher execs
    const report = path.join(dir, 'exec-argv.json');
    const preload = path.join(dir, 'report-exec-argv.cjs');
    await writeFile(preload, `require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.execArgv));\n`);
    const execArgv = async (nodeOptions: string): Promise<string[]> => {
      const r = spawnSync(assets.kubeApiserver, ['--help'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: nodeOptions } });
      expect(r.status).toBe(0);
      return JSON.parse(await readFile(report, 'utf8')) as string[];
    };
    expect(await execArgv(`--require ${preload}`)).toEqual(serverNodeFlags({}));
    expect(await execArgv(`--v8-pool-size=3 --require ${preload}`)).toEqual([]);
  });

  it('refuses an unknown flag as kube-apiserver does', () => {
    const r = spawnSync(assets.kubeApiserver, [...args, '--no-such-flag=1'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Error: unknown flag: --no-such-flag');
  });

  it("starts with envtest's arguments and answers envtest's readiness probe (insecure GET /healthz)", async () => {
    apiserver = spawn(assets.kubeApiserver, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(apiserver);
    apiserver.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    apiserver.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const health = await eventually(async () => {
      if (apiserver!.exitCode !== null) throw new Error(`the launcher exited: ${output}`);
      const r = await request(port, '/healthz', {});
      expect(r.status).toBe(200);
      return r;
    }, 20_000, 100);
    expect(health.body).toBe('ok');
  }, 30_000);

  it("serves envtest's pre-written apiserver.crt, trusted through envtest's CA, and leaves it in place", async () => {
    const r = await request(port, '/version', { ca: servingCA.cert });
    expect(r.status).toBe(200);
    expect(await readFile(path.join(certDir, 'apiserver.crt'), 'utf8')).toBe(serving.cert);
    expect(await readFile(path.join(certDir, 'apiserver.key'), 'utf8')).toBe(serving.key);
  });

  it("authenticates envtest's admin client certificate as admin in system:masters", async () => {
    // waitForDefaultNamespace
    await eventually(async () => expect((await request(port, '/api/v1/namespaces/default', adminTls())).status).toBe(200), 5_000, 50);
    const r = await request(port, '/apis/authentication.k8s.io/v1/selfsubjectreviews', adminTls(), 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(r.status).toBe(201);
    expect(r.json<{ status: { userInfo: unknown } }>().status.userInfo).toEqual({ username: 'admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('installs a CRD as CRDInstallOptions does and serves it once discovery lists it (WaitForCRDs)', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    };
    // installCRDs: create, or update when it exists
    expect((await request(port, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', adminTls(), 'POST', crd)).status).toBe(201);
    await eventually(async () => {
      const r = await request(port, '/apis/example.com/v1', adminTls());
      expect(r.status).toBe(200);
      expect(r.json<{ resources: Array<{ name: string }> }>().resources.map((x) => x.name)).toContain('widgets');
    }, 10_000, 50);
  });

  it('calls a webhook installed as WebhookInstallOptions does (url and caBundle of the local server)', async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'widget-validator' },
      webhooks: [
        {
          name: 'vwidget.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { url: webhook.url('/validate-example-com-v1-widget'), caBundle: webhook.caBundle },
          rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'] }],
        },
      ],
    };
    expect((await request(port, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', adminTls(), 'POST', config)).status).toBe(201);
    // WaitForWebhooks: the configuration can be read back
    await eventually(async () => expect((await request(port, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widget-validator', adminTls())).status).toBe(200));
    const widget = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size: 3 } });
    const ok = await request(port, '/apis/example.com/v1/namespaces/default/widgets', adminTls(), 'POST', widget('good-widget'));
    expect(ok.status).toBe(201);
    const denied = await request(port, '/apis/example.com/v1/namespaces/default/widgets', adminTls(), 'POST', widget('forbidden-widget'));
    expect(denied.status).toBe(403);
    expect(denied.json<{ message: string }>().message).toBe('admission webhook "vwidget.example.com" denied the request: widgets named forbidden-widget are not allowed');
    expect(webhook.reviews.map((r) => [r.path, r.request.name, r.request.userInfo.username])).toEqual([
      ['/validate-example-com-v1-widget', 'good-widget', 'admin'],
      ['/validate-example-com-v1-widget', 'forbidden-widget', 'admin'],
    ]);
  });

  it("issues ES256 service-account tokens with envtest's ECDSA sa-signer key and verifies them with sa-signer.crt", async () => {
    expect((await request(port, '/api/v1/namespaces/default/serviceaccounts', adminTls(), 'POST', { metadata: { name: 'controller' } })).status).toBe(201);
    const tr = await request(port, '/api/v1/namespaces/default/serviceaccounts/controller/token', adminTls(), 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    expect(tr.status).toBe(201);
    const token = tr.json<{ status: { token: string } }>().status.token;
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { alg: string };
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iss: string; aud: string[] };
    expect(header.alg).toBe('ES256');
    expect(claims.iss).toBe(`https://127.0.0.1:${port}/`);
    expect(claims.aud).toEqual([`https://127.0.0.1:${port}/`]);
    const review = await request(port, '/apis/authentication.k8s.io/v1/tokenreviews', adminTls(), 'POST', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    expect(review.json<{ status: { authenticated: boolean; user: { username: string } } }>().status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:default:controller' } });
  });

  it("stops on SIGTERM within envtest's stop timeout", async () => {
    const exited = new Promise<number | null>((resolve) => apiserver!.once('exit', (code) => resolve(code)));
    apiserver!.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000).unref())]);
    expect(code).toBe(0);
  }, 25_000);
});
