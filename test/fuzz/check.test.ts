// The fuzz's own rules, checked on hand-made responses: a suite whose checks cannot fail proves nothing.
import { Prng } from '../support/prng.js';
import type { RawResponse } from '../support/raw-https.js';
import { checkResponse, statusProblem, timeBoundMs } from './check.js';
import { deepJSON, type FuzzRequest } from './generate.js';

const req = (over: Partial<FuzzRequest> = {}): FuzzRequest => ({
  id: 1,
  method: 'POST',
  path: '/api/v1/namespaces/fuzz/configmaps',
  headers: { 'Content-Type': 'application/json' },
  body: Buffer.from('{}'),
  labels: { verb: 'create', resource: 'core/v1/configmaps', path: 'standard', query: 'none', header: 'json', contentType: 'json', body: 'valid' },
  ...over,
});
const res = (status: number, body: unknown, type = 'application/json', elapsedMs = 5): RawResponse => ({
  status,
  headers: { 'content-type': type },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  elapsedMs,
});
const status = (code: number, extra: Record<string, unknown> = {}) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'm', code, ...extra });

// kube's protobuf Status as its serializer writes it: `k8s\0` + Unknown{typeMeta 1{apiVersion 1, kind 2}, raw 2,
// contentEncoding 3, contentType 4}, raw = Status{metadata 1, status 2, message 3, reason 4, code 6}
const varint = (n: number): Buffer => {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.from(out);
};
const bytes = (num: number, p: Buffer | string): Buffer => {
  const b = Buffer.from(p);
  return Buffer.concat([varint((num << 3) | 2), varint(b.length), b]);
};
function pbRes(httpStatus: number, st: { message: string; reason?: string; code: number }, kind = 'Status'): RawResponse {
  const raw = Buffer.concat([bytes(1, ''), bytes(2, 'Failure'), bytes(3, st.message), ...(st.reason ? [bytes(4, st.reason)] : []), varint(6 << 3), varint(st.code)]);
  const unknown = Buffer.concat([bytes(1, Buffer.concat([bytes(1, 'v1'), bytes(2, kind)])), bytes(2, raw), bytes(3, ''), bytes(4, '')]);
  return { status: httpStatus, headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]), elapsedMs: 5 };
}

describe('fuzz response checks', () => {
  it.each([
    ['a 4xx Status passes', req(), res(422, status(422)), []],
    ['a 5xx InternalError is a finding', req(), res(500, status(500, { reason: 'InternalError' })), ['5xx']],
    ['an error body that is not a Status is a finding', req(), res(400, 'bad request', 'text/plain'), ['not-a-status']],
    ['a Status whose code differs from the HTTP status is a finding', req(), res(400, status(422)), ['not-a-status']],
    ['Go\'s plain 404 outside /api and /apis passes, as kube-apiserver answers it', req({ method: 'GET', path: '/nope', body: undefined }), res(404, '404 page not found\n', 'text/plain; charset=utf-8'), []],
    ['Go\'s plain 404 under /apis is a finding', req({ method: 'GET', path: '/apis/x/v1/y', body: undefined }), res(404, '404 page not found\n', 'text/plain; charset=utf-8'), ['not-a-status']],
    ['a slow answer to a small body is a finding', req(), res(201, {}, 'application/json', 5000), ['slow']],
    [
      'a DELETE on a subresource that succeeds is a finding',
      req({ method: 'DELETE', path: '/apis/apps/v1/namespaces/fuzz/deployments/fz-0/scale', body: undefined, labels: { ...req().labels, verb: 'subresource-delete' } }),
      res(200, {}),
      ['subresource-delete-accepted'],
    ],
    [
      'kube\'s reasonless 500 for a write over etcd\'s size limit passes',
      req({ method: 'PUT' }),
      res(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request is too large', code: 500 }),
      [],
    ],
    [
      'the same condition worded otherwise is a finding',
      req({ method: 'PUT' }),
      res(500, status(500, { reason: 'InternalError', message: 'Internal error occurred: 3 INVALID_ARGUMENT: etcdserver: request is too large' })),
      ['5xx'],
    ],
    ['a 409 to a DELETE without preconditions is a finding', req({ method: 'DELETE', body: undefined }), res(409, status(409, { reason: 'Conflict' })), ['conflict-on-delete']],
    [
      'a 409 to a DELETE whose query names a resourceVersion passes: without a body the query is its DeleteOptions',
      req({ method: 'DELETE', path: '/apis/apps/v1/namespaces/fuzz/daemonsets/fz-3?resourceVersion=-1', body: undefined }),
      res(409, status(409, { reason: 'Conflict' })),
      [],
    ],
    [
      'a 409 to a DELETE with a body and a query resourceVersion is a finding: the body wins',
      req({ method: 'DELETE', path: '/apis/apps/v1/namespaces/fuzz/daemonsets/fz-3?resourceVersion=-1', body: Buffer.from('{}') }),
      res(409, status(409, { reason: 'Conflict' })),
      ['conflict-on-delete'],
    ],
    [
      'kube\'s reasonless 500 for a $setElementOrder list holding a non-map passes',
      req({ method: 'PATCH', headers: { 'Content-Type': 'application/strategic-merge-patch+json' } }),
      res(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'value for key 1 is not a map', code: 500 }),
      [],
    ],
    [
      'a HEAD 500 to a get whose resourceVersion is not a uint64 passes, as the GET\'s 500 does',
      req({ method: 'HEAD', path: '/api/v1/namespaces/fuzz/serviceaccounts/%00?resourceVersion=1.5', body: undefined }),
      res(500, ''),
      [],
    ],
    ['a HEAD 500 without that input is a finding', req({ method: 'HEAD', path: '/api/v1/namespaces/fuzz/serviceaccounts/a?resourceVersion=15', body: undefined }), res(500, ''), ['5xx']],
    ['a 409 to a DELETE with preconditions passes', req({ method: 'DELETE', body: Buffer.from('{"preconditions":{"uid":"x"}}') }), res(409, status(409, { reason: 'Conflict' })), []],
    [
      'the reasonless 500 kube answers for a server-side apply that does not fit the schema passes',
      req({ method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' } }),
      res(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'failed to create typed patch object (fuzz/a; /v1, Kind=Pod): .spec.x: field not declared in schema', code: 500 }),
      [],
    ],
    [
      'the same 500 for a merge patch is a finding',
      req({ method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' } }),
      res(500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'failed to create typed patch object (fuzz/a; /v1, Kind=Pod): .spec.x: field not declared in schema', code: 500 }),
      ['5xx'],
    ],
  ])('%s', (_name, rq, rs, problems) => {
    expect(checkResponse(rq, rs)).toEqual(problems);
  });

  it('reads a YAML or protobuf Status in the negotiated format', () => {
    expect(statusProblem(res(404, 'kind: Status\napiVersion: v1\nstatus: Failure\nmessage: m\ncode: 404\n', 'application/yaml'))).toBeUndefined();
    expect(statusProblem(pbRes(404, { message: 'm', reason: 'NotFound', code: 404 }))).toBeUndefined();
    expect(statusProblem(res(404, 'rest', 'application/vnd.kubernetes.protobuf'))).toBe('protobuf error body without the k8s envelope');
    expect(statusProblem(res(404, 'k8s\u0000rest', 'application/vnd.kubernetes.protobuf'))).toBe('protobuf envelope: truncated bytes in field 14');
  });

  // kube answers Status errors in protobuf to a client preferring it (ErrorNegotiated): every rule applies there too
  it.each([
    ['a protobuf Status whose code differs from the HTTP status is a finding', req(), pbRes(400, { message: 'm', code: 422 }), ['not-a-status']],
    ['a protobuf object that is not a Status is a finding', req(), pbRes(400, { message: 'm', code: 400 }, 'ConfigMap'), ['not-a-status']],
    ['a protobuf 500 InternalError is a finding', req(), pbRes(500, { message: 'Internal error occurred: boom', reason: 'InternalError', code: 500 }), ['5xx']],
    [
      'kube\'s reasonless server-side apply 500 in protobuf passes',
      req({ method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/vnd.kubernetes.protobuf' } }),
      pbRes(500, { message: 'failed to create typed patch object (fuzz/fz-5; apps/v1, Kind=Deployment): .status.fzUnknown: field not declared in schema', code: 500 }),
      [],
    ],
    [
      'the same protobuf 500 for a merge patch is a finding',
      req({ method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' } }),
      pbRes(500, { message: 'failed to create typed patch object (fuzz/fz-5; apps/v1, Kind=Deployment): .status.fzUnknown: field not declared in schema', code: 500 }),
      ['5xx'],
    ],
  ])('%s', (_name, rq, rs, problems) => {
    expect(checkResponse(rq, rs)).toEqual(problems);
  });

  it('bounds time linearly in the body size, below the 5 s the cubic deep-nesting case takes', () => {
    expect(timeBoundMs({ body: undefined })).toBe(2000);
    expect(timeBoundMs({ body: Buffer.alloc(12 * 1024) })).toBe(2024);
    expect(timeBoundMs({ body: Buffer.alloc(3 * 1024 * 1024) })).toBe(2000 + 6144);
  });

  it('builds nesting of the requested depth', () => {
    const text = deepJSON(3000, 'mixed');
    expect(text.split('[').length - 1 + text.split('{').length - 1).toBe(3000);
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it('draws the same sequence from the same seed', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    expect(Array.from({ length: 5 }, () => a.int(0, 1000))).toEqual(Array.from({ length: 5 }, () => b.int(0, 1000)));
  });
});
