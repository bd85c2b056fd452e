import { CelOptional } from '../engine/values.js';
import { evalValue } from './library-test-env.js';
import { constantFormats, isDate, isDateTime } from './format.js';

const none = CelOptional.none;
const errs = (...m: string[]): CelOptional => CelOptional.of(m);

// kube's library/format_test.go TestFormat
describe('format library', () => {
  it.each([
    ['format.dns1123Label().validate("my-label-name")', none],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io")', none],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', none],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-")', none],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', none],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-")', none],
    ['format.uri().validate("http://example.com")', none],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', none],
    ['format.byte().validate("aGVsbG8=")', none],
    ['format.date().validate("2021-01-01")', none],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', none],
    [
      'format.dns1123Label().validate("contains a space")',
      errs(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ),
    ],
    [
      'format.dns1123Subdomain().validate("contains a space")',
      errs(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ],
    [
      'format.dns1035Label().validate("contains a space")',
      errs(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ),
    ],
    [
      'format.qualifiedName().validate("contains a space")',
      errs(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    ],
    [
      'format.dns1123LabelPrefix().validate("contains a space-")',
      errs(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ),
    ],
    [
      'format.dns1123SubdomainPrefix().validate("contains a space-")',
      errs(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ),
    ],
    [
      'format.dns1035LabelPrefix().validate("contains a space-")',
      errs(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ),
    ],
    ['format.dns1123Label().validate("my-label-name")', none],
    ['format.dns1123Subdomain().validate("example.com")', none],
    ['format.dns1035Label().validate("my-label-name")', none],
    ['format.qualifiedName().validate("my.name")', none],
    ['format.byte().validate("aGVsbG8")', errs('invalid base64')],
    ['format.date().validate("2020-01-01")', none],
    ['format.date().validate("2020-01-32")', errs('invalid date')],
    ['format.datetime().validate("2020-01-01T00:00:00Z")', none],
    ['format.datetime().validate("2020-01-32T00:00:00Z")', errs('invalid datetime')],
    ['format.labelValue().validate("my-cool-label-Value")', none],
    [
      'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
      errs(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ),
    ],
    ['format.uri().validate("../relative")', errs('parse "../relative": invalid URI for request')],
    ['format.uuid().validate("not-a-uuid")', errs('does not match the UUID format')],
    ['format.portName().validate("http")', none],
    ['format.portName().validate("-HTTP--")', errs('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)', 'must not contain consecutive hyphens', 'must not begin or end with a hyphen')],
    [`format.dns1123Label().validate("${'a'.repeat(64)}")`, errs('must be no more than 63 characters')],
  ])('%s', (expr, want) => {
    expect(evalValue(expr)).toEqual(want);
  });

  it('reports unknown names as optional.none()', () => {
    expect(evalValue('format.named("unknown").hasValue()')).toBe(false);
  });

  // kube's loop over ConstantFormats: lookup by name, equality with the constant, inequality with the others
  const names = [...constantFormats.keys()];
  it.each(names)('format.named("%s") is format.%s()', (name) => {
    expect(evalValue(`format.named("${name}").hasValue()`)).toBe(true);
    expect(evalValue(`format.named("${name}").value() == format.${name}()`)).toBe(true);
    for (const other of names) if (other !== name) expect(evalValue(`format.${name}() == format.${other}()`)).toBe(false);
  });

  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2023-13-01', false],
    ['2023-1-01', false],
  ])('checks dates as Go parses 2006-01-02: %s', (s, ok) => {
    expect(isDate(s)).toBe(ok);
  });

  it.each([
    ['2021-01-01T00:00:00Z', true],
    ['2021-01-01t23:59:59.123+02:00', true],
    ['2021-01-01T24:00:00Z', false],
    ['2021-01-01 00:00:00Z', false],
    ['2021-01-01T00:00:00', false],
  ])('checks date-times as strfmt does: %s', (s, ok) => {
    expect(isDateTime(s)).toBe(ok);
  });
});
