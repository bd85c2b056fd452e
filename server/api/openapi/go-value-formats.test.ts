// The custom decoders' value checks, ported from kube's and Go's own test tables (quantity_test.go, base64_test.go,
// time format_test.go).
import { base64Error, quantityError, quantityFormatWrong, quantitySuffixWrong, rfc3339Error } from './go-value-formats.js';

describe('resource.ParseQuantity', () => {
  it.each(['0', '1', '1.5', '-1', '+1', '100m', '1Gi', '1Ki', '5E', '1e3', '1E-3', '.5', '1.', '0.0001Mi', '12n', '000', '-', 'Gi'])('parses %s', (s) => {
    expect(quantityError(s)).toBeUndefined();
  });
  it.each(['', 'abc', '1x', '1.2.3', '1 Gi', 'true', '{}', '1e-x'])('refuses %j with the format error', (s) => {
    expect(quantityError(s)).toBe(quantityFormatWrong);
  });
  it.each(['1kk', '1iM', '1Gii', '1e+', '1im', '1e'])('refuses %j with the suffix error', (s) => {
    expect(quantityError(s)).toBe(quantitySuffixWrong);
  });
});

describe('time.Parse(time.RFC3339)', () => {
  it.each(['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.123456789Z', '2024-01-02T03:04:05+01:00', '2024-02-29T00:00:00-07:30', '2024-01-02T3:04:05Z'])('parses %s', (s) => {
    expect(rfc3339Error(s)).toBeUndefined();
  });
  it.each([
    ['x', 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
    ['2024', 'parsing time "2024" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "-"'],
    ['2024-1-02T03:04:05Z', 'parsing time "2024-1-02T03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-02T03:04:05Z" as "01"'],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2023-02-29T03:04:05Z', 'parsing time "2023-02-29T03:04:05Z": day out of range'],
    ['2024-01-02 03:04:05Z', 'parsing time "2024-01-02 03:04:05Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 03:04:05Z" as "T"'],
    ['2024-01-02T03:04:05', 'parsing time "2024-01-02T03:04:05" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
    ['2024-01-02T25:04:05Z', 'parsing time "2024-01-02T25:04:05Z": hour out of range'],
  ])('refuses %j with Go\'s text', (s, error) => {
    expect(rfc3339Error(s)).toBe(error);
  });
});

describe('base64.StdEncoding.Decode', () => {
  it.each(['', 'aGk=', 'aGVsbG8=', 'YQ==', 'aGVs\nbG8=', 'aGVsbG8=\r\n'])('decodes %j', (s) => {
    expect(base64Error(s)).toBeUndefined();
  });
  it.each([
    ['abc!', 3],
    ['a', 0],
    ['ab', 0],
    ['abc', 0],
    ['YQ=', 3],
    ['YQ==x', 4],
    ['=', 0],
    ['Y===', 1],
    ['aGk=aGk=', 4],
    ['hello world', 5],
  ])('refuses %j at byte %d', (s, at) => {
    expect(base64Error(s)).toBe(`illegal base64 data at input byte ${at}`);
  });
});
