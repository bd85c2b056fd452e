import { CelError, fromJSON } from '../engine/values.js';
import { evalError, evalValue, evaluateExpression, evaluateInBaseEnvironment } from './library-test-env.js';
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

  it('uses RE2 syntax and reports Go parse errors of a pattern computed at runtime', () => {
    expect(evalValue(`'abc'.find('(?i)B')`)).toBe('b');
    expect(evalError(`'abc'.find(p)`, { p: ')' })).toBe('Illegal regex: error parsing regexp: unexpected ): `)`');
    expect(evalError(`'abc'.findAll(p, 1)`, { p: 'x++' })).toBe('Illegal regex: error parsing regexp: invalid nested repetition operator: `++`');
  });

  // regex.go FindRegexOptimization / FindAllRegexOptimization: a constant pattern is compiled when the program is
  // built, so kube's compiler (plugin/cel/compile.go) fails with "program instantiation failed: <regexp error>"
  it('fails program creation for an invalid constant pattern of find and findAll', () => {
    expect(evaluateExpression(`'abc'.find(')')`).compileError).toBe('program instantiation failed: error parsing regexp: unexpected ): `)`');
    expect(evaluateExpression(`'abc'.findAll('x++', 1)`).compileError).toBe(
      'program instantiation failed: error parsing regexp: invalid nested repetition operator: `++`',
    );
    expect(evaluateExpression(`'abc'.findAll('[')`).compileError).toBe('program instantiation failed: error parsing regexp: missing closing ]: `[`');
  });

  // cel-go cel/validator.go ValidateRegexLiterals (kube's base environment since 1.29): the pattern of `matches`
  it('rejects an invalid constant matches pattern at compile time in the base environment', () => {
    expect(evaluateInBaseEnvironment(`'abc'.matches('[')`).compileError).toBe("ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('[')\n | ..............^");
    expect(evaluateInBaseEnvironment(`matches('abc', '(')`).compileError).toBe('program instantiation failed: error parsing regexp: missing closing ): `(`');
    expect(evaluateInBaseEnvironment(`'abc'.matches(p)`, { p: '[' }).value).toEqual(new CelError('error parsing regexp: missing closing ]: `[`'));
    expect(evaluateInBaseEnvironment(`'abc'.matches('^a')`).value).toBe(true);
  });
});
