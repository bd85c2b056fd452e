import { MalformedRequestPathError, parseRequestInfo, unescapeRequestPath } from './request-info.js';

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

describe('collection GETs as requestinfo.go decodes ListOptions', () => {
  it.each<[string, string, Record<string, string | string[]>, Record<string, string>]>([
    // Convert_Slice_string_To_bool: present is true unless "0" or "false" in any case
    ['GET', '/api/v1/namespaces/ns/pods', { watch: 'True' }, { verb: 'watch', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: 'yes' }, { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: '' }, { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: 'false' }, { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: 'FALSE' }, { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: '0' }, { verb: 'list' }],
    ['GET', '/api/v1/namespaces/ns/pods', { watch: ['0', '1'] }, { verb: 'list' }],
    // a named GET is a get, whatever ?watch says
    ['GET', '/api/v1/namespaces/ns/pods/p', { watch: 'true' }, { verb: 'get', name: 'p' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods/p', {}, { verb: 'watch', name: 'p' }],
    // fieldSelector=metadata.name=x names a list or watch
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=x' }, { verb: 'list', name: 'x' }],
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name==x,status.phase=Running', watch: '1' }, { verb: 'watch', name: 'x' }],
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name!=x' }, { verb: 'list', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=..' }, { verb: 'list', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=a%b' }, { verb: 'list', name: '' }],
    // ListOptions that do not decode: no name, and the verb from ?watch alone
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=x', limit: 'abc', watch: 'True' }, { verb: 'watch', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=x', labelSelector: 'a in (' }, { verb: 'list', name: '' }],
    // a delete keeps its collection verb: only GETs are named by their selector
    ['DELETE', '/api/v1/namespaces/ns/pods', { fieldSelector: 'metadata.name=x' }, { verb: 'deletecollection', name: '' }],
  ])('%s %s %j', (method, path, query, want) => {
    expect(parseRequestInfo(method, path, query)).toMatchObject(want);
  });
});

describe('request paths as Go url.Parse decodes them', () => {
  it.each([
    ['/api/v1/namespaces/%c0%ae/configmaps', { verb: 'list', namespace: '\ufffd\ufffd', resource: 'configmaps' }],
    ['/api/v1/namespaces/default/configmaps/a%25b', { verb: 'get', name: 'a%b' }],
    ['/api/v1/namespaces/default/configmaps/%2e%2e', { verb: 'get', name: '..' }],
    ['/api/v1/namespaces/default/configmaps/..', { verb: 'get', name: '..' }],
    // %2F is a "/" once decoded, and kube splits the decoded path: the rest is a subresource
    ['/api/v1/namespaces/default/configmaps/a%2Fb', { verb: 'get', name: 'a', subresource: 'b' }],
    ['/api/v1/namespaces/d%65fault/configmaps/x', { namespace: 'default', name: 'x' }],
  ])('GET %s', (path, want) => {
    expect(parseRequestInfo('GET', path, {})).toMatchObject(want);
  });

  it.each([['/api/v1/namespaces/default/configmaps/%'], ['/api/v1/namespaces/default/configmaps/%zz'], ['/api/v1/namespaces/%c/configmaps'], ['/healthz%']])(
    '%s is a malformed request path (Go answers 400 before any handler)',
    (path) => {
      expect(() => parseRequestInfo('GET', path, {})).toThrow(MalformedRequestPathError);
    },
  );

  it('leaves paths without escapes as they are', () => {
    expect(unescapeRequestPath('/api/v1/namespaces/a+b')).toBe('/api/v1/namespaces/a+b');
    expect(unescapeRequestPath('/x/%41%42')).toBe('/x/AB');
  });
});
