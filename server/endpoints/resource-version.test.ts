import { resourceVersionParseError } from './resource-version.js';

describe("resourceVersion as kube's APIObjectVersioner.ParseResourceVersion parses it", () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['0', undefined],
    ['42', undefined],
    ['18446744073709551615', undefined],
    ['abc', 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
    ['-1', 'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'],
    ['+1', 'resourceVersion: Invalid value: "+1": strconv.ParseUint: parsing "+1": invalid syntax'],
    ['1_000', 'resourceVersion: Invalid value: "1_000": strconv.ParseUint: parsing "1_000": invalid syntax'],
    ['18446744073709551616', 'resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range'],
    // Go stops at the first overflow, before the invalid character
    ['99999999999999999999x', 'resourceVersion: Invalid value: "99999999999999999999x": strconv.ParseUint: parsing "99999999999999999999x": value out of range'],
    ['a\n', 'resourceVersion: Invalid value: "a\\n": strconv.ParseUint: parsing "a\\n": invalid syntax'],
  ])('%j → %j', (rv, text) => {
    expect(resourceVersionParseError(rv)).toBe(text);
  });
});
