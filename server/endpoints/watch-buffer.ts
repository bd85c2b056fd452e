// How much a watch may hold for a client that does not read. kube-apiserver's watch cache gives each watcher a
// bounded channel (k8s.io/apiserver/pkg/storage/cacher/watch_cache_history.go: 10 to 1000 events) and terminates a
// watcher whose channel stays full (cache_watcher.go add → closeFunc, "Forcing ... watcher close due to
// unresponsiveness"), dropping only bookmarks (nonblockingAdd). Here the buffer is the HTTP response's own write
// buffer, measured in bytes: that is what costs memory, whatever the number of events.

/** Default bound on a watcher's unsent bytes (response buffer, TLS and socket writes not yet taken by the kernel). */
export const defaultWatchBufferBytes = 16 * 1024 * 1024;

/** KAH_WATCH_BUFFER_BYTES overrides the bound (a positive integer); anything else keeps the default. */
export function watchBufferBytesFrom(env: Record<string, string | undefined>): number {
  const raw = env['KAH_WATCH_BUFFER_BYTES'];
  if (raw === undefined || !/^[1-9][0-9]*$/.test(raw.trim())) return defaultWatchBufferBytes;
  return Number(raw.trim());
}

export type WatchWriteDecision = 'write' | 'drop' | 'terminate';

/**
 * What to do with the next event, given the bytes still unsent. An event always goes out on an empty buffer (a
 * single object may be bigger than the bound, as one event always fits a channel); bookmarks are dropped rather than
 * ending the watch, as kube's nonblockingAdd drops them on a full channel.
 */
export function decideWatchWrite(pendingBytes: number, eventBytes: number, limitBytes: number, droppable: boolean): WatchWriteDecision {
  if (pendingBytes === 0 || pendingBytes + eventBytes <= limitBytes) return 'write';
  return droppable ? 'drop' : 'terminate';
}
