import { evalError, evalValue, evaluateExpression } from './library-test-env.js';

// kube's library/semver_test.go TestSemver (library version 1, as kube-apiserver enables it)
describe('semver library', () => {
  it.each([
    ['semver("1.2.3") == semver("1.2.3")', true],
    ['isSemver("1.2.3-beta.1+build.1")', true],
    ['isSemver("")', false],
    ['isSemver("v1.0.0")', false],
    ['isSemver(" 1.0.0")', false],
    ['isSemver("1. 0.0")', false],
    ['isSemver("1.0.0 ")', false],
    ['isSemver("01.01.01")', false],
    ['isSemver("1")', false],
    ['isSemver("1.1")', false],
    ['isSemver("", true)', false],
    ['isSemver(" 1.0.0", true)', false],
    ['isSemver("1. 0.0", true)', false],
    ['isSemver("1.0.0 ", true)', false],
    ['isSemver("v1.0.0", true)', true],
    ['isSemver("01.01.01", true)', true],
    ['isSemver("1", true)', true],
    ['isSemver("1.1", true)', true],
    ['semver("v01.01", true) == semver("1.1.0")', true],
    ['semver("1.2.3") == semver("1.0.0")', false],
    ['semver("1.0.0").isLessThan(semver("1.2.3"))', true],
    ['semver("1.0.0").isLessThan(semver("1.0.0"))', false],
    ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', true],
    ['semver("1.0.0").isGreaterThan(semver("1.0.0"))', false],
    // semver.org precedence: prereleases sort before the release; numeric identifiers before alphanumeric
    ['semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', true],
    ['semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))', true],
    ['semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))', true],
    ['semver("1.0.0+build.1") == semver("1.0.0+build.2")', true],
  ])('%s is %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', -1n],
    ['semver("1.2.3").compareTo(semver("1.0.0"))', 1n],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
  ])('%s == %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    ['semver("v1.0")', 'No Major.Minor.Patch elements found'],
    ['semver("")', 'Version string empty'],
    ['semver("01.0.0")', 'Major number must not contain leading zeroes "01"'],
    ['semver("1.x.0")', 'Invalid character(s) found in minor number "x"'],
    ['semver("1.0.0-01")', 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ['semver("1.0.0+")', 'Build meta data is empty'],
    ['semver("1.0-beta", true)', 'short version cannot contain PreRelease/Build meta data'],
  ])('%s fails with %j', (expr, msg) => {
    expect(evalError(expr)).toBe(msg);
  });

  it('type-checks its arguments', () => {
    expect(evaluateExpression('isSemver([1, 2, 3])').compileError).toContain("found no matching overload for 'isSemver' applied to");
  });
});
