// A small seeded PRNG (mulberry32) for generated tests: the same seed gives the same sequence on every machine, so a
// failure found by the fuzz or the durability suite reproduces from the seed it prints.
import { randomInt } from 'node:crypto';

export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One entry of a table whose entries carry a `weight` (> 0). */
  weighted<T extends { weight: number }>(items: readonly T[]): T {
    const total = items.reduce((s, i) => s + i.weight, 0);
    let r = this.next() * total;
    for (const item of items) {
      r -= item.weight;
      if (r < 0) return item;
    }
    return items[items.length - 1]!;
  }

  /** Lower-case alphanumeric text of the given length. */
  word(length: number): string {
    const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let s = '';
    for (let i = 0; i < length; i++) s += chars[Math.floor(this.next() * chars.length)];
    return s;
  }

  bytes(length: number): Buffer {
    const b = Buffer.alloc(length);
    for (let i = 0; i < length; i++) b[i] = Math.floor(this.next() * 256);
    return b;
  }

  /** An independent generator derived from this one (for a sub-task whose draws must not shift the main sequence). */
  fork(): Prng {
    return new Prng(Math.floor(this.next() * 4294967296));
  }
}

/**
 * The seed for a generated suite: `process.env[envVar]` when set (to reproduce a failure), else a new random one.
 * Suites print it in every failure message.
 */
export function seedFrom(envVar: string): number {
  const fromEnv = process.env[envVar];
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`${envVar}=${fromEnv} is not a 32-bit unsigned integer`);
    return n;
  }
  return randomInt(0, 0xffffffff);
}
