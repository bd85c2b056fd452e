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
    expect(statusProblem(res(404, 'k8s\u0000rest', 'application/vnd.kubernetes.protobuf'))).toBeUndefined();
    expect(statusProblem(res(404, 'rest', 'application/vnd.kubernetes.protobuf'))).toBe('protobuf error body without the k8s envelope');
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
