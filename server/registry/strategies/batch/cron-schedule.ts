// cron.ParseStandard of github.com/robfig/cron/v3, which kube's validateScheduleFormat calls for a CronJob's
// schedule: five fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @every 1h, …),
// each field a comma list of `*`/`?`/number/name ranges with an optional step. Only the parse and its error texts
// are ported: nothing here computes run times.

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** strconv.Atoi's error text: `strconv.Atoi: parsing "x": invalid syntax`. */
function atoi(expr: string): { ok: true; value: number } | { ok: false; error: string } {
  if (!/^[+-]?[0-9]+$/.test(expr)) return { ok: false, error: `strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax` };
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 9223372036854775807) return { ok: false, error: `strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range` };
  return { ok: true, value: n };
}

/** mustParseInt: a non-negative integer. */
function parseInt0(expr: string): number | string {
  const r = atoi(expr);
  if (!r.ok) return `failed to parse int from ${expr}: ${r.error}`;
  if (r.value < 0) return `negative number (${r.value}) not allowed: ${expr}`;
  return r.value;
}

function parseIntOrName(expr: string, names: Bounds['names']): number | string {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : parseInt0(expr);
}

/** getRange: `number | number "-" number` with an optional "/" step, or `*`/`?`. Returns an error text or undefined. */
function checkRange(expr: string, r: Bounds): string | undefined {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    const s = parseIntOrName(lowAndHigh[0]!, r.names);
    if (typeof s === 'string') return s;
    start = s;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const e = parseIntOrName(lowAndHigh[1]!, r.names);
      if (typeof e === 'string') return e;
      end = e;
    } else return `too many hyphens: ${expr}`;
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    const st = parseInt0(rangeAndStep[1]!);
    if (typeof st === 'string') return st;
    step = st;
    // "N/step" means "N-max/step"
    if (singleDigit) end = r.max;
  } else return `too many slashes: ${expr}`;
  if (start < r.min) return `beginning of range (${start}) below minimum (${r.min}): ${expr}`;
  if (end > r.max) return `end of range (${end}) above maximum (${r.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

/** Go's time.ParseDuration acceptance, for `@every <duration>`. */
function isGoDuration(s: string): boolean {
  return /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s) || s === '0';
}

/** cron.ParseStandard's error for a schedule, or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  if (spec.length === 0) return 'empty spec string';
  let rest = spec;
  if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
    // the zone itself is checked by time.LoadLocation; kube separately refuses TZ in schedules
    const i = rest.indexOf(' ');
    const eq = rest.indexOf('=');
    const zone = i < 0 ? rest.slice(eq + 1) : rest.slice(eq + 1, i);
    if (!isKnownTimeZone(zone)) return `provided bad location ${zone}: unknown time zone ${zone}`;
    rest = i < 0 ? '' : rest.slice(i).trim();
  }
  if (rest.startsWith('@')) {
    if (descriptors.has(rest)) return undefined;
    if (rest.startsWith('@every ')) {
      const d = rest.slice('@every '.length);
      return isGoDuration(d) ? undefined : `failed to parse duration ${rest}: time: invalid duration ${JSON.stringify(d)}`;
    }
    return `unrecognized descriptor: ${rest}`;
  }
  const fields = rest.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  const bounds = [minutes, hours, dom, months, dow];
  for (let i = 0; i < 5; i++) {
    for (const expr of fields[i]!.split(',').filter((e) => e !== '')) {
      const err = checkRange(expr, bounds[i]!);
      if (err) return err;
    }
  }
  return undefined;
}

/** time.LoadLocation, answered by the runtime's IANA database. */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === 'UTC' || zone === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
