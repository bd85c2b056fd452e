// The machine a result came from: figures are only comparable on the same one.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { resolveEtcdBinary } from '../harness/etcd-process.js';

export interface MachineInfo {
  cpuModel: string;
  /** logical CPUs node can schedule on */
  cores: number;
  memoryGB: number;
  os: string;
  node: string;
  etcd: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine skews every wall-clock figure */
  loadAverage: number[];
}

/** `etcd --version`'s first line's version, or why it is unknown. */
export function etcdBinaryVersion(): string {
  try {
    const out = execFileSync(resolveEtcdBinary(), ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return /etcd Version:\s*(\S+)/.exec(out)?.[1] ?? out.split('\n')[0]!.trim();
  } catch (err) {
    return `unknown (${(err as Error).message.split('\n')[0]})`;
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    memoryGB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    etcd: etcdBinaryVersion(),
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
