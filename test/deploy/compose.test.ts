// docker-compose.yml and the Dockerfile, read as the server would read them: no docker engine runs here, so their
// flags go through the server's own option parser (what `kah serve` runs), and the paths they name are checked
// against the volumes that carry them, so that neither file can drift into a flag the server rejects or an open door.
import { request } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { servingBundlePaths } from '../../certs/index.js';
import { startApiServer, type ApiServerHandle } from '../../harness/apiserver-process.js';
import { parseServerOptions } from '../../server/options/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface ComposeService {
  image?: string;
  hostname?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  healthcheck?: { test: string[] };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

async function compose(): Promise<ComposeFile> {
  return parseYaml(await readFile(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as ComposeFile;
}

/** Dockerfile instructions in exec form (JSON arrays) of the last stage, the one that runs. */
async function dockerfileExec(instruction: 'CMD' | 'ENTRYPOINT'): Promise<string[]> {
  const text = await readFile(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => l.startsWith(`${instruction} `));
  const last = lines.at(-1);
  if (!last) throw new Error(`no ${instruction} in the Dockerfile`);
  return JSON.parse(last.slice(instruction.length + 1)) as string[];
}

/** The named volume mounted at a container path that holds `file`, and whether it is read-only. */
function volumeHolding(service: ComposeService, file: string): { volume: string; readOnly: boolean } | undefined {
  for (const v of service.volumes ?? []) {
    const [source, target, mode] = v.split(':');
    if (source && target && (file === target || file.startsWith(`${target}/`))) return { volume: source, readOnly: mode === 'ro' };
  }
  return undefined;
}

describe('docker-compose.yml', () => {
  it('starts the apiserver with flags the server accepts, without warnings', async () => {
    const { services } = await compose();
    const [entry, script, sub] = await dockerfileExec('ENTRYPOINT');
    expect([entry, script, sub]).toEqual(['node', 'dist/harness/cli.js', 'serve']);
    const parsed = parseServerOptions(services.apiserver!.command!, 'kah serve');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.options.help).toBe(false);
  });

  it('requires authentication: no anonymous requests, the port published on loopback only', async () => {
    const { services } = await compose();
    const parsed = parseServerOptions(services.apiserver!.command!, 'kah serve');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.options.authentication.anonymous).toBe(false);
    // The only credentials are client certificates from the generated CA in the certs volume.
    expect(parsed.options.authentication.tokenAuthFile).toBeUndefined();
    expect(services.apiserver!.ports).toEqual(['127.0.0.1:6443:6443']);
    // The container serves every interface (other containers reach it); the host sees only its loopback.
    expect(parsed.options.secureServing.bindAddress).toBe('0.0.0.0');
  });

  it('writes the kubeconfig for https://apiserver:6443 to a volume other containers mount', async () => {
    const { services, volumes } = await compose();
    const api = services.apiserver!;
    const parsed = parseServerOptions(api.command!, 'kah serve');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const o = parsed.options;
    // The kubeconfig's server is https://<external-hostname>:<secure-port>: the service's own name, which the
    // generated serving certificate covers (it adds the external hostname and the container's hostname).
    expect(o.externalHostname).toBe(api.hostname);
    expect(`https://${o.externalHostname}:${o.secureServing.port}`).toBe('https://apiserver:6443');
    const kubeconfig = o.writeKubeconfig!;
    const written = volumeHolding(api, kubeconfig);
    expect(written).toEqual({ volume: 'kubeconfig', readOnly: false });
    expect(Object.keys(volumes)).toContain('kubeconfig');
    // The certs (and the CA key) are in another volume: mounting the kubeconfig does not hand out the CA.
    expect(volumeHolding(api, o.secureServing.certDir)?.volume).not.toBe('kubeconfig');

    const example = services['kubeconfig-example']!;
    expect(example.environment?.KUBECONFIG).toBe(kubeconfig);
    expect(volumeHolding(example, kubeconfig)).toEqual({ volume: 'kubeconfig', readOnly: true });
    expect(example.image).toBe(api.image);
  });

  it('checks readiness with the admin certificate files the server writes to --cert-dir', async () => {
    const { services } = await compose();
    const api = services.apiserver!;
    const parsed = parseServerOptions(api.command!, 'kah serve');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const script = api.healthcheck!.test.join(' ');
    const dir = parsed.options.secureServing.certDir;
    expect(script).toContain(`d = '${dir}/'`);
    const files = servingBundlePaths(dir);
    for (const f of [files.caCert, files.adminCert, files.adminKey]) expect(script).toContain(`d + '${path.basename(f)}'`);
    expect(script).toContain(`port: ${parsed.options.secureServing.port}`);
  });
});

describe('Dockerfile', () => {
  it('runs with default flags the server accepts, anonymous requests off, the kubeconfig in a directory the image creates for node', async () => {
    const parsed = parseServerOptions(await dockerfileExec('CMD'), 'kah serve');
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.options.authentication.anonymous).toBe(false);
    const text = await readFile(path.join(repoRoot, 'Dockerfile'), 'utf8');
    const chown = text.split('\n').find((l) => l.includes('chown -R node:node'));
    for (const dir of [parsed.options.secureServing.certDir, path.dirname(parsed.options.writeKubeconfig!)]) {
      expect(chown).toContain(` ${dir}`);
    }
  });
});

describe('--external-hostname', () => {
  let server: ApiServerHandle | undefined;
  let dir: string;
  afterAll(async () => {
    await server?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('names the server of the --write-kubeconfig kubeconfig, and the serving certificate covers it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kah-external-hostname-'));
    const kubeconfigPath = path.join(dir, 'external.kubeconfig');
    server = await startApiServer({ storage: 'memory', flags: ['--external-hostname=apiserver.kah.test', `--write-kubeconfig=${kubeconfigPath}`] });
    // startApiServer returned after /readyz 200: the kubeconfig was written as the port opened, before any answer
    const kc = parseYaml(await readFile(kubeconfigPath, 'utf8')) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
    };
    const cluster = kc.clusters[0]!.cluster;
    expect(cluster.server).toBe(`https://apiserver.kah.test:${server.port}`);
    // That name does not resolve here: connect to loopback and verify the certificate against the name.
    const b64 = (s: string): Buffer => Buffer.from(s, 'base64');
    const user = kc.users[0]!.user;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server!.port,
          servername: 'apiserver.kah.test',
          path: '/api/v1/namespaces/default',
          ca: b64(cluster['certificate-authority-data']),
          cert: b64(user['client-certificate-data']),
          key: b64(user['client-key-data']),
          agent: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });
});
