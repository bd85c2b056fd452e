// `kah envtest-assets [DIR]`: a KUBEBUILDER_ASSETS directory for controller-runtime's envtest, which looks there for
// `kube-apiserver`, `etcd` and `kubectl` (pkg/envtest/server.go configureBinaryPaths). `kube-apiserver` is a launcher
// for this package's server, which accepts the flags envtest passes; `etcd` and `kubectl` link to the installed
// ones. Prints the directory (only it, for `KUBEBUILDER_ASSETS=$(npx kah envtest-assets)`).
import { createHash } from 'node:crypto';
import { accessSync, constants as fsConstants, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultServerEntry } from '../apiserver-process.js';
import { resolveEtcdBinary } from '../etcd-process.js';
import { serverNodeFlags } from '../server-node-flags.js';

export interface EnvtestAssetsIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface EnvtestAssets {
  dir: string;
  kubeApiserver: string;
  etcd: string;
  /** undefined when no kubectl is installed (envtest needs it only for its kubectl helpers) */
  kubectl?: string;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One directory per installed package, so repeated calls reuse it. */
export function defaultAssetsDir(serverEntry: string): string {
  const id = createHash('sha256').update(serverEntry).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `kah-envtest-assets-${id}`);
}

/** POSIX shell single quotes. */
function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function replaceSymlink(target: string, link: string): void {
  rmSync(link, { force: true });
  symlinkSync(target, link);
}

/** Creates (or refreshes) the directory; throws with a clear message when etcd is missing. */
export function writeEnvtestAssets(dir: string | undefined, env: NodeJS.ProcessEnv = process.env): EnvtestAssets {
  const serverEntry = path.resolve(defaultServerEntry());
  const out = path.resolve(dir ?? defaultAssetsDir(serverEntry));
  mkdirSync(out, { recursive: true });
  const etcd = resolveEtcdBinary(undefined, env);
  // exec: envtest signals the launcher's pid with SIGTERM, which must reach the server itself
  const launcher = [
    '#!/bin/sh',
    '# kube-apiserver for controller-runtime envtest: kube-admission-harness (kah serve)',
    // --help names the command as envtest ran it
    'KAH_COMMAND_PATH=kube-apiserver; export KAH_COMMAND_PATH',
    // the node flags startApiServer uses on this machine (harness/server-node-flags.ts), unless NODE_OPTIONS sets its own
    `case " $NODE_OPTIONS" in *" --v8-pool-size"*) kah_node_flags= ;; *) kah_node_flags=${shQuote(serverNodeFlags({}).join(' '))} ;; esac`,
    `exec ${shQuote(process.execPath)} $kah_node_flags ${shQuote(serverEntry)} "$@"`,
    '',
  ].join('\n');
  const kubeApiserver = path.join(out, 'kube-apiserver');
  const tmp = `${kubeApiserver}.${process.pid}.tmp`;
  writeFileSync(tmp, launcher, { mode: 0o755 });
  renameSync(tmp, kubeApiserver);
  replaceSymlink(etcd, path.join(out, 'etcd'));
  const assets: EnvtestAssets = { dir: out, kubeApiserver, etcd: path.join(out, 'etcd') };
  const kubectl = env.KUBECTL_BIN || onPath('kubectl', env);
  if (kubectl) {
    replaceSymlink(path.resolve(kubectl), path.join(out, 'kubectl'));
    assets.kubectl = path.join(out, 'kubectl');
  }
  return assets;
}

export const envtestAssetsUsage = 'kah envtest-assets [DIR]';

export function runEnvtestAssets(args: string[], io: EnvtestAssetsIO): number {
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout.write(`usage: ${envtestAssetsUsage}\n\nWrites kube-apiserver (a launcher for this apiserver), etcd and kubectl into DIR (default: a directory under the system temp dir)\nand prints DIR, for KUBEBUILDER_ASSETS=$(npx kah envtest-assets).\n`);
    return 0;
  }
  if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
    io.stderr.write(`Error: usage: ${envtestAssetsUsage}\n`);
    return 1;
  }
  try {
    const assets = writeEnvtestAssets(args[0]);
    if (!assets.kubectl) io.stderr.write('Warning: no kubectl on PATH (or KUBECTL_BIN): the directory has none, which envtest needs only for its kubectl helpers\n');
    io.stdout.write(`${assets.dir}\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    return 1;
  }
}
