// CPU time from /proc: per process (what a request costs the server and etcd, much less sensitive to how busy the machine
// is) and for the whole machine (how much of it other processes took while the benchmark ran).
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** USER_HZ: 100 on every Linux architecture node supports. */
const ticksPerSecond = 100;

/** utime + stime of a live process (own threads only), in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // comm (field 2) may contain spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * This process and every child it has reaped, in ms: after the children exited, all the CPU the benchmark
 * caused (node adds a child's time to cutime/cstime when it waits for it).
 */
export function selfAndReapedChildrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / ticksPerSecond;
}

/** Busy time of all CPUs together since boot, in ms (user, nice, system, irq, softirq, steal). */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = v;
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / ticksPerSecond;
}

export function cores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

export interface CpuReading {
  /** CPU ms of each watched process over the interval */
  processes: Record<string, number>;
  /** CPU ms of this process (the load generator) */
  self: number;
  /** cores busy with anything else on the machine, on average */
  otherCores: number;
  wallMs: number;
}

/** Watches named processes (and this one) over an interval. */
export class CpuMeter {
  private readonly start: { processes: Record<string, number>; self: NodeJS.CpuUsage; machine: number; at: number };

  constructor(private readonly pids: Record<string, number>) {
    this.start = {
      processes: Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuMs(pid)])),
      self: process.cpuUsage(),
      machine: machineBusyMs(),
      at: performance.now(),
    };
  }

  read(): CpuReading {
    const wallMs = performance.now() - this.start.at;
    const processes = Object.fromEntries(Object.entries(this.pids).map(([k, pid]) => [k, processCpuMs(pid) - this.start.processes[k]!]));
    const u = process.cpuUsage(this.start.self);
    const self = (u.user + u.system) / 1000;
    const ours = self + Object.values(processes).reduce((a, b) => a + b, 0);
    const otherCores = Math.max(0, (machineBusyMs() - this.start.machine - ours) / wallMs);
    return { processes, self, otherCores, wallMs };
  }
}
