// `kah`: dispatch, usage errors, certs and kubeconfig in-process; `up` as the built bin, stopped with Ctrl-C (SIGINT).
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { packageRoot } from '../../harness/apiserver-process.js';
import { runCli } from '../../harness/cli.js';
import { captureCliIO as capture } from '../support/cli.js';
import { isAlive } from '../support/process.js';

describe('kah', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kah-cli-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every command with help', async () => {
    const io = capture();
    expect(await runCli(['help'], io)).toBe(0);
    for (const c of ['serve', 'up', 'certs', 'kubeconfig', 'help']) expect(io.out()).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  it('exits 1 with the usage on an unknown command', async () => {
    const io = capture();
    expect(await runCli(['frobnicate'], io)).toBe(1);
    expect(io.err()).toContain('kah: unknown command "frobnicate"');
    expect(io.err()).toContain('usage: kah <command>');
  });

  it('exits 1 with the usage when no command is given', async () => {
    const io = capture();
    expect(await runCli([], io)).toBe(1);
    expect(io.err()).toContain('usage: kah <command>');
  });

  it('exits 1 naming the problem on a bad certs flag', async () => {
    const io = capture();
    expect(await runCli(['certs', '--dir', dir, '--no-such'], io)).toBe(1);
    expect(io.err()).toMatch(/kah certs: .*--no-such/);
    expect(io.err()).toContain('usage: kah certs');
    const io2 = capture();
    expect(await runCli(['certs'], io2)).toBe(1);
    expect(io2.err()).toContain('--dir is required');
  });

  it('writes a --cert-dir layout (CA, apiserver serving cert, admin client cert) by default', async () => {
    const io = capture();
    expect(await runCli(['certs', '--dir', dir, '--hosts', 'localhost,127.0.0.1', '--hosts', 'kah.example'], io)).toBe(0);
    for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key']) expect(existsSync(path.join(dir, f))).toBe(true);
    const ca = new X509Certificate(readFileSync(path.join(dir, 'ca.crt')));
    const serving = new X509Certificate(readFileSync(path.join(dir, 'apiserver.crt')));
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.subjectAltName).toContain('DNS:kah.example');
    expect(serving.subjectAltName).toContain('IP Address:127.0.0.1');
    const admin = new X509Certificate(readFileSync(path.join(dir, 'admin.crt')));
    expect(admin.subject).toContain('CN=kubernetes-admin');
    expect(admin.subject).toContain('O=system:masters');
  });

  it('writes a client cert for --client-cn and --client-groups, reusing the CA', async () => {
    expect(await runCli(['certs', '--dir', dir], capture())).toBe(0);
    const caBefore = readFileSync(path.join(dir, 'ca.crt'), 'utf8');
    const io = capture();
    expect(await runCli(['certs', '--dir', dir, '--client-cn', 'alice', '--client-groups', 'dev,ops', '--client-name', 'alice'], io)).toBe(0);
    expect(readFileSync(path.join(dir, 'ca.crt'), 'utf8')).toBe(caBefore);
    expect(io.out()).toContain('reused CA');
    const alice = new X509Certificate(readFileSync(path.join(dir, 'alice.crt')));
    expect(alice.subject).toMatch(/CN=alice/);
    expect(alice.subject).toMatch(/O=dev/);
    expect(alice.subject).toMatch(/O=ops/);
  });

  it('writes a kubeconfig that client-node loads, to stdout or to --out', async () => {
    expect(await runCli(['certs', '--dir', dir], capture())).toBe(0);
    const args = ['kubeconfig', '--server', 'https://127.0.0.1:6443', '--ca', path.join(dir, 'ca.crt'), '--cert', path.join(dir, 'admin.crt'), '--key', path.join(dir, 'admin.key')];
    const io = capture();
    expect(await runCli(args, io)).toBe(0);
    const kc = new KubeConfig();
    kc.loadFromString(io.out());
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.name).toBe('kubernetes-admin');
    expect(Buffer.from(kc.getCurrentUser()!.certData!, 'base64').toString()).toBe(readFileSync(path.join(dir, 'admin.crt'), 'utf8'));

    const out = path.join(dir, 'kubeconfig');
    expect(await runCli([...args, '--out', out], capture())).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(io.out());
  });

  it('exits 1 when kubeconfig misses credentials', async () => {
    const io = capture();
    expect(await runCli(['kubeconfig', '--server', 'https://x', '--ca', '/nope'], io)).toBe(1);
    expect(io.err()).toContain('--cert and --key (or --token) are required');
  });

  it('rejects a bad --storage for up', async () => {
    const io = capture();
    expect(await runCli(['up', '--storage', 'sqlite'], io)).toBe(1);
    expect(io.err()).toContain('--storage must be etcd or memory');
  });
});

describe('kah up (the built bin)', () => {
  it('runs etcd and the apiserver in the foreground, prefixes their logs, and stops both on SIGINT', async () => {
    const root = packageRoot();
    const child = spawn(process.execPath, [path.join(root, 'dist/harness/cli.js'), 'up'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const ready = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/kah: Ctrl-C stops both/.test(err)) resolve(err);
      });
      child.on('exit', (code) => reject(new Error(`kah up exited with ${code} before ready:\n${err}\n${out}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await ready;
      const url = /apiserver ready at (https:\/\/\S+)/.exec(err)?.[1];
      const kubeconfigPath = /kubeconfig: (\S+)/.exec(err)?.[1];
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(existsSync(kubeconfigPath!)).toBe(true);
      expect(out).toMatch(/^\[etcd\] /m);
      expect(out).toMatch(/^\[apiserver\] /m);

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(existsSync(kubeconfigPath!)).toBe(false);
      // Nothing listens on the apiserver's port any more.
      const port = Number(new URL(url!).port);
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    } finally {
      if (child.pid !== undefined && isAlive(child.pid)) child.kill('SIGKILL');
    }
  }, 120_000);
});
