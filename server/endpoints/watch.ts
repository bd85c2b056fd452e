// Watch over HTTP, as kube-apiserver streams it: newline-delimited WatchEvents on a chunked response.
// - resourceVersion unset or "0": the current state first as ADDED events, then changes (kube's "Get State and Start at Most Recent").
// - resourceVersion N: changes strictly after N; a compacted N ends the stream with an ERROR event (410 Expired).
// - selectors: an object entering the selection is ADDED, leaving it is DELETED, as kube's filtered watch does.
// - allowWatchBookmarks: periodic BOOKMARK events; sendInitialEvents adds the "k8s.io/initial-events-end" bookmark.
// - a client that stops reading is terminated once its unsent bytes pass the bound (watch-buffer.ts), as kube's
//   watch cache terminates a watcher whose channel is full (apiserver_terminated_watchers_total).
import type { Request, Response } from 'express';
import { errors } from '../api/errors.js';
import type { KubeObject, WatchEvent } from '../api/types.js';
import { apiVersionOf } from '../api/types.js';
import type { RequestInfo } from '../http/request-info.js';
import { loadProtobufCodec, negotiateObjectOutput } from '../http/responses.js';
import { protobufMediaType } from '../http/protobuf/negotiate.js';
import { metaOf } from '../registry/object-fields.js';
import type { RequestContext } from '../registry/request-context.js';
import type { ResourceInfo } from '../registry/resource.js';
import { storageErrorToStatus, type ResourceStore } from '../registry/store.js';
import type { StorageEvent, StorageWatch } from '../storage/interface.js';
import type { ApiContext } from './api-context.js';
import { buildListPredicate } from './list-predicate.js';
import { listOptionsOf, tableIncludeObject, type UrlValues } from './query-options.js';
import { checkGetOrWatchResourceVersion } from './resource-version.js';
import { parseTableAccept, toTable } from './table.js';
import { decideWatchWrite, watchBufferBytesFrom } from './watch-buffer.js';

/** How often a quiet watch with allowWatchBookmarks gets a BOOKMARK (kube: about once a minute). */
const bookmarkIntervalMs = Number(process.env['KAH_WATCH_BOOKMARK_INTERVAL_MS'] ?? 30_000);
/** The most a watcher may have unsent before it is terminated (see watch-buffer.ts). */
const watchBufferBytes = watchBufferBytesFrom(process.env);

type Query = UrlValues;
const str = (v: readonly string[] | undefined): string | undefined => v?.[0];

export async function serveWatch(api: ApiContext, req: Request, res: Response, info: ResourceInfo, store: ResourceStore, ctx: RequestContext, q: Query, ri: RequestInfo): Promise<void> {
  const base = buildListPredicate(info, q);
  const predicate = ri.name ? (o: KubeObject) => metaOf(o).name === ri.name && base(o) : base;
  // kube's ListOptions conversion: watch=True, allowWatchBookmarks=yes, sendInitialEvents= are all true
  const opts = listOptionsOf(q);
  const rv = opts.resourceVersion;
  const bookmarks = opts.allowWatchBookmarks;
  const sendInitialEvents = opts.sendInitialEvents === true;
  const timeoutSeconds = opts.timeoutSeconds ?? 0;
  const tableVersion = parseTableAccept(req.headers.accept ?? '');
  const includeObject = tableVersion ? tableIncludeObject(q) : undefined;
  if (includeObject && !includeObject.ok) throw errors.badRequest(includeObject.error);

  // kube's NegotiateOutputMediaTypeStream: JSON lines, or protobuf frames for a client that prefers protobuf
  // (client-go's typed informers); Table watches are JSON.
  let frame = (event: WatchEvent): string | Uint8Array => JSON.stringify(event) + '\n';
  let contentType = 'application/json';
  if (!tableVersion) {
    const n = negotiateObjectOutput(req, res, true);
    if (!n.ok) throw errors.notAcceptable(n.message);
    if (n.mediaType === protobufMediaType) {
      const { encodeWatchEventFrame } = await loadProtobufCodec();
      // every object served here is of a built-in kind, which has a message; an empty frame would be a bug
      frame = (event) => encodeWatchEventFrame(event.type, event.object) ?? new Uint8Array(0);
      contentType = `${protobufMediaType};stream=watch`;
    }
  }

  checkGetOrWatchResourceVersion(rv);
  // The initial state, when asked for, is read before the response starts so a storage error is a plain Status.
  let initial: KubeObject[] = [];
  let fromRevision: string;
  // ListOptions.sendInitialEvents defaults to true only for resourceVersion "" or "0"; an explicit false starts at
  // the most recent state with no synthetic ADDED events
  if (sendInitialEvents || ((rv === '' || rv === '0') && opts.sendInitialEvents === undefined)) {
    const list = await store.list(ctx, { predicate });
    initial = list.items;
    fromRevision = list.metadata.resourceVersion ?? '0';
  } else if (rv === '' || rv === '0') {
    // sendInitialEvents=false: only the current revision is needed (a list that keeps nothing reads it)
    fromRevision = (await store.list(ctx, { predicate: () => false })).metadata.resourceVersion ?? '0';
  } else {
    fromRevision = rv;
  }

  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();

  let lastRV = fromRevision;
  let closed = false;
  let storageWatch: StorageWatch | undefined;
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    if (closed) return false;
    closed = true;
    storageWatch?.stop();
    for (const t of timers) clearTimeout(t);
    api.watchRegistry.delete(close);
    return true;
  };
  const close = () => {
    if (stop()) res.end();
  };
  // A watcher that cannot keep up is ended as kube's cacheWatcher is: counted, logged at V(1), and dropped. The socket
  // is destroyed rather than ended, since an end would queue behind the bytes the client is not reading.
  const terminate = (pendingBytes: number) => {
    if (!stop()) return;
    api.watchMetrics.observeTerminatedWatcher(info.group, info.resource);
    const gr = info.group ? `${info.resource}.${info.group}` : info.resource;
    const identifier = `key: ${JSON.stringify(watchKey(info, ri))}, labels: ${JSON.stringify(str(q['labelSelector']) ?? '')}, fields: ${JSON.stringify(str(q['fieldSelector']) ?? '')}`;
    api.log.v(1).info(`Forcing ${gr} watcher close due to unresponsiveness: ${identifier}. buffered bytes = ${pendingBytes}, limit = ${watchBufferBytes}`);
    res.destroy();
  };
  api.watchRegistry.add(close);
  req.on('close', close);
  res.on('close', close);
  // kube's watch timer: a negative timeoutSeconds has already expired (the stream ends at once); 0 is no timeout here
  if (timeoutSeconds !== 0) timers.push(setTimeout(close, Math.min(2 ** 31 - 1, Math.max(0, timeoutSeconds * 1000))).unref());

  const encode = (obj: KubeObject): KubeObject =>
    tableVersion && includeObject?.ok ? (toTable(info, [obj], { includeObject: includeObject.value, tableVersion }) as unknown as KubeObject) : obj;
  // Live events and bookmarks go through the bound; the initial state instead waits for the client (below).
  const send = (event: WatchEvent) => {
    if (closed) return;
    const line = frame(event);
    const pending = res.writableLength;
    switch (decideWatchWrite(pending, typeof line === 'string' ? Buffer.byteLength(line) : line.length, watchBufferBytes, event.type === 'BOOKMARK')) {
      case 'write':
        res.write(line);
        return;
      case 'drop':
        return;
      case 'terminate':
        terminate(pending);
    }
  };
  const bookmarkEvent = (extraAnnotations?: Record<string, string>): WatchEvent => {
    const metadata: Record<string, unknown> = { resourceVersion: lastRV };
    if (extraAnnotations) metadata['annotations'] = extraAnnotations;
    return { type: 'BOOKMARK', object: { kind: info.kind, apiVersion: apiVersionOf(info.group, info.version), metadata } as KubeObject };
  };

  // kube's cacheWatcher sends the initial state from its own goroutine, blocking on the client rather than on the
  // bounded channel, so a large initial list never ends a healthy watch: here each write waits for the response to drain.
  const initialEvents: WatchEvent[] = initial.map((obj) => ({ type: 'ADDED', object: encode(obj) }));
  if (sendInitialEvents && bookmarks) initialEvents.push(bookmarkEvent({ 'k8s.io/initial-events-end': 'true' }));
  for (const event of initialEvents) {
    if (closed) return;
    if (!res.write(frame(event))) await drainedOrClosed(res);
  }
  if (closed) return;

  storageWatch = store.watch(ctx, fromRevision, {
    onEvent: (e: StorageEvent) => {
      lastRV = metaOf(e.object).resourceVersion ?? lastRV;
      const type = filteredType(e, predicate);
      if (type) send({ type, object: encode(e.object) });
    },
    onError: (err) => {
      const status = storageErrorToStatus(err, store.gr, '', 'watch').status;
      send({ type: 'ERROR', object: status });
      close();
    },
    onProgress: (revision) => {
      lastRV = revision;
    },
  });

  if (bookmarks) {
    const tick = () => {
      if (closed) return;
      send(bookmarkEvent());
      timers.push(setTimeout(tick, bookmarkIntervalMs).unref());
    };
    timers.push(setTimeout(tick, bookmarkIntervalMs).unref());
  }
}

/** Resolves once the response can take more, or is gone. */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The storage prefix the watch reads, as kube's watcher identifier names it. */
function watchKey(info: ResourceInfo, ri: RequestInfo): string {
  const parts = ['', info.group || undefined, info.resource, ri.namespace || undefined, ri.name || undefined].filter((p) => p !== undefined);
  return parts.join('/');
}

/** kube's filtered watch: MODIFIED becomes ADDED/DELETED when the object enters/leaves the selection. */
function filteredType(e: StorageEvent, matches: (o: KubeObject) => boolean): WatchEvent['type'] | undefined {
  switch (e.type) {
    case 'ADDED':
      return matches(e.object) ? 'ADDED' : undefined;
    case 'DELETED':
      return matches(e.prevObject ?? e.object) || matches(e.object) ? 'DELETED' : undefined;
    case 'MODIFIED': {
      const now = matches(e.object);
      const before = e.prevObject ? matches(e.prevObject) : now;
      if (now && before) return 'MODIFIED';
      if (now) return 'ADDED';
      if (before) return 'DELETED';
      return undefined;
    }
  }
}
