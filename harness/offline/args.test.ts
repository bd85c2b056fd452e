import { lastValue, listValues, splitOwnFlags, type OwnFlag } from './args.js';

const flags: OwnFlag[] = [
  { name: 'object', takesValue: true },
  { name: 'groups', takesValue: true },
  { name: 'dry-run', takesValue: false },
  { name: 'output', short: 'o', takesValue: true },
];

describe('splitOwnFlags', () => {
  it.each([
    [['--object', 'a.yaml'], { object: ['a.yaml'] }, []],
    [['--object=a.yaml', '-o', 'json'], { object: ['a.yaml'], output: ['json'] }, []],
    [['-o=json', '--dry-run'], { output: ['json'], 'dry-run': ['true'] }, []],
    [['--dry-run=false'], { 'dry-run': ['false'] }, []],
    [['--feature-gates', 'A=true', '--object', 'x'], { object: ['x'] }, ['--feature-gates', 'A=true']],
    [['--admission-control-config-file=/c.yaml', '--groups=a,b', '--groups', 'c'], { groups: ['a,b', 'c'] }, ['--admission-control-config-file=/c.yaml']],
  ])('splits %j', (args, own, rest) => {
    const split = splitOwnFlags(args, flags);
    expect(split.errors).toEqual([]);
    expect(Object.fromEntries(split.own)).toEqual(own);
    expect(split.rest).toEqual(rest);
  });

  it('reports a value flag at the end and a switch with a non-boolean value', () => {
    expect(splitOwnFlags(['--object'], flags).errors).toEqual(['flag needs an argument: --object']);
    expect(splitOwnFlags(['--dry-run=maybe'], flags).errors).toEqual(['invalid argument "maybe" for "--dry-run" flag: must be true or false']);
  });

  it('takes the last value of a flag and splits comma lists', () => {
    const split = splitOwnFlags(['-o', 'text', '--output=json', '--groups=a, b', '--groups', 'c'], flags);
    expect(lastValue(split, 'output')).toBe('json');
    expect(listValues(split, 'groups')).toEqual(['a', 'b', 'c']);
  });
});
