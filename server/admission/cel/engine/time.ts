// Timestamps and durations as cel-go handles them: RFC 3339 parsing, Go duration strings, the protobuf ranges
// (0001-01-01..9999-12-31, ±315576000000s), and calendar getters in a time zone (IANA name or ±HH:MM offset).
import { CelDuration, CelError, CelTimestamp } from './values.js';

const NANOS = 1_000_000_000n;
export const MIN_TIMESTAMP_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
export const MAX_TIMESTAMP_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z
export const MAX_DURATION_SECONDS = 315576000000n;

export function checkedTimestamp(nanos: bigint): CelTimestamp | CelError {
  const secs = nanos >= 0n ? nanos / NANOS : -((-nanos + NANOS - 1n) / NANOS);
  if (secs < MIN_TIMESTAMP_SECONDS || secs > MAX_TIMESTAMP_SECONDS) return new CelError('timestamp overflow: range error');
  return new CelTimestamp(nanos);
}

/** cel-go durations are Go time.Duration values: int64 nanoseconds (about ±292 years). */
export function checkedDuration(nanos: bigint): CelDuration | CelError {
  if (nanos > 2n ** 63n - 1n || nanos < -(2n ** 63n)) return new CelError('duration overflow: range error');
  return new CelDuration(nanos);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function parseTimestamp(s: string): CelTimestamp | CelError {
  const m = RFC3339.exec(s);
  if (!m) return new CelError(`timestamp parsing error: cannot parse "${s}" as RFC 3339`);
  const [, y, mo, d, h, mi, se, frac, , sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const min = Number(mi);
  const sec = Number(se);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || min > 59 || sec > 59) {
    return new CelError(`timestamp parsing error: cannot parse "${s}" as RFC 3339`);
  }
  let secs = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + min * 60 + sec);
  if (sign) {
    const off = BigInt(Number(oh) * 3600 + Number(om) * 60);
    secs += sign === '+' ? -off : off;
  }
  const nanos = secs * NANOS + BigInt((frac ?? '').padEnd(9, '0') || '0');
  return checkedTimestamp(nanos);
}

function daysIn(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm) */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): { year: number; month: number; day: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { year: y + (m <= 2 ? 1 : 0), month: m, day: d };
}

const UNIT_NANOS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration ("1h30m", "-1.5s", "300ms"), as cel-go's duration(string). */
export function parseDuration(s: string): CelDuration | CelError {
  const bad = () => new CelError(`invalid duration: time: invalid duration "${s}"`);
  let i = 0;
  let neg = false;
  if (s[i] === '-' || s[i] === '+') {
    neg = s[i] === '-';
    i++;
  }
  if (s.slice(i) === '0') return new CelDuration(0n);
  if (i >= s.length) return bad();
  let total = 0n;
  while (i < s.length) {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s.slice(i))!;
    if (!num[0] || num[0] === '.') return bad();
    i += num[0].length;
    const unit = /^[^\d.]+/.exec(s.slice(i));
    if (!unit) return bad();
    const u = UNIT_NANOS[unit[0]];
    if (u === undefined) return bad();
    i += unit[0].length;
    const whole = BigInt(num[1] || '0');
    const scale = BigInt(u);
    let part = whole * scale;
    const frac = num[2] ?? '';
    if (frac) part += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
    total += part;
    if (total > 2n ** 63n) return bad();
  }
  return checkedDuration(neg ? -total : total);
}

/** UTC offset in seconds of a zone at an instant; undefined for an unknown zone. */
function zoneOffsetSeconds(zone: string, epochSeconds: number): number | undefined {
  const m = /^([+-])?(\d{2}):(\d{2})$/.exec(zone);
  if (m) {
    const off = Number(m[2]) * 3600 + Number(m[3]) * 60;
    return m[1] === '-' ? -off : off;
  }
  try {
    const fmt = zoneFormatter(zone);
    const parts = fmt.formatToParts(new Date(epochSeconds * 1000));
    const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    let y = get('year');
    if (parts.find((p) => p.type === 'era')?.value === 'B') y = 1 - y;
    const local = daysFromCivil(y, get('month'), get('day')) * 86400 + (get('hour') % 24) * 3600 + get('minute') * 60 + get('second');
    return local - epochSeconds;
  } catch {
    return undefined;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'narrow',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

export interface CalendarFields {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
  /** 0 = Sunday */
  weekday: number;
  /** 0-based day of the year */
  yearDay: number;
  hours: number;
  minutes: number;
  seconds: number;
  millis: number;
}

export function calendarFields(t: CelTimestamp, zone?: string): CalendarFields | CelError {
  let secs = t.nanos / NANOS;
  let frac = t.nanos % NANOS;
  if (frac < 0n) {
    frac += NANOS;
    secs -= 1n;
  }
  let s = Number(secs);
  if (zone !== undefined) {
    const off = zoneOffsetSeconds(zone, s);
    if (off === undefined) return new CelError(`unknown time zone ${zone}`);
    s += off;
  }
  const days = Math.floor(s / 86400);
  const rem = s - days * 86400;
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: days - daysFromCivil(year, 1, 1),
    hours: Math.floor(rem / 3600),
    minutes: Math.floor((rem % 3600) / 60),
    seconds: rem % 60,
    millis: Number(frac / 1_000_000n),
  };
}
