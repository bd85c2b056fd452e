// metav1.Duration: an int64 of nanoseconds in protobuf, Go's time.Duration String() form in JSON ("1h2m3.5s").

const units: Readonly<Record<string, bigint>> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** time.ParseDuration; undefined when the text is not a Go duration. */
export function parseGoDuration(text: string): bigint | undefined {
  const m = /^([-+]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/.exec(text);
  if (!m) return text === '0' || text === '+0' || text === '-0' ? 0n : undefined;
  let total = 0n;
  for (const part of m[2]!.matchAll(/(\d*)\.?(\d*)(ns|us|µs|μs|ms|s|m|h)/g)) {
    const unit = units[part[3]!]!;
    const whole = BigInt(part[1] || '0') * unit;
    const frac = part[2] ? (BigInt(part[2]) * unit) / 10n ** BigInt(part[2].length) : 0n;
    total += whole + frac;
  }
  return m[1] === '-' ? -total : total;
}

function fraction(v: bigint, digits: number): string {
  const s = v.toString().padStart(digits, '0').replace(/0+$/, '');
  return s ? `.${s}` : '';
}

/** time.Duration.String(). */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000n) out = `${u}ns`;
  else if (u < 1_000_000n) out = `${u / 1_000n}${fraction(u % 1_000n, 3)}µs`;
  else if (u < 1_000_000_000n) out = `${u / 1_000_000n}${fraction(u % 1_000_000n, 6)}ms`;
  else {
    const secs = u / 1_000_000_000n;
    const s = `${secs % 60n}${fraction(u % 1_000_000_000n, 9)}s`;
    const mins = secs / 60n;
    if (mins === 0n) out = s;
    else if (mins < 60n) out = `${mins}m${s}`;
    else out = `${mins / 60n}h${mins % 60n}m${s}`;
  }
  return neg ? `-${out}` : out;
}
