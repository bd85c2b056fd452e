import { pathSegmentError } from './path-segments.js';
import { parseRequestInfo } from './request-info.js';

const namespaced = (ri: { resource: string }) => ri.resource !== 'namespaces' && ri.resource !== 'nodes';
const answer = (method: string, path: string) => {
  const err = pathSegmentError(parseRequestInfo(method, path, {}), namespaced);
  return err && { code: err.code, reason: err.reason, message: err.message };
};

describe('names and namespaces of the URL as kube-apiserver\'s store key functions take them', () => {
  it.each([
    ['GET', '/api/v1/namespaces/default/configmaps/..', `Name parameter invalid: "..": may not be '..'`],
    ['PUT', '/api/v1/namespaces/default/configmaps/.', `Name parameter invalid: ".": may not be '.'`],
    ['DELETE', '/api/v1/namespaces/default/configmaps/a%25b', `Name parameter invalid: "a%b": may not contain '%'`],
    ['PATCH', '/api/v1/namespaces/default/configmaps/a%25b/status', `Name parameter invalid: "a%b": may not contain '%'`],
    ['GET', '/api/v1/namespaces/%2e%2e', `Name parameter invalid: "..": may not be '..'`],
    ['GET', '/api/v1/nodes/%25', `Name parameter invalid: "%": may not contain '%'`],
  ])('%s %s: 400 %s', (method, path, message) => {
    expect(answer(method, path)).toEqual({ code: 400, reason: 'BadRequest', message });
  });

  it.each([
    ['GET', '/api/v1/namespaces/../configmaps/x', 'configmaps "x" not found'],
    ['DELETE', '/apis/apps/v1/namespaces/a%25b/deployments/web', 'deployments.apps "web" not found'],
    ['GET', '/api/v1/namespaces/%2e%2e/configmaps', 'namespaces ".." not found'],
    ['POST', '/api/v1/namespaces/./configmaps', 'namespaces "." not found'],
  ])('%s %s: 404 %s (nothing exists in a namespace that cannot be one)', (method, path, message) => {
    expect(answer(method, path)).toEqual({ code: 404, reason: 'NotFound', message });
  });

  it.each([
    ['PUT', '/api/v1/namespaces/default/configmaps'],
    ['PATCH', '/api/v1/namespaces/default/configmaps/'],
    ['PATCH', '/api/v1/namespaces//configmaps'],
    ['PUT', '/api/v1/namespaces'],
  ])('%s %s: 405 (no route for an empty name)', (method, path) => {
    expect(answer(method, path)).toEqual({ code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' });
  });

  it.each([['GET', '/api/v1/namespaces/default/configmaps/x'], ['GET', '/api/v1/namespaces/%c0%ae/configmaps'], ['POST', '/api/v1/namespaces/default/configmaps'], ['GET', '/healthz']])(
    '%s %s passes',
    (method, path) => {
      expect(answer(method, path)).toBeUndefined();
    },
  );
});
