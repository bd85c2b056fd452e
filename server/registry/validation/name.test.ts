import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameValidatorFor,
  validatePathSegmentName,
} from './name.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('IsDNS1123Subdomain', () => {
  it.each([
    ['a', []],
    ['example.com', []],
    ['a-b.c-d', []],
    ['1.2.3', []],
    ['Example.com', [subdomainMsg]],
    ['-a', [subdomainMsg]],
    ['a..b', [subdomainMsg]],
    ['a_b', [subdomainMsg]],
    ['', [subdomainMsg]],
    ['a'.repeat(253), []],
    ['a'.repeat(254), ['must be no more than 253 characters']],
  ])('%j → %j', (value, expected) => {
    expect(isDNS1123Subdomain(value)).toEqual(expected);
  });

  it('prints kube’s exact message for an uppercase name', () => {
    expect(isDNS1123Subdomain('Foo')[0]).toBe(subdomainMsg);
  });
});

describe('IsDNS1123Label', () => {
  it.each([
    ['a', []],
    ['my-name', []],
    ['123-abc', []],
    ['a.b', ['must not contain dots']],
    ['A', [labelMsg]],
    ['a-', [labelMsg]],
    ['a'.repeat(63), []],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ])('%j → %j', (value, expected) => {
    expect(isDNS1123Label(value)).toEqual(expected);
  });
});

describe('IsDNS1035Label', () => {
  it('rejects a leading digit', () => {
    expect(isDNS1035Label('1abc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('IsQualifiedName', () => {
  it.each([
    ['simple', []],
    ['now-with-dashes', []],
    ['1-starts-with-num', []],
    ['1234', []],
    ['simple/simple', []],
    ['now-with-dashes/simple', []],
    ['example.com/Upper_Case.Name', []],
    ['a'.repeat(63), []],
    ['nospecialchars%^=@', [namePartMsg]],
    ['-a', [namePartMsg]],
    ['', ['name part must be non-empty', namePartMsg]],
    ['/simple', ['prefix part must be non-empty']],
    ['Example.com/simple', [`prefix part ${subdomainMsg}`]],
    ['a'.repeat(64), ['name part must be no more than 63 characters']],
    [
      'a/b/c',
      [
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
  ])('%j → %j', (value, expected) => {
    expect(isQualifiedName(value)).toEqual(expected);
  });
});

describe('IsValidLabelValue', () => {
  it.each([
    ['', []],
    ['simple', []],
    ['now-with-dashes', []],
    ['1.2_3', []],
    ['a b', [labelValueMsg]],
    ['-a', [labelValueMsg]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ])('%j → %j', (value, expected) => {
    expect(isValidLabelValue(value)).toEqual(expected);
  });
});

describe('path segment names', () => {
  it.each([
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['a/%', ["may not contain '/'", "may not contain '%'"]],
    ['Any_Thing:else', []],
  ])('ValidatePathSegmentName(%j)', (value, expected) => {
    expect(isValidPathSegmentName(value)).toEqual(expected);
    expect(validatePathSegmentName(value, false)).toEqual(expected);
  });

  it('allows "." and ".." as a generateName prefix but not "/"', () => {
    expect(validatePathSegmentName('.', true)).toEqual([]);
    expect(validatePathSegmentName('a/', true)).toEqual(["may not contain '/'"]);
  });
});

describe('name rules', () => {
  it('checks a generateName prefix with its trailing dash masked, as kube does', () => {
    expect(nameIsDNSSubdomain('my-pod-', true)).toEqual([]);
    expect(nameIsDNSLabel('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('my-pod-', false)).toEqual([subdomainMsg]);
  });

  it('maps each NameRule to its validator', () => {
    expect(nameValidatorFor('DNS1123Subdomain')('a.b', false)).toEqual([]);
    expect(nameValidatorFor('DNS1123Label')('a.b', false)).toEqual(['must not contain dots']);
    expect(nameValidatorFor('PathSegment')('A_B', false)).toEqual([]);
  });
});
