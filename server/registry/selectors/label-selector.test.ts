import { StatusError } from '../../api/errors.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import {
  labelSelectorAsSelector,
  labelSelectorMatches,
  parseLabelSelector,
  parseLabelSelectorQuery,
  validateLabelSelector,
  type LabelSelectorLike,
} from './label-selector.js';

const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function parsed(s: string) {
  const p = parseLabelSelector(s);
  if (!p.ok) throw new Error(`unexpected parse error: ${p.message}`);
  return p.selector;
}

describe('parseLabelSelector: valid selectors and their canonical form', () => {
  it.each([
    ['', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c,x=a', 'x=a,z=c'],
    [' x = a , y != b ', 'x=a,y!=b'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['x', 'x'],
    ['!x', '!x'],
    ['x,!y', 'x,!y'],
    ['x in (a)', 'x in (a)'],
    ['x in (c,b,a)', 'x in (a,b,c)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in ()', 'x in ()'],
    ['x notin (a)', 'x notin (a)'],
    ['x in (in,notin)', 'x in (in,notin)'],
    ['in', 'in'],
    ['x>1', 'x>1'],
    ['x < 5', 'x<5'],
    ['example.com/app=web', 'example.com/app=web'],
    ['x=a\ty=b'.replace('\t', ','), 'x=a,y=b'],
  ])('%j → %j', (input, canonical) => {
    expect(parsed(input).toString()).toBe(canonical);
  });
});

describe('parseLabelSelector: errors as kube prints them', () => {
  it.each([
    ['x=a,', "found '', expected: identifier after ','"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x in (a,b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a:b=c', `unable to parse requirement: <nil>: Invalid value: "a:b": ${namePartMsg}`],
    ['x=a$b', `unable to parse requirement: values[0][x]: Invalid value: "a$b": ${labelValueMsg}`],
    ['x>a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${labelValueMsg}`],
  ])('%j', (input, message) => {
    expect(parseLabelSelector(input)).toEqual({ ok: false, message });
  });
});

describe('Selector.matches', () => {
  it.each<[string, Record<string, string> | undefined, boolean]>([
    ['', undefined, true],
    ['', { a: 'b' }, true],
    ['x=a', { x: 'a' }, true],
    ['x=a', { x: 'b' }, false],
    ['x=a', {}, false],
    ['x==a', { x: 'a' }, true],
    ['x!=a', { x: 'b' }, true],
    ['x!=a', {}, true],
    ['x!=a', { x: 'a' }, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x', { x: '' }, true],
    ['x', {}, false],
    ['!x', {}, true],
    ['!x', { x: '' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'two' }, false],
    ['x<1', { x: '-5' }, true],
    ['x=a,y=b', { x: 'a', y: 'b' }, true],
    ['x=a,y=b', { x: 'a' }, false],
  ])('%j matches %j: %s', (sel, labels, expected) => {
    expect(parsed(sel).matches(labels)).toBe(expected);
  });

  it('does not read inherited properties as labels', () => {
    expect(parsed('toString').matches({})).toBe(false);
  });
});

describe('parseLabelSelectorQuery', () => {
  it('treats an absent selector as everything', () => {
    expect(parseLabelSelectorQuery(undefined).empty()).toBe(true);
  });

  it('answers a bad selector with 400 BadRequest and kube’s message', () => {
    let caught: unknown;
    try {
      parseLabelSelectorQuery('x in (a');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StatusError);
    const err = caught as StatusError;
    expect(err.code).toBe(400);
    expect(err.reason).toBe('BadRequest');
    expect(err.status.message).toBe("unable to parse requirement: found '', expected: ',' or ')'");
  });
});

describe('metav1.LabelSelector', () => {
  it.each<[string, LabelSelectorLike | null | undefined, Record<string, string>, boolean]>([
    ['nil matches everything', undefined, { a: 'b' }, true],
    ['empty matches everything', {}, {}, true],
    ['matchLabels must all match', { matchLabels: { a: 'b', c: 'd' } }, { a: 'b', c: 'd', e: 'f' }, true],
    ['matchLabels mismatch', { matchLabels: { a: 'b' } }, { a: 'c' }, false],
    ['In', { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] }, { env: 'prod' }, true],
    ['NotIn with the label absent', { matchExpressions: [{ key: 'runlevel', operator: 'NotIn', values: ['0', '1'] }] }, {}, true],
    ['NotIn with a listed value', { matchExpressions: [{ key: 'runlevel', operator: 'NotIn', values: ['0', '1'] }] }, { runlevel: '0' }, false],
    ['Exists', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' }, false],
    ['labels and expressions are ANDed', { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] }, { a: 'b' }, false],
    ['an operator named like an Object method is still unknown', { matchExpressions: [{ key: 'a', operator: 'toString' }] }, { a: '' }, false],
    ['an unknown operator matches nothing', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, { a: '5' }, false],
  ])('%s', (_name, sel, labels, expected) => {
    expect(labelSelectorMatches(sel, labels)).toBe(expected);
  });

  it('reports an unknown operator as kube’s LabelSelectorAsSelector does', () => {
    expect(labelSelectorAsSelector({ matchExpressions: [{ key: 'a', operator: 'Foo' }] })).toEqual({ ok: false, message: '"Foo" is not a valid label selector operator' });
  });

  it('renders as the query-string form', () => {
    const s = labelSelectorAsSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db', 'cache'] }] });
    expect(s.ok && s.selector.toString()).toBe('app=web,tier notin (cache,db)');
  });
});

describe('validateLabelSelector', () => {
  const path = FieldPath.root('webhooks').index(0).child('namespaceSelector');
  it.each<[string, LabelSelectorLike | undefined, string[]]>([
    ['accepts nil', undefined, []],
    ['accepts an empty selector', {}, []],
    ['accepts a valid selector', { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['d'] }] }, []],
    [
      'requires values for In',
      { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
      ["webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    [
      'requires values for NotIn',
      { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
      ["webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    [
      'forbids values for Exists',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      ["webhooks[0].namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ],
    [
      'rejects an unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      ['webhooks[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator'],
    ],
    [
      'checks keys and values',
      { matchLabels: { 'a b': 'c d' }, matchExpressions: [{ key: '-k', operator: 'In', values: ['ok', 'n o'] }] },
      [
        `webhooks[0].namespaceSelector.matchLabels: Invalid value: "a b": ${namePartMsg}`,
        `webhooks[0].namespaceSelector.matchLabels: Invalid value: "c d": ${labelValueMsg}`,
        `webhooks[0].namespaceSelector.matchExpressions[0].key: Invalid value: "-k": ${namePartMsg}`,
        `webhooks[0].namespaceSelector.matchExpressions[0].values[1]: Invalid value: "n o": ${labelValueMsg}`,
      ],
    ],
  ])('%s', (_name, sel, expected) => {
    expect(validateLabelSelector(sel, path).map(formatFieldError)).toEqual(expected);
  });

  it('tolerates invalid values when told to, as kube does for stored objects', () => {
    expect(validateLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: ['n o'] }] }, path, { allowInvalidLabelValueInSelector: true })).toEqual([]);
  });
});
