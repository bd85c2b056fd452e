#!/usr/bin/env node
// `kah`: the apiserver (`serve`), a local etcd + apiserver pair (`up`), certificates and kubeconfigs.
// Each subcommand is one entry in `commands`; later ones (scenario, validate, admit, bench) are added the same way.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { buildKubeconfig, defaultServingHosts, inspectCert, writeCertBundle, writeKubeconfig, type CertBundleSpec } from '../certs/index.js';
import type { ApiServerHandle } from './apiserver-process.js';
import type { EtcdProcess } from './etcd-process.js';

export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

interface Command {
  summary: string;
  usage: string;
  /** Resolves with the exit code, or 'serving' when the command keeps running in the background (serve). */
  run(args: string[], io: CliIO): Promise<number | 'serving'>;
  /** Exit as soon as run() resolves, even if handles linger (a foreground command the user stopped). */
  exitOnReturn?: boolean;
}

/** An error the user caused (bad arguments): printed without a stack, exit 1. */
class UsageError extends Error {}

function line(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

function parseOrUsage<const T extends OptionSpecs>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** "a,b" and repeated flags alike. */
function listOf(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

const serve: Command = {
  summary: 'run the apiserver in this process (kube-apiserver flags)',
  usage: 'kah serve [--secure-port=6443] [--storage-backend=etcd3|memory] [--etcd-servers=URL] [--cert-dir=DIR] [kube-apiserver flags…]',
  async run(args) {
    // Imported on use: the other subcommands must not load the whole server.
    const { runServer } = await import('../server/main.js');
    await runServer(args);
    return 'serving';
  },
};

/** Copies new text from a growing log (etcd keeps its output in memory) to a prefixed stream. */
function followLog(read: () => string, write: (line: string) => void): { flush(): void; stop(): void } {
  let offset = 0;
  let partial = '';
  const flush = (): void => {
    const text = read();
    // The log is a bounded tail: when it was trimmed, start over from what is left.
    if (text.length < offset) offset = 0;
    const fresh = partial + text.slice(offset);
    offset = text.length;
    const lines = fresh.split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) write(l);
  };
  const timer = setInterval(flush, 200);
  return {
    flush,
    stop: () => {
      clearInterval(timer);
      flush();
      if (partial) write(partial);
    },
  };
}

const up: Command = {
  summary: 'run etcd and the apiserver in the foreground; Ctrl-C stops both',
  usage: 'kah up [--storage etcd|memory] [--secure-port=PORT] [kube-apiserver flags…]',
  exitOnReturn: true,
  async run(args, io) {
    // Loaded on use, so that `kah serve` (the image's entrypoint) does not load client-node and the process harness.
    const { flagValue, startApiServer, withoutFlag } = await import('./apiserver-process.js');
    const { startEtcd } = await import('./etcd-process.js');
    let storage: 'etcd' | 'memory' = 'etcd';
    const flags: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--storage' || a.startsWith('--storage=')) {
        const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
        if (v !== 'etcd' && v !== 'memory') throw new UsageError(`--storage must be etcd or memory, not ${JSON.stringify(v)}`);
        storage = v;
      } else flags.push(a);
    }
    const portFlag = flagValue(flags, 'secure-port');
    const port = portFlag === undefined ? undefined : Number(portFlag);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new UsageError(`--secure-port must be a port number, not ${JSON.stringify(portFlag)}`);
    // The harness owns --secure-port (it must know the port to poll readiness): it becomes the port option.
    const apiserverFlags = withoutFlag(flags, 'secure-port');

    let etcd: EtcdProcess | undefined;
    let etcdLog: ReturnType<typeof followLog> | undefined;
    let server: ApiServerHandle | undefined;
    let stopping = false;
    const shutdown = async (): Promise<void> => {
      stopping = true;
      etcdLog?.stop();
      await server?.cleanup();
      await etcd?.cleanup();
    };
    let signalled: NodeJS.Signals | undefined;
    let resolveStopped!: (s: NodeJS.Signals) => void;
    const stopped = new Promise<NodeJS.Signals>((r) => (resolveStopped = r));
    const onSignal = (s: NodeJS.Signals): void => {
      // A second Ctrl-C while stopping: give up waiting; the exit handlers of cleanup.ts SIGKILL what is left.
      if (signalled) process.exit(130);
      signalled = s;
      resolveStopped(s);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const ownEtcd = storage === 'etcd' && flagValue(apiserverFlags, 'etcd-servers') === undefined;
      if (ownEtcd) {
        etcd = await startEtcd();
        etcdLog = followLog(() => etcd!.logs(), (l) => line(io.stdout, `[etcd] ${l}`));
        line(io.stderr, `kah: etcd ready at ${etcd.endpoint} (data in ${etcd.dataDir})`);
        void etcd.exited.then((e) => {
          if (!stopping) line(io.stderr, `kah: etcd exited (code ${e.code}, signal ${e.signal}); the apiserver will report it in /readyz`);
        });
      }
      const starting = startApiServer({
        storage: storage === 'memory' ? 'memory' : 'etcd3',
        ...(etcd ? { etcdServers: etcd.endpoint } : {}),
        ...(port !== undefined ? { port } : {}),
        flags: apiserverFlags,
        readyTimeoutMs: 60_000,
        onOutput: (stream, l) => line(stream === 'stderr' ? io.stderr : io.stdout, `[apiserver] ${l}`),
      });
      const first = await Promise.race([starting.then((s) => ({ server: s })), stopped.then((sig) => ({ signal: sig }))]);
      if ('signal' in first) {
        line(io.stderr, `kah: ${first.signal} while starting: stopping`);
        server = await starting.catch(() => undefined);
        await shutdown();
        return 0;
      }
      server = first.server;
      line(io.stderr, `kah: apiserver ready at ${server.url}`);
      line(io.stderr, `kah: kubeconfig: ${server.kubeconfigPath}`);
      line(io.stderr, `kah:   export KUBECONFIG=${server.kubeconfigPath}`);
      line(io.stderr, 'kah: Ctrl-C stops both');
      const outcome = await Promise.race([stopped.then((s) => ({ signal: s })), server.exited.then((e) => ({ exit: e }))]);
      if ('signal' in outcome) {
        line(io.stderr, `kah: ${outcome.signal}: stopping the apiserver${etcd ? ' and etcd' : ''}`);
        await shutdown();
        return 0;
      }
      line(io.stderr, `kah: the apiserver exited (code ${outcome.exit.code}, signal ${outcome.exit.signal}); stopping`);
      await shutdown();
      return outcome.exit.code === 0 ? 0 : 1;
    } catch (err) {
      await shutdown();
      throw err;
    } finally {
      // After a signal the listeners stay until the process exits (exitOnReturn): without one, cleanup.ts would
      // re-raise the signal and the exit status would be the signal's instead of ours.
      if (!signalled) {
        process.removeListener('SIGINT', onSignal);
        process.removeListener('SIGTERM', onSignal);
      }
    }
  },
};

const certs: Command = {
  summary: 'write a CA, a serving certificate and a client certificate to a directory',
  usage:
    'kah certs --dir DIR [--hosts localhost,127.0.0.1,::1] [--serving-name apiserver] [--client-cn NAME --client-groups g1,g2 --client-name client] [--new-ca]\n' +
    '  Without --client-cn, writes the admin client cert (admin.crt, kubernetes-admin in system:masters), so DIR works as --cert-dir.',
  async run(args, io) {
    const v = parseOrUsage(args, {
      dir: { type: 'string' },
      hosts: { type: 'string', multiple: true },
      'serving-name': { type: 'string' },
      'client-cn': { type: 'string' },
      'client-groups': { type: 'string', multiple: true },
      'client-name': { type: 'string' },
      'new-ca': { type: 'boolean' },
    });
    if (!v.dir) throw new UsageError('--dir is required');
    if (v['client-groups'] && !v['client-cn']) throw new UsageError('--client-groups needs --client-cn');
    const hosts = listOf(v.hosts);
    const spec: CertBundleSpec = {
      reuseCA: !v['new-ca'],
      servingCerts: [{ name: v['serving-name'] ?? 'apiserver', hosts: hosts.length ? hosts : defaultServingHosts }],
      clientCerts: v['client-cn']
        ? [{ name: v['client-name'] ?? 'client', user: v['client-cn'], groups: listOf(v['client-groups']) }]
        : [{ name: 'admin', user: 'kubernetes-admin', groups: ['system:masters'] }],
    };
    const result = await writeCertBundle(v.dir, spec);
    if (!result.ok) {
      for (const e of result.errors) line(io.stderr, `kah certs: ${e}`);
      return 1;
    }
    line(io.stdout, `${result.bundle.newCA ? 'new CA' : 'reused CA'} in ${result.bundle.dir}`);
    for (const [name, f] of Object.entries(result.bundle.files)) line(io.stdout, `${name}: ${f.cert} ${f.key}`);
    return 0;
  },
};

const kubeconfig: Command = {
  summary: 'write a kubeconfig with embedded CA and client credentials',
  usage: 'kah kubeconfig --server URL --ca FILE (--cert FILE --key FILE | --token TOKEN) [--user NAME] [--namespace NS] [--out FILE]',
  async run(args, io) {
    const v = parseOrUsage(args, {
      server: { type: 'string' },
      ca: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      token: { type: 'string' },
      user: { type: 'string' },
      namespace: { type: 'string' },
      out: { type: 'string' },
    });
    const missing = (['server', 'ca'] as const).filter((k) => !v[k]);
    if (missing.length) throw new UsageError(`${missing.map((m) => `--${m}`).join(' and ')} required`);
    if (v.token === undefined && (!v.cert || !v.key)) throw new UsageError('--cert and --key (or --token) are required');
    if (v.token !== undefined && (v.cert || v.key)) throw new UsageError('--token and --cert/--key are exclusive');
    const caPem = readFileSync(v.ca!, 'utf8');
    const common = { server: v.server!, caPem, ...(v.namespace ? { namespace: v.namespace } : {}) };
    let opts: Parameters<typeof buildKubeconfig>[0];
    if (v.token !== undefined) {
      opts = { ...common, user: v.user ?? 'user', token: v.token };
    } else {
      const clientCertPem = readFileSync(v.cert!, 'utf8');
      opts = { ...common, user: v.user ?? inspectCert(clientCertPem)?.commonName ?? 'user', clientCertPem, clientKeyPem: readFileSync(v.key!, 'utf8') };
    }
    if (v.out) {
      await writeKubeconfig(v.out, opts);
      line(io.stderr, `kubeconfig written to ${v.out}`);
    } else io.stdout.write(buildKubeconfig(opts));
    return 0;
  },
};

const help: Command = {
  summary: 'show this help, or a command’s usage',
  usage: 'kah help [COMMAND]',
  async run(args, io) {
    const name = args[0];
    if (name !== undefined) {
      const cmd = commands[name];
      if (!cmd) {
        line(io.stderr, `kah: unknown command ${JSON.stringify(name)}`);
        line(io.stderr, usage());
        return 1;
      }
      line(io.stdout, `${cmd.summary}\n\nusage: ${cmd.usage}`);
      return 0;
    }
    line(io.stdout, usage());
    return 0;
  },
};

const commands: Record<string, Command> = {
  serve,
  up,
  certs,
  kubeconfig,
  bench: {
    summary: 'measure startup, restart, create throughput/latency, reload, CEL and memory against their baselines (bench/results.json)',
    usage: 'kah bench [--quick] [--case NAME]… [--out FILE] [--cpu-prof-dir DIR]',
    exitOnReturn: true,
    async run(args, io) {
      const { runBench } = await import('../bench/run.js');
      return runBench(args, io);
    },
  },
  validate: {
    summary: 'check an admission configuration and its static manifests as kube-apiserver startup does, without serving',
    usage: 'kah validate --admission-control-config-file=FILE [--feature-gates=…] [kube-apiserver flags…] [-o text|json] (kah validate --help for more)',
    async run(args, io) {
      const { runValidateCommand } = await import('./commands/validate.js');
      return runValidateCommand(args, io);
    },
  },
  report: {
    summary: 'turn admission coverage files (--admission-coverage) into one self-contained HTML page',
    usage: 'kah report [--out FILE.html] COVERAGE.json…',
    async run(args, io) {
      const { runReportCommand } = await import('./commands/report.js');
      return runReportCommand(args, io);
    },
  },
  'envtest-assets': {
    summary: 'write (and print) a KUBEBUILDER_ASSETS directory whose kube-apiserver is this apiserver, for controller-runtime envtest',
    usage: 'kah envtest-assets [DIR]',
    async run(args, io) {
      const { runEnvtestAssets } = await import('./commands/envtest-assets.js');
      return runEnvtestAssets(args, io);
    },
  },
  admit: {
    summary: 'run one request through the admission policies and webhooks without a server: allowed (exit 0) or denied (1)',
    usage: 'kah admit (--admission-control-config-file=FILE | --manifests=PATH…) --object=FILE [--old-object=FILE] [--operation=OP] [-o text|json] … (kah admit --help for more)',
    async run(args, io) {
      const { runAdmitCommand } = await import('./commands/admit.js');
      return runAdmitCommand(args, io);
    },
  },
  scenario: {
    summary: 'run scenario files (YAML) like a conformance suite: progress per step, JUnit, exit 1 on failure',
    usage: 'kah scenario run PATH… [--junit FILE] [--filter REGEXP] [--bail] [--keep] [--parallel N] | kah scenario validate PATH…',
    exitOnReturn: true,
    async run(args, io) {
      const { runScenarioCommand } = await import('./commands/scenario.js');
      return runScenarioCommand(args, io);
    },
  },
  help,
};

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((k) => k.length));
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return ['usage: kah <command> [arguments]', '', 'commands:', ...rows, '', 'kah help <command> shows the usage of one command.'].join('\n');
}

/** Runs one `kah` invocation; resolves with the exit code ('serving' while `serve` keeps running). */
export async function runCli(argv: string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr }): Promise<number | 'serving'> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    line(name === undefined ? io.stderr : io.stdout, usage());
    return name === undefined ? 1 : 0;
  }
  const cmd = commands[name];
  if (!cmd) {
    line(io.stderr, `kah: unknown command ${JSON.stringify(name)}`);
    line(io.stderr, usage());
    return 1;
  }
  try {
    return await cmd.run(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      line(io.stderr, `kah ${name}: ${err.message}`);
      line(io.stderr, `usage: ${cmd.usage}`);
    } else {
      line(io.stderr, `kah ${name}: ${(err as Error).message ?? String(err)}`);
    }
    return 1;
  }
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    // Through npm's bin symlink, argv[1] is the link; compare real paths.
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  const argv = process.argv.slice(2);
  const code = await runCli(argv);
  if (code !== 'serving') {
    if (commands[argv[0] ?? '']?.exitOnReturn) process.exit(code);
    process.exitCode = code;
  }
}
