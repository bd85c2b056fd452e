import { CelMap } from '../engine/values.js';
import { evalError, evalValue } from './library-test-env.js';

// kube's TestValidationExpressions "URL parsing" and the urls.go examples
describe('URL library', () => {
  const self = new CelMap([['url', 'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor']]);
  it.each([
    "url('/path').getScheme() == ''",
    "url('https://example.com/').getScheme() == 'https'",
    "url('https://example.com:80/').getHost() == 'example.com:80'",
    "url('https://example.com/').getHost() == 'example.com'",
    "url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://[::1]/').getHost() == '[::1]'",
    "url('/path').getHost() == ''",
    "url('https://example.com:80/').getHostname() == 'example.com'",
    "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
    "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
    "url('https://[::1]/').getHostname() == '::1'",
    "url('https://[::1]:80/').getHostname() == '::1'",
    "url('/path').getHostname() == ''",
    "url('https://example.com:80/').getPort() == '80'",
    "url('https://example.com/').getPort() == ''",
    "url('/path').getPort() == ''",
    "url('https://example.com/path').getEscapedPath() == '/path'",
    "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com').getEscapedPath() == ''",
    "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
    "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
    "url('https://example.com/path?').getQuery() == {}",
    "url('https://example.com/path').getQuery() == {}",
    "url(self.url).getScheme() == 'https'",
    "url(self.url).getHost() == 'kubernetes.io:80'",
    "url(self.url).getHostname() == 'kubernetes.io'",
    "url(self.url).getPort() == '80'",
    "url(self.url).getEscapedPath() == '/docs/home'",
    "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
    "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
    "isURL('/path') == true",
    "isURL('/absolute-path')",
    "isURL('https://a:b:c/') == false",
    "isURL('../relative-path') == false",
    "url('https:://kubernetes.io/').getHostname() != 'test'",
    "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
    "url('https://example.com/p?a=1+2&b=%20').getQuery() == {'a': ['1 2'], 'b': [' ']}",
    "url('https://example.com/') == url('https://example.com/')",
    // Go compares url.URL structs, whose Userinfo is a pointer: two parses are never equal
    "url('https://u:p@example.com/') != url('https://u:p@example.com/')",
  ])('%s', (expr) => {
    expect(evalValue(expr, { self })).toBe(true);
  });

  it.each([
    ["url('../relative-path')", 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request'],
    ["url('https://a:b:c/')", 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'],
    ["url('')", 'URL parse error during conversion from string: parse "": empty url'],
    ["url('http://ex%2ample.com/')", 'URL parse error during conversion from string: parse "http://ex%2ample.com/": invalid URL escape "%2a"'],
    ["url(':foo')", 'URL parse error during conversion from string: parse ":foo": missing protocol scheme'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });
});
