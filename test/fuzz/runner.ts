// Drives the fuzz against one running harness server: generated requests from a few concurrent workers, liveness
// checks along the way, crash detection (the culprit is found by replaying the in-flight requests one at a time after
// a restart), slow requests confirmed by a replay on an idle server, then the stored-object round trip.
import { appendFileSync } from 'node:fs';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import { Prng } from '../support/prng.js';
import { rawClient, type RawClient, type RawResponse } from '../support/raw-https.js';
import { checkResponse, finding, timeBoundMs, type Finding } from './check.js';
import { apiVersionOf, discoverResources, groupVersionPath, type ServedResource } from './discovery.js';
import { fuzzNamespace, fuzzWorld, generateRequest, type FuzzRequest, type FuzzWorld } from './generate.js';

export interface FuzzRunOptions {
  server: ApiServerHandle;
  seed: number;
  requests: number;
  concurrency: number;
  /** stop generating new requests after this long (the suite's wall-time budget); the count sent is reported */
  budgetMs: number;
}

export interface FuzzRunResult {
  findings: Finding[];
  sent: number;
  restarts: number;
  resources: number;
  roundTripped: number;
  fuzzMs: number;
  roundTripMs: number;
}

const livezEvery = 200;
const maxSlowReplays = 40;
const maxCrashReplays = 12;

/** KAH_FUZZ_TRACE=<file>: one line per request as it completes, to see where a run spends its time. */
const traceFile = process.env.KAH_FUZZ_TRACE;
const trace = (line: string): void => {
  if (traceFile) appendFileSync(traceFile, `${new Date().toISOString()} ${line}\n`);
};

/** A request unanswered this long counts as hung (twice its time bound, at least 5 s). */
const requestTimeoutMs = (req: FuzzRequest): number => Math.max(3_000, 2 * timeBoundMs(req));

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

class FuzzSession {
  client: RawClient;
  findings: Finding[] = [];
  restarts = 0;
  private recovery: Promise<void> | undefined;
  private inflight = new Set<FuzzRequest>();
  private slow: FuzzRequest[] = [];

  constructor(private readonly server: ApiServerHandle) {
    this.client = rawClient(server, 16);
  }

  async ensureNamespace(): Promise<void> {
    const res = await this.client.send({
      method: 'POST',
      path: '/api/v1/namespaces',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: fuzzNamespace } })),
    });
    if (res.status !== 201 && res.status !== 409) throw new Error(`creating namespace ${fuzzNamespace} answered ${res.status}: ${res.body.toString('utf8')}`);
  }

  /** Whether the server process died (its exit is seen shortly after the connection error it causes). */
  private async died(): Promise<boolean> {
    if (!this.server.running) return true;
    await Promise.race([this.server.exited, wait(1000)]);
    return !this.server.running;
  }

  private async restart(): Promise<void> {
    this.client.close();
    this.restarts++;
    await this.server.restart();
    this.client = rawClient(this.server, 16);
    await this.ensureNamespace();
  }

  /** After a crash: restart, then replay each suspect alone; the one that kills the server again is the culprit. */
  private recover(suspects: FuzzRequest[]): Promise<void> {
    this.recovery ??= (async () => {
      trace(`crash: ${suspects.length} suspects; waiting for the exit`);
      const exit = await this.server.exited;
      trace(`exited ${exit.code ?? exit.signal}; restarting`);
      const stderr = exit.stderr.trim().split('\n').slice(-6).join(' ⏎ ');
      await this.restart();
      let culprit: FuzzRequest | undefined;
      trace('restarted; replaying the suspects');
      for (const s of suspects.slice(0, maxCrashReplays)) {
        trace(`replaying #${s.id}`);
        try {
          await this.client.send({ ...s, timeoutMs: requestTimeoutMs(s) });
        } catch {
          // the connection error is expected if this one is the culprit
        }
        if (await this.died()) {
          culprit = s;
          await this.restart();
          break;
        }
      }
      if (culprit) this.findings.push(finding('crash', culprit, { error: `the server exited (${exit.signal ?? exit.code}); stderr: ${stderr}` }));
      else for (const s of suspects) this.findings.push(finding('crash-not-reproduced-alone', s, { error: `the server exited (${exit.signal ?? exit.code}) with this request in flight; stderr: ${stderr}` }));
    })().finally(() => (this.recovery = undefined));
    return this.recovery;
  }

  async send(req: FuzzRequest): Promise<RawResponse | undefined> {
    await this.recovery;
    this.inflight.add(req);
    try {
      return await this.client.send({ ...req, timeoutMs: requestTimeoutMs(req) });
    } catch (err) {
      if (await this.died()) await this.recover([...this.inflight]);
      // an unanswered request may be starved by another that blocks the server: it is re-timed alone before it counts
      else if (/no response (headers )?within/.test((err as Error).message)) this.slow.push(req);
      // Go's raw 400 for a request line it cannot parse carries its body even for HEAD (written before any handler);
      // node's client then reports data after the response, which is that body, not a server fault
      else if (req.method === 'HEAD' && /%(?![0-9a-fA-F]{2})/.test(req.path.split('?')[0]!) && /Data after `Connection: close`/.test((err as Error).message)) return undefined;
      else this.findings.push(finding('connection-error', req, { error: (err as Error).message }));
      return undefined;
    } finally {
      this.inflight.delete(req);
    }
  }

  async fuzzOne(req: FuzzRequest): Promise<void> {
    const res = await this.send(req);
    trace(`#${req.id} ${req.method} ${req.path.slice(0, 120)} ${req.labels.body} → ${res?.status ?? 'no answer'} ${Math.round(res?.elapsedMs ?? 0)} ms`);
    if (!res) return;
    for (const problem of checkResponse(req, res)) {
      // timing under concurrent load is confirmed on an idle server before it counts
      if (problem === 'slow') this.slow.push(req);
      else this.findings.push(finding(problem, req, res));
    }
  }

  async livez(when: string): Promise<void> {
    await this.recovery;
    try {
      const res = await this.client.send({ method: 'GET', path: '/livez', timeoutMs: 5000 });
      if (res.status !== 200) this.findings.push(finding('livez', livezRequest(when), res));
    } catch (err) {
      this.findings.push(finding('livez', livezRequest(when), { error: (err as Error).message }));
    }
  }

  /**
   * Replays the slow and unanswered ones alone, each with its time bound as the deadline (within `deadline` overall):
   * slow or unanswered alone, they are findings; those the budget leaves over count as slow under load.
   */
  async confirmSlow(deadline: number): Promise<void> {
    for (const [i, req] of this.slow.entries()) {
      if (i >= maxSlowReplays || Date.now() > deadline) {
        this.findings.push(finding('slow-under-load', req, { error: `over ${Math.round(timeBoundMs(req))} ms (or unanswered) with 3 other requests in flight; not re-timed alone (replay budget spent)` }));
        continue;
      }
      await this.recovery;
      try {
        const res = await this.client.send({ ...req, timeoutMs: timeBoundMs(req) + 500 });
        if (res.elapsedMs > timeBoundMs(req)) this.findings.push(finding('slow', req, res));
      } catch (err) {
        if (await this.died()) await this.recover([req]);
        else {
          const message = (err as Error).message;
          const problem = /no response headers/.test(message) ? 'watch-headers-late' : /no response within/.test(message) ? 'hang' : 'connection-error';
          this.findings.push(finding(problem, req, { error: `alone: ${message}` }));
        }
      }
    }
  }
}

function livezRequest(when: string): FuzzRequest {
  return { id: -1, method: 'GET', path: '/livez', headers: {}, labels: { verb: 'livez', resource: when, path: '-', query: '-', header: '-', contentType: '-', body: '-' } };
}

export async function runFuzz(opts: FuzzRunOptions): Promise<FuzzRunResult> {
  const session = new FuzzSession(opts.server);
  const started = Date.now();
  try {
    await session.ensureNamespace();
    const served = await discoverResources(session.client);
    const world = fuzzWorld(served);
    if (traceFile) appendFileSync(`${traceFile}.served.json`, JSON.stringify(served));
    const rng = new Prng(opts.seed);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < opts.requests && Date.now() - started < opts.budgetMs) {
        const id = next++;
        // generation is synchronous and in id order, so request #id is the same on every run of the seed
        const req = generateRequest(rng, world, id);
        trace(`generated #${id} ${JSON.stringify(req.labels)} ${req.body?.length ?? 0} bytes`);
        await session.fuzzOne(req);
        if (id % livezEvery === livezEvery - 1) await session.livez(`after request #${id}`);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
    const sent = next;
    const fuzzMs = Date.now() - started;
    trace(`${sent} sent; confirming the slow ones`);
    await session.confirmSlow(Date.now() + 12_000);
    await session.livez('at the end of the fuzz');
    trace('round trip');
    const roundTripStarted = Date.now();
    const roundTripped = await roundTrip(session, world);
    const roundTripMs = Date.now() - roundTripStarted;
    await session.livez('after the round trip');
    return { findings: session.findings, sent, restarts: session.restarts, resources: served.length, roundTripped, fuzzMs, roundTripMs };
  } finally {
    session.client.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Round trip: whatever the server stored must pass its own type check unchanged, and must be deletable.

interface Listed {
  metadata?: { name?: string; namespace?: string; generateName?: string };
}

const ownedByFuzz = (o: Listed): boolean => (o.metadata?.namespace === fuzzNamespace && o.metadata.name !== undefined) || (o.metadata?.name ?? '').startsWith('fz-');

function syntheticRequest(method: string, path: string, body: Buffer | undefined, verb: string, resource: string): FuzzRequest {
  return {
    id: -2,
    method,
    path,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body,
    labels: { verb, resource, path: '-', query: '-', header: '-', contentType: body ? 'json' : '-', body: body ? 'stored-object' : '-' },
  };
}

function itemPath(r: ServedResource, o: Listed): string {
  const ns = r.namespaced && o.metadata?.namespace ? `/namespaces/${encodeURIComponent(o.metadata.namespace)}` : '';
  return `${groupVersionPath(r.group, r.version)}${ns}/${r.resource}/${encodeURIComponent(o.metadata?.name ?? '')}`;
}

/**
 * Lists every object of every resource and PUTs each back unchanged with fieldValidation=Strict (kube answers 200 for
 * any object it stored itself), then deletes what the fuzz created (namespaces last). Returns how many were PUT.
 */
async function roundTrip(session: FuzzSession, world: FuzzWorld): Promise<number> {
  let count = 0;
  const owned: Array<{ r: ServedResource; o: Listed }> = [];
  // one version per resource is enough: every served version reads the same stored object
  const seen = new Set<string>();
  for (const r of world.resources) {
    const key = `${r.group}/${r.resource}`;
    if (seen.has(key) || !r.verbs.includes('list')) continue;
    seen.add(key);
    const listPath = `${groupVersionPath(r.group, r.version)}/${r.resource}`;
    const list = await session.send(syntheticRequest('GET', listPath, undefined, 'round-trip-list', key));
    if (!list) continue;
    if (list.status !== 200) {
      session.findings.push(finding('round-trip-list', syntheticRequest('GET', listPath, undefined, 'round-trip-list', key), list));
      continue;
    }
    const items = (JSON.parse(list.body.toString('utf8')) as { items?: Listed[] }).items ?? [];
    for (const o of items) {
      if (ownedByFuzz(o)) owned.push({ r, o });
      if (!r.verbs.includes('update')) continue;
      const body = Buffer.from(JSON.stringify({ ...o, apiVersion: apiVersionOf(r), kind: r.kind }));
      const put = syntheticRequest('PUT', `${itemPath(r, o)}?fieldValidation=Strict`, body, 'round-trip-put', key);
      const res = await session.send(put);
      count++;
      if (res && res.status !== 200) session.findings.push(finding('round-trip-put', put, res));
    }
  }
  const namespacesLast = [...owned.filter((x) => x.r.resource !== 'namespaces'), ...owned.filter((x) => x.r.resource === 'namespaces')];
  for (const { r, o } of namespacesLast) {
    if (!r.verbs.includes('delete')) continue;
    const del = syntheticRequest('DELETE', itemPath(r, o), undefined, 'round-trip-delete', `${r.group}/${r.resource}`);
    const res = await session.send(del);
    // 404: already gone, e.g. collected with its owner
    if (res && res.status !== 200 && res.status !== 202 && res.status !== 404) session.findings.push(finding('round-trip-delete', del, res));
  }
  return count;
}
