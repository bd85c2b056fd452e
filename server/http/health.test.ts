// kube's healthz handler tests (k8s.io/apiserver/pkg/server/healthz/healthz_test.go, testMultipleChecks), case for
// case, through our /healthz. One deviation, on purpose: a failed check prints its reason where kube prints "reason
// withheld".
import express from 'express';
import request from 'supertest';
import { HealthChecks, healthRouter, informerSyncCheck } from './health.js';

function appWith(addBadCheck: boolean): express.Express {
  const checks = new HealthChecks();
  checks.addHealthCheck({ name: 'ping', check: () => {} });
  if (addBadCheck) {
    checks.addHealthCheck({
      name: 'bad',
      check: () => {
        throw new Error('this will fail');
      },
    });
  }
  const app = express();
  app.use(healthRouter(checks));
  return app;
}

const name = 'healthz';
const cases: Array<[string, string, number, boolean]> = [
  ['?verbose', `[+]ping ok\n${name} check passed\n`, 200, false],
  ['?exclude=dontexist', 'ok', 200, false],
  ['?exclude=bad', 'ok', 200, true],
  ['?verbose=true&exclude=bad', `[+]ping ok\n[+]bad excluded: ok\n${name} check passed\n`, 200, true],
  ['?verbose=true&exclude=dontexist', `[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "dontexist"\n${name} check passed\n`, 200, false],
  ['/ping', 'ok', 200, false],
  ['', 'ok', 200, false],
  // kube: "[-]bad failed: reason withheld"
  ['?verbose', `[+]ping ok\n[-]bad failed: this will fail\n${name} check failed\n`, 500, true],
  ['/ping', 'ok', 200, true],
  ['/bad', 'internal server error: this will fail\n', 500, true],
  ['', `[+]ping ok\n[-]bad failed: this will fail\n${name} check failed\n`, 500, true],
];

describe('/healthz, as kube-apiserver answers it', () => {
  it.each(cases)('GET /healthz%s: %j (%d)', async (path, body, status, addBadCheck) => {
    const res = await request(appWith(addBadCheck)).get(`/healthz${path}`);
    expect([res.status, res.headers['content-type'], res.text]).toEqual([status, 'text/plain; charset=utf-8', body]);
  });

  it('lists every name no check has, sorted and quoted, and reports each excluded check in its place', async () => {
    const res = await request(appWith(true)).get('/healthz?verbose&exclude=zeta&exclude=bad&exclude=alpha');
    expect(res.text).toBe(`[+]ping ok\n[+]bad excluded: ok\nwarn: some health checks cannot be excluded: no matches for "alpha","zeta"\n${name} check passed\n`);
  });

  it('answers an unknown check path with net/http\'s 404 and a failing one with http.Error\'s headers', async () => {
    const missing = await request(appWith(false)).get('/healthz/nope');
    expect([missing.status, missing.text, missing.headers['x-content-type-options']]).toEqual([404, '404 page not found\n', 'nosniff']);
    const bad = await request(appWith(true)).get('/healthz/bad');
    expect(bad.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('onFirstReady', () => {
  it('runs once, before the first 200 of /readyz or /healthz with every check run; not for /livez, a failure or an exclusion', async () => {
    const checks = new HealthChecks();
    let ready = false;
    checks.addHealthCheck({ name: 'ping', check: () => {} });
    // a check of /readyz only (as "etcd-readiness" is): /healthz answers 200 without it, which is not ready
    checks.addReadyzCheck({
      name: 'startup',
      check: () => {
        if (!ready) throw new Error('not yet');
      },
    });
    const calls: string[] = [];
    checks.onFirstReady(() => calls.push('first ready'));
    const app = express();
    app.use(healthRouter(checks));
    expect((await request(app).get('/readyz')).status).toBe(500);
    expect((await request(app).get('/readyz?exclude=startup')).status).toBe(200);
    expect((await request(app).get('/livez')).status).toBe(200);
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect(calls).toEqual([]);
    ready = true;
    const first = request(app).get('/healthz?verbose');
    expect((await first).status).toBe(200);
    expect(calls).toEqual(['first ready']);
    expect((await request(app).get('/readyz')).status).toBe(200);
    expect(calls).toEqual(['first ready']);
  });
});

// kube's TestInformerSyncHealthChecker (k8s.io/apiserver/pkg/server/healthz/healthz_test.go)
describe('informerSyncCheck', () => {
  const informer = (typeName: string, synced: boolean) => ({ typeName, hasSynced: () => synced });

  it('returns nil when all informers are started', () => {
    expect(() => informerSyncCheck(() => [informer('*v1.Pod', true)]).check()).not.toThrow();
  });

  it('returns an error when an informer is not started, naming them as Go prints a []string', () => {
    const check = informerSyncCheck(() => [informer('*v1.Pod', true), informer('*v1.Service', false), informer('*v1.Node', true), informer('*v1.Namespace', false)]);
    expect(check.name).toBe('informer-sync');
    expect(() => check.check()).toThrow('2 informers not started yet: [*v1.Service *v1.Namespace]');
  });
});
