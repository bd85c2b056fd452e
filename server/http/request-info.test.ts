import { parseRequestInfo } from './request-info.js';

describe('parseRequestInfo (kube RequestInfoFactory)', () => {
  it.each([
    ['GET', '/api/v1/namespaces', {}, { verb: 'list', resource: 'namespaces', namespace: '', name: '' }],
    ['GET', '/api/v1/namespaces/foo', {}, { verb: 'get', resource: 'namespaces', namespace: 'foo', name: 'foo' }],
    ['PUT', '/api/v1/namespaces/foo/finalize', {}, { verb: 'update', resource: 'namespaces', name: 'foo', subresource: 'finalize' }],
    ['GET', '/api/v1/namespaces/ns/pods', {}, { verb: 'list', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: 'true' }, { verb: 'watch', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods', {}, { verb: 'watch', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/pods', {}, { verb: 'list', resource: 'pods', namespace: '' }],
    ['POST', '/api/v1/namespaces/ns/configmaps', {}, { verb: 'create', resource: 'configmaps', namespace: 'ns', name: '' }],
    ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/web/scale', {}, { verb: 'patch', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments', name: 'web', subresource: 'scale' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', {}, { verb: 'deletecollection', resource: 'configmaps' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/a', {}, { verb: 'delete', name: 'a' }],
    ['GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/x', {}, { verb: 'get', apiGroup: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', name: 'x' }],
  ])('%s %s %j', (method, path, query, want) => {
    const info = parseRequestInfo(method, path, query);
    expect(info.isResourceRequest).toBe(true);
    expect(info).toMatchObject(want);
  });

  it.each([['/healthz'], ['/api'], ['/apis'], ['/apis/apps'], ['/api/v1'], ['/apis/apps/v1'], ['/openapi/v3']])('%s is not a resource request', (path) => {
    expect(parseRequestInfo('GET', path, {}).isResourceRequest).toBe(false);
  });
});
