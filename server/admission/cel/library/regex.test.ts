import { fromJSON } from '../engine/values.js';
import { evalError, evalValue } from './library-test-env.js';
import { find, findAll } from './regex.js';

// kube's TestValidationExpressions "stdlib regex functions" (apiextensions-apiserver schema/cel/validation_test.go)
describe('regex library', () => {
  const self = { str: 'this is a 123 string 456' };
  it.each([
    `self.str.find('[0-9]+') == '123'`,
    `self.str.find('[0-9]+') != '456'`,
    `self.str.find('xyz') == ''`,
    `self.str.findAll('[0-9]+') == ['123', '456']`,
    `self.str.findAll('[0-9]+', 0) == []`,
    `self.str.findAll('[0-9]+', 1) == ['123']`,
    `self.str.findAll('[0-9]+', 2) == ['123', '456']`,
    `self.str.findAll('[0-9]+', 3) == ['123', '456']`,
    `self.str.findAll('[0-9]+', -1) == ['123', '456']`,
    `self.str.findAll('xyz') == []`,
    `self.str.findAll('xyz', 1) == []`,
    `'a 1 b 2'.find('[0-9]') == '1'`,
  ])('%s', (expr) => {
    expect(evalValue(expr, { self: fromJSON(self) })).toBe(true);
  });

  it('follows Go: the leftmost match wins even when empty, and findAll skips empty matches right after a match', () => {
    expect(find('abc 123', '[0-9]*')).toBe('');
    expect(findAll('123 abc 456', '[0-9]*')).toEqual(['123', '', '', '', '', '456']);
    expect(findAll('baaab', 'a*')).toEqual(['', 'aaa', '']);
    expect(findAll('a😀b', '')).toEqual(['', '', '', '']);
  });

  it('uses RE2 syntax and reports Go parse errors', () => {
    expect(evalValue(`'abc'.find('(?i)B')`)).toBe('b');
    expect(evalError(`'abc'.find(')')`)).toBe('Illegal regex: error parsing regexp: unexpected ): `)`');
    expect(evalError(`'abc'.findAll('x++', 1)`)).toBe('Illegal regex: error parsing regexp: invalid nested repetition operator: `++`');
  });
});
