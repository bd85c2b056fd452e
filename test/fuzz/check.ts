// What every fuzz response must satisfy, as pure functions over (request, response), and how violations are grouped
// into classes for the report: kube-apiserver answers malformed input with a 4xx `Status`, quickly, and never crashes.
import YAML from 'yaml';
import type { RawResponse } from '../support/raw-https.js';
import type { FuzzRequest } from './generate.js';
import { decodeProtobufStatus } from './protobuf-status.js';

export interface Finding {
  /** what is wrong: 5xx, not-a-status, slow, connection-error, crash, round-trip, … */
  problem: string;
  request: Pick<FuzzRequest, 'id' | 'method' | 'path' | 'headers' | 'body' | 'labels'>;
  status: number;
  /** the start of the response body, or the error */
  response: string;
  elapsedMs: number;
}

/**
 * 5xx answers kube-apiserver itself gives to some requests, each with the reason it is right. Everything else in the
 * 5xx range is a finding. (kube also answers 500 for a failing webhook with failurePolicy Fail, 503 for an unavailable
 * aggregated API and 504 for a timed-out request; none of those can arise here: the fuzz configures no webhooks or
 * APIServices with a backend.) Each entry matches kube's exact body shape (message, no reason), so a 5xx with another
 * text is still reported. Add an entry only with the kube source that answers the same 5xx for the same request.
 */
export const allowedServerErrors: ReadonlyArray<{ why: string; matches(req: FuzzRequest, res: RawResponse): boolean }> = [
  {
    why:
      'server-side apply of a patch that does not fit the schema (unknown or wrongly typed field): structuredmerge.go in ' +
      'k8s.io/apimachinery/pkg/util/managedfields/internal returns a plain error "failed to create typed patch object ' +
      '(<ns>/<name>; <group>/<version>, Kind=<Kind>): <path>: <problem>", which the handler answers as a 500 Status without ' +
      'a reason (kubernetes/kubernetes#122480, #139253, still open)',
    matches: (req, res) => reasonless500(req, res, { method: 'PATCH', contentType: /^application\/apply-patch\+yaml/ }, [/^failed to create typed patch object \(/]),
  },
  {
    why:
      'a strategic merge patch whose directives or shapes strategicpatch rejects with an error that is not one of the ' +
      'sentinels interpretStrategicMergePatchError (k8s.io/apiserver/pkg/endpoints/handlers/patch.go) maps to 400/422: its ' +
      'default branch returns the plain error, a 500 without a reason. The texts are mergepatch/errors.go\'s ErrBadArgType, ' +
      'ErrBadArgKind, ErrBadPatchType and ErrNoMergeKey (k8s.io/apimachinery/pkg/util/mergepatch), and strategicpatch\'s ' +
      '"value for key N is not a map" and "list element types are not identical: …"',
    matches: (req, res) =>
      reasonless500(req, res, { method: 'PATCH', contentType: /^application\/strategic-merge-patch\+json/ }, [
        /^expected a .+, but received a /,
        /^unknown patch type: .* in map: /,
        /^map: .* does not contain declared merge key: /,
        // findMapInSliceBasedOnKeyValue (strategicpatch/patch.go), e.g. a $setElementOrder list holding a non-map
        /^value for key \d+ is not a map$/,
        // sliceElementType (strategicpatch/patch.go): a list whose elements are of different Go types
        /^list element types are not identical: /,
      ]),
  },
  {
    why:
      'a CONNECT admission allowed (pods/exec|attach|portforward|proxy, services/proxy, nodes/proxy): kube then dials the ' +
      'kubelet or backend and answers a failure to reach it as a 500 without a reason ("error dialing backend: …"); this ' +
      'server runs no kubelet, so that is its answer to every allowed CONNECT (README, pod subresources)',
    matches: (req, res) => /\/(exec|attach|portforward|proxy)(\/|\?|$)/.test(req.path) && reasonless500(req, res, {}, [/^error dialing backend: this server runs no kubelet/]),
  },
  {
    why:
      'a Binding that ValidatePodBinding refuses (pods/binding and the legacy bindings): BindingREST.Create returns ' +
      'errs.ToAggregate() (k8s.io/kubernetes pkg/registry/core/pod/storage/storage.go), a plain error the handler ' +
      'answers as a 500 Status without a reason whose message is the field errors\' text. A trailing %2F segment is ' +
      'the same collection path: Go unescapes it to "/", and go-restful trims trailing slashes before routing',
    matches: (req, res) => /\/(bindings|pods\/[^/]+\/binding)(\/|%2F)*(\?|$)/i.test(req.path) && reasonless500(req, res, { method: 'POST' }, [/^\[?target\.(name|kind)(: | )/, /^\[?metadata\./]),
  },
  {
    why:
      'a write etcd refuses as over its request size limit (1.5 MiB by default): the create, update and patch handlers ' +
      'retry once without managedFields (isTooLargeError in k8s.io/apiserver/pkg/endpoints/handlers/rest.go), then the ' +
      'raw etcd error reaches ErrorToAPIStatus, a 500 without a reason whose message is etcd\'s text. Past 2 MiB ' +
      'kube\'s etcd client (clientv3\'s default MaxCallSendMsgSize) refuses to send the txn with grpc-go\'s ' +
      'ResourceExhausted error, the other error isTooLargeError recognises, answered the same way',
    matches: (req, res) =>
      reasonless500(req, res, {}, [/^etcdserver: request is too large$/, /^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(\d+ vs\. 2097152\)$/]),
  },
  {
    why:
      'server-side apply whose merged object does not convert back to the kind\'s Go type (a metadata.creationTimestamp ' +
      'that is not a time): structuredMergeManager.Apply in k8s.io/apimachinery/pkg/util/managedfields/internal/' +
      'structuredmerge.go returns the plain error "failed to convert new object (<ns>/<name>; <group>/<version>, ' +
      'Kind=<Kind>) to proper version: unable to convert unstructured object to …" (runtime/scheme.go), a 500 without a reason',
    matches: (req, res) =>
      reasonless500(req, res, { method: 'PATCH', contentType: /^application\/apply-patch\+yaml/ }, [/^failed to convert new object \(.*\) to proper version: unable to convert unstructured object to /]),
  },
  {
    why:
      'a get or watch whose resourceVersion is not a uint64: the watch cache (CacheDelegator.Get in ' +
      'k8s.io/apiserver/pkg/storage/cacher/delegator.go, Cacher.Watch in cacher.go) returns the versioner\'s ' +
      'storage.InvalidError unwrapped (APIObjectVersioner.ParseResourceVersion, pkg/storage/api_object_versioner.go); ' +
      'InterpretGetError and the watch handler pass it on, and ErrorToAPIStatus answers a 500 without a reason. ' +
      '(A list wraps it in ValidateListOptions: a 400.)',
    matches: (req, res) =>
      reasonless500(req, res, { method: 'GET' }, [/^resourceVersion: Invalid value: ".*": strconv\.ParseUint: parsing ".*": (invalid syntax|value out of range)$/]),
  },
  {
    why:
      'the same get as a HEAD: kube answers HEAD as the GET route (net/http then drops the body), so the 500 above comes ' +
      'without its Status to read; allowed only when the request\'s resourceVersion is not a uint64, the input that 500 needs',
    matches: (req, res) => req.method === 'HEAD' && res.status === 500 && res.body.length === 0 && hasNonUint64ResourceVersion(req.path),
  },
];

/** Whether the query's first resourceVersion is given and is not a uint64 (what ParseResourceVersion refuses). */
function hasNonUint64ResourceVersion(requestPath: string): boolean {
  const q = requestPath.indexOf('?');
  if (q < 0) return false;
  const rv = new URLSearchParams(requestPath.slice(q + 1)).get('resourceVersion');
  if (rv === null || rv === '') return false;
  return !/^\d+$/.test(rv) || BigInt(rv) > 0xffffffffffffffffn;
}

/**
 * DeleteOptions' preconditions: from the body when there is one, else from the query's uid and resourceVersion
 * (handlers/delete.go reads the query only without a body; Convert_url_Values_To_v1_DeleteOptions in
 * k8s.io/apimachinery/pkg/apis/meta/v1/conversion.go turns those two into preconditions).
 */
function deleteHasPreconditions(req: FuzzRequest): boolean {
  if (req.body !== undefined && req.body.length > 0) return req.body.toString('utf8').includes('preconditions');
  const q = req.path.indexOf('?');
  if (q < 0) return false;
  const query = new URLSearchParams(req.path.slice(q + 1));
  return (query.get('uid') ?? '') !== '' || (query.get('resourceVersion') ?? '') !== '';
}

/**
 * A 500 Status without a reason (kube omits an empty reason; an explicit "" is tolerated) whose message matches one of
 * `messages`, for a request of the given method and content type (any when not given).
 */
function reasonless500(req: FuzzRequest, res: RawResponse, of: { method?: string; contentType?: RegExp }, messages: RegExp[]): boolean {
  if (res.status !== 500) return false;
  if (of.method !== undefined && req.method !== of.method) return false;
  if (of.contentType !== undefined && !of.contentType.test(req.headers['Content-Type'] ?? '')) return false;
  // the same rule whichever format the Status was negotiated in (kube answers protobuf to a client preferring it)
  const s = statusBody(res);
  if (typeof s === 'string') return false;
  return (s['reason'] === undefined || s['reason'] === '') && typeof s['message'] === 'string' && messages.some((m) => m.test(s['message'] as string));
}

/** The time bound for one request: generous for 2 slow CI cores, linear in the body size. */
export function timeBoundMs(req: Pick<FuzzRequest, 'body'>): number {
  return 2000 + 2 * ((req.body?.length ?? 0) / 1024);
}

/** An error body read in its Content-Type (JSON, YAML or kube's protobuf) as a JSON object; a string says why not. */
function statusBody(res: RawResponse): Record<string, unknown> | string {
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobufStatus(res.body);
  let parsed: unknown;
  try {
    const text = res.body.toString('utf8');
    if (type === 'application/json') parsed = JSON.parse(text);
    else if (type === 'application/yaml') parsed = YAML.parse(text);
    else return `error body of type "${type}", not a Status`;
  } catch (err) {
    return `error body does not parse as ${type}: ${(err as Error).message}`;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'error body is not an object';
  return parsed as Record<string, unknown>;
}

/** Why an error response is not a kube `metav1.Status` in the negotiated format, or undefined if it is one. */
export function statusProblem(res: RawResponse): string | undefined {
  const body = statusBody(res);
  if (typeof body === 'string') return body;
  const s = body as { kind?: unknown; apiVersion?: unknown; status?: unknown; code?: unknown; message?: unknown };
  if (s.kind !== 'Status' || s.apiVersion !== 'v1') return `error body is kind ${String(s.kind)} ${String(s.apiVersion)}, not v1 Status`;
  if (s.status !== 'Failure') return `Status.status is ${String(s.status)}, not Failure`;
  if (s.code !== res.status) return `Status.code ${String(s.code)} differs from the HTTP status ${res.status}`;
  if (typeof s.message !== 'string') return 'Status.message is missing';
  return undefined;
}

/**
 * Paths outside /api and /apis that nothing serves get Go's plain-text `404 page not found` from kube-apiserver
 * (http.NotFound at the end of the delegation chain, k8s.io/apiserver/pkg/util/notfoundhandler), not a Status.
 */
function isGoNotFound(req: FuzzRequest, res: RawResponse): boolean {
  const p = req.path.split('?')[0]!;
  const apiPath = p === '/api' || p === '/apis' || p.startsWith('/api/') || p.startsWith('/apis/');
  return !apiPath && res.status === 404 && res.body.toString('utf8') === '404 page not found\n';
}

/**
 * A request path with a percent-escape Go's url.ParseRequestURI refuses (`%`, `%zz`) never reaches kube-apiserver:
 * Go's net/http answers the request line itself, with exactly these bytes and then closes the connection
 * (net/http server.go conn.serve: `const publicErr = "400 Bad Request"` after errorHeaders
 * "Content-Type: text/plain; charset=utf-8", "Connection: close"; no Date, no Content-Length).
 */
export function isGoBadRequest(req: Pick<FuzzRequest, 'path'>, res: RawResponse): boolean {
  const p = req.path.split('?')[0]!;
  if (!/%(?![0-9a-fA-F]{2})/.test(p)) return false;
  const names = Object.keys(res.headers).sort();
  return (
    res.status === 400 &&
    names.join(',') === 'connection,content-type' &&
    res.headers['content-type'] === 'text/plain; charset=utf-8' &&
    res.headers['connection'] === 'close' &&
    res.body.toString('latin1') === '400 Bad Request'
  );
}

/** Every rule one response breaks. */
export function checkResponse(req: FuzzRequest, res: RawResponse): string[] {
  const problems: string[] = [];
  if (res.status >= 500 && !allowedServerErrors.some((a) => a.matches(req, res))) problems.push(`5xx`);
  if (res.status >= 400 && req.method !== 'HEAD' && !isGoNotFound(req, res) && !isGoBadRequest(req, res)) {
    const p = statusProblem(res);
    if (p) problems.push(`not-a-status`);
  }
  if (res.status < 100) problems.push('no-status');
  // kube serves no DELETE on status, scale or finalize (their REST storage is no Deleter): 404/405, and the parent stays.
  if (req.labels.verb === 'subresource-delete' && req.labels.path === 'standard' && res.status < 300) problems.push('subresource-delete-accepted');
  // kube answers 409 to a DELETE only when its preconditions (uid, resourceVersion; body or query) do not hold.
  if (req.method === 'DELETE' && res.status === 409 && !deleteHasPreconditions(req)) problems.push('conflict-on-delete');
  if (res.elapsedMs > timeBoundMs(req)) problems.push('slow');
  return problems;
}

export function excerpt(body: Buffer | undefined, max = 160): string {
  if (!body || body.length === 0) return '';
  const text = body.toString('utf8');
  const flat = text.length > max ? `${text.slice(0, max)}… (${body.length} bytes)` : text;
  return flat.replace(/\s+/g, ' ');
}

export function finding(problem: string, req: FuzzRequest, res: Pick<RawResponse, 'status' | 'body' | 'elapsedMs'> | { error: string }): Finding {
  const request = { id: req.id, method: req.method, path: req.path, headers: req.headers, body: req.body, labels: req.labels };
  if ('error' in res) return { problem, request, status: 0, response: res.error, elapsedMs: 0 };
  return { problem, request, status: res.status, response: excerpt(res.body, 300), elapsedMs: Math.round(res.elapsedMs) };
}

/**
 * A class groups findings of one problem and status with the same Status message once the request's own values
 * (quoted text, numbers) are blanked: one class per root cause, whatever table entries reached it.
 */
export function findingClass(f: Finding): string {
  const message = /"message":"((?:[^"\\]|\\.)*)"/.exec(f.response)?.[1] ?? f.response;
  const shape = message
    .replace(/\\"(?:[^"\\]|\\.)*?\\"/g, 'Q')
    .replace(/'[^']*'/g, 'Q')
    .replace(/\d+/g, 'N')
    .slice(0, 110);
  return [f.problem, f.status, f.problem === 'round-trip-put' || f.problem === 'round-trip-delete' ? f.request.labels.resource : '', shape].join(' | ');
}

/** The report: one line per class with its count and the smallest example request. */
export function formatReport(findings: readonly Finding[], header: string): string {
  const classes = new Map<string, Finding[]>();
  for (const f of findings) classes.set(findingClass(f), [...(classes.get(findingClass(f)) ?? []), f]);
  const lines = [header, `${findings.length} findings in ${classes.size} classes (problem | status | resource | message shape):`];
  const sorted = [...classes.entries()].sort((a, b) => b[1].length - a[1].length);
  for (const [cls, fs] of sorted) {
    const ex = [...fs].sort((a, b) => (a.request.body?.length ?? 0) - (b.request.body?.length ?? 0))[0]!;
    lines.push(
      `- [${fs.length}×] ${cls}`,
      `    e.g. #${ex.request.id} ${ex.request.method} ${ex.request.path.length > 200 ? ex.request.path.slice(0, 200) + '…' : ex.request.path}` +
        ` (${ex.request.headers['Content-Type'] ?? 'no content type'}; ${ex.request.labels.resource}; tables: ${ex.request.labels.verb}, path ${ex.request.labels.path}, query ${ex.request.labels.query}, headers ${ex.request.labels.header}, body ${ex.request.labels.body})`,
      `    body: ${excerpt(ex.request.body) || '(none)'}`,
      `    → ${ex.status} in ${ex.elapsedMs} ms: ${ex.response}`,
    );
  }
  return lines.join('\n');
}
