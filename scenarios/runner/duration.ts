// Durations as Go and kube users write them ("10s", "500ms", "1m30s"), so scenario timeouts read like kubectl's.

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "1m30s" → 90000; undefined when the text is not a duration. Pure. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const m = part.exec(trimmed);
    if (!m) return undefined;
    total += Number(m[1]) * unitMs[m[2]!]!;
    at = part.lastIndex;
  }
  return Math.round(total);
}

/** 1234 → "1.2 s", 87 → "87 ms": for progress lines. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

/** 30000 → "30s", 1500 → "1.5s", 250 → "250ms": the way a user wrote it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}
