import { checkJsonNesting, exceedsNestingDepth, jsonDepthError, managedFieldsExtraDepth, maxNestingDepth, objectExceedsNestingDepth } from './nesting-depth.js';

const nested = (n: number, open = '[', close = ']', inner = '') => open.repeat(n) + inner + close.repeat(n);

describe('checkJsonNesting (a linear scan before any parser)', () => {
  it.each([
    ['{}', 1],
    ['[[], [[]]]', 3],
    ['{"a":{"b":[1,{"c":null}]}}', 4],
    ['"[[[["', 0],
    ['{"k\\"[[[":"]]]"}', 1],
    ['{"k":"\\\\"}', 1],
  ])('%s nests %d levels', (text, depth) => {
    expect(checkJsonNesting(Buffer.from(text))).toEqual({ ok: true, depth });
    expect(checkJsonNesting(text)).toEqual({ ok: true, depth });
  });

  it('accepts a body exactly at the limit and refuses one level more, as Go\'s scanner words it', () => {
    expect(checkJsonNesting(nested(maxNestingDepth))).toEqual({ ok: true, depth: maxNestingDepth });
    const over = checkJsonNesting(`{"a":${nested(maxNestingDepth, '{"a":', '}', '1')}}`);
    expect(over).toMatchObject({ ok: false, char: '{' });
    expect(over.ok ? '' : jsonDepthError(over)).toBe("invalid character '{' exceeded max depth");
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const s = JSON.stringify({ k: '['.repeat(maxNestingDepth * 2) + '"' + '{'.repeat(maxNestingDepth) });
    expect(checkJsonNesting(s)).toEqual({ ok: true, depth: 1 });
  });

  it('scans malformed text too (closing brackets without openers do not go below zero)', () => {
    expect(checkJsonNesting(']]]]' + nested(3))).toEqual({ ok: true, depth: 3 });
    expect(checkJsonNesting('['.repeat(maxNestingDepth + 1)).ok).toBe(false);
  });
});

describe('exceedsNestingDepth (decoded values)', () => {
  const deep = (n: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  it('counts objects and arrays, the value itself being level 1', () => {
    expect(exceedsNestingDepth(1, 0)).toBe(false);
    expect(exceedsNestingDepth({}, 0)).toBe(true);
    expect(exceedsNestingDepth(deep(maxNestingDepth))).toBe(false);
    expect(exceedsNestingDepth(deep(maxNestingDepth + 1))).toBe(true);
  });
  it('walks without recursion, so a value far deeper than the stack allows is measured', () => {
    expect(exceedsNestingDepth(deep(200_000))).toBe(true);
  });
});

describe('objectExceedsNestingDepth (a patched object: managedFields nest deeper than the fields they track)', () => {
  const nested = (n: number): unknown => {
    let v: unknown = {};
    for (let i = 1; i < n; i++) v = { a: v };
    return v;
  };
  // the object itself is level 1, zz's maps the levels below it
  const object = (fieldLevels: number, managedFieldsLevels: number) => ({
    metadata: { name: 'x', managedFields: [{ fieldsV1: nested(managedFieldsLevels - 4) }] },
    zz: nested(fieldLevels - 1),
  });
  it.each([
    [maxNestingDepth, maxNestingDepth + managedFieldsExtraDepth, false],
    [maxNestingDepth + 1, 10, true],
    [10, maxNestingDepth + managedFieldsExtraDepth + 1, true],
    [10, 10, false],
  ])('fields nesting %d levels, managedFields %d: %s', (fields, managed, want) => {
    expect(exceedsNestingDepth(object(fields, 2))).toBe(fields > maxNestingDepth);
    expect(objectExceedsNestingDepth(object(fields, managed))).toBe(want);
  });
});
