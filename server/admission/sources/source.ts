// Where dynamic admission configurations come from. A source hands out immutable snapshots; a change builds a
// new snapshot and swaps one reference, so no request ever sees half an update.

export interface ConfigurationSnapshot<T> {
  /** increases with every change */
  readonly generation: number;
  readonly items: readonly T[];
}

export interface ConfigurationSource<T> {
  snapshot(): ConfigurationSnapshot<T>;
  /** false until the first full load completed (readiness) */
  hasSynced(): boolean;
}

/** A fixed snapshot: for tests and for `kah admit`-style one-shot runs. */
export function staticSnapshotSource<T>(items: readonly T[]): ConfigurationSource<T> {
  const snap = Object.freeze({ generation: 1, items: Object.freeze([...items]) });
  return { snapshot: () => snap, hasSynced: () => true };
}
