// Prometheus text exposition, read the way a scrape reads it, for `waitFor: { metric: 'name{label="v"}', … }`.
// A selector names a metric and the label values it must have; series with further labels match too (the
// apiserver adds apiserver_id_hash), and the values of all matching series are summed, as PromQL's sum() would.
import type { MetricSelector } from './scenario-types.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Reads `{a="x",b="y\"z"}` starting at text[start] === '{'; returns the labels and the index after '}'. */
function readLabels(text: string, start: number): { labels: Record<string, string>; end: number } | { error: string } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  const skipSpace = (): void => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  for (;;) {
    skipSpace();
    if (text[i] === '}') return { labels, end: i + 1 };
    const nameStart = i;
    while (i < text.length && /[a-zA-Z0-9_]/.test(text[i]!)) i++;
    const name = text.slice(nameStart, i);
    if (!labelName.test(name)) return { error: `bad label name at ${JSON.stringify(text.slice(nameStart, nameStart + 20))}` };
    skipSpace();
    if (text[i] !== '=') return { error: `expected = after label ${name}` };
    i++;
    skipSpace();
    if (text[i] !== '"') return { error: `expected a quoted value for label ${name}` };
    i++;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) return { error: `unterminated value for label ${name}` };
      if (c === '"') break;
      if (c === '\\') {
        const n = text[i + 1];
        value += n === 'n' ? '\n' : (n ?? '');
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    i++;
    labels[name] = value;
    skipSpace();
    if (text[i] === ',') i++;
    else if (text[i] !== '}') return { error: `expected , or } after label ${name}` };
  }
}

/** `name` or `name{a="x",b="y"}`. Pure. */
export function parseMetricSelector(text: string): MetricSelector | { error: string } {
  const t = text.trim();
  const brace = t.indexOf('{');
  const name = brace < 0 ? t : t.slice(0, brace).trim();
  if (!metricName.test(name)) return { error: `${JSON.stringify(name)} is not a metric name` };
  if (brace < 0) return { text: t, name, labels: {} };
  const read = readLabels(t, brace);
  if ('error' in read) return { error: `${text}: ${read.error}` };
  if (t.slice(read.end).trim() !== '') return { error: `${text}: unexpected text after }` };
  return { text: t, name, labels: read.labels };
}

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return Number(v);
}

/** Every sample line of a text exposition (comments and blank lines skipped; malformed lines ignored). Pure. */
export function parsePrometheusText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const nameEnd = line.search(/[{\s]/);
    if (nameEnd < 0) continue;
    const name = line.slice(0, nameEnd);
    let labels: Record<string, string> = {};
    let rest: string;
    if (line[nameEnd] === '{') {
      const read = readLabels(line, nameEnd);
      if ('error' in read) continue;
      labels = read.labels;
      rest = line.slice(read.end);
    } else rest = line.slice(nameEnd);
    const valueText = rest.trim().split(/\s+/)[0];
    if (valueText === undefined || valueText === '') continue;
    const value = parseValue(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') continue;
    out.push({ name, labels, value });
  }
  return out;
}

/** The sum over the series the selector matches, and how many matched. Pure. */
export function selectMetric(samples: readonly Sample[], selector: MetricSelector): { value: number; series: number } {
  let value = 0;
  let series = 0;
  for (const s of samples) {
    if (s.name !== selector.name) continue;
    if (!Object.entries(selector.labels).every(([k, v]) => s.labels[k] === v)) continue;
    value += s.value;
    series++;
  }
  return { value, series };
}
