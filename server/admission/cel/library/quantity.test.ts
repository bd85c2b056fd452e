import { evalError, evalValue, evaluateExpression } from './library-test-env.js';
import { Quantity } from './quantity-value.js';

const q = (s: string): Quantity => {
  const r = Quantity.parse(s);
  if (typeof r === 'string') throw new Error(r);
  return r;
};

// kube's library/quantity_test.go TestQuantity, and the "quantity" case of TestValidationExpressions
describe('quantity library', () => {
  it.each([
    ['quantity("12Mi") == quantity("12Mi")', true],
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    ['quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', true],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    ['isQuantity("1.3Gi")', true],
    ['isQuantity("1,3G")', false],
    ['isQuantity("10000k")', true],
    ['isQuantity("200K")', false],
    ['isQuantity("Three")', false],
    // quantity.go's doc calls 'Mi' an error, but apimachinery's scanner reads a missing number as 0
    ['isQuantity("Mi") && quantity("Mi") == quantity("0")', true],
    ['quantity("50000000G").isInteger()', true],
    ['quantity("50k").asInteger() == 50000', true],
    ['quantity("50k").sub(20000).asApproximateFloat() == 30000.0', true],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")', true],
    ['quantity("50M").compareTo(quantity("50Mi")) == -1', true],
    ['sign(quantity("-1")) == -1 && sign(quantity("0")) == 0 && sign(quantity("2Ki")) == 1', true],
    // apimachinery keeps a fractional binary quantity as inf.Dec, which AsInt64 refuses
    ['quantity("1.5Gi").isInteger()', false],
    ['quantity("1.5Gi") == quantity("1536Mi")', true],
    ['quantity("1536Mi").isInteger()', true],
  ])('%s is %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("50.703k").asApproximateFloat()', 50703],
    ['quantity("1.5Gi").asApproximateFloat()', 1610612736],
    ['quantity("100m").asApproximateFloat()', 0.1],
  ])('%s == %s', (expr, want) => {
    expect(evalValue(expr)).toBe(want);
  });

  it.each([
    ['quantity("10Mo")', /^quantities must match the regular expression/],
    ['quantity("10Mm")', /^unable to parse quantity's suffix$/],
    ['quantity("")', /^quantities must match the regular expression '\^\(\[\+-\]\?\[0-9\.\]\+\)/],
    ['quantity("9999999999999999999999999999999999999G").asInteger()', /^cannot convert value to integer$/],
    ['quantity("0.5").asInteger()', /^cannot convert value to integer$/],
  ])('%s fails', (expr, msg) => {
    expect(evalError(expr)).toMatch(msg);
  });

  it('declares sign as a global function, as kube does', () => {
    expect(evaluateExpression('quantity("1").sign()').compileError).toContain("found no matching overload for 'sign'");
    expect(evaluateExpression('isQuantity([1, 2, 3])').compileError).toContain("found no matching overload for 'isQuantity' applied to");
  });

  it.each([
    ['12Mi', '12Mi'],
    ['1.5Gi', '1536Mi'],
    ['1024Ki', '1Mi'],
    ['0.5Gi', '512Mi'],
    ['0.1', '100m'],
    ['1000', '1k'],
    ['1e3', '1e3'],
    ['0', '0'],
    ['100m', '100m'],
    ['1n', '1n'],
    ['0.0000000001', '1n'],
    ['-0.0000000001', '-1n'],
    ['10', '10'],
    ['500Ki', '500Ki'],
  ])('canonicalizes %s as %s', (input, want) => {
    expect(q(input).toString()).toBe(want);
  });

  it('follows apimachinery arithmetic: zero takes the other format, int64 overflow moves to inf.Dec', () => {
    expect(q('0').add(q('1Ki')).toString()).toBe('1Ki');
    const big = q('9223372036854775807').add(Quantity.fromInt64(1n));
    expect(big.asInt64()).toBeUndefined();
    expect(big.cmp(q('9223372036854775808'))).toBe(0);
    expect(q('1k').sub(q('1')).toString()).toBe('999');
  });

  it('caps binary quantities at int64 and rounds sub-nano values up', () => {
    expect(q('8Ei').cmp(q('9223372036854775807'))).toBe(0);
    expect(q('1.0000000001').cmp(q('1.000000001'))).toBe(0);
  });
});
