import { isQualifiedName, isValidLabelValue } from '../../registry/validation/name.js';
import type { AdmissionAttributes } from '../attributes.js';
import { matchNamespaceSelector, matchObjectSelector, parseWebhookSelector } from './selectors.js';

type Attrs = Pick<AdmissionAttributes, 'resource' | 'subresource' | 'operation' | 'namespace' | 'name' | 'object' | 'oldObject'>;

function attrs(over: Partial<Attrs> = {}): Attrs {
  return {
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    operation: 'CREATE',
    namespace: 'team-a',
    name: 'cm',
    object: { metadata: { name: 'cm', labels: {} } },
    oldObject: undefined,
    ...over,
  };
}
const nsAttrs = (over: Partial<Attrs> = {}): Attrs =>
  attrs({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '', name: 'team-a', object: { metadata: { name: 'team-a', labels: { env: 'prod' } } }, ...over });

describe('parseWebhookSelector: metav1.LabelSelectorAsSelector with labels.NewRequirement checks', () => {
  it.each([
    ['an empty selector selects everything', {}, { env: 'x' }, true],
    ['matchLabels', { matchLabels: { env: 'prod' } }, { env: 'prod' }, true],
    ['matchLabels mismatch', { matchLabels: { env: 'prod' } }, { env: 'dev' }, false],
    ['In', { matchExpressions: [{ key: 'env', operator: 'In', values: ['a', 'b'] }] }, { env: 'b' }, true],
    ['NotIn without the label', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['a'] }] }, {}, true],
    ['Exists', { matchExpressions: [{ key: 'env', operator: 'Exists' }] }, { env: '' }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, { env: '' }, false],
  ])('%s', (_name, sel, labels, want) => {
    const p = parseWebhookSelector(sel);
    expect(p.ok && p.selector.matches(labels)).toBe(want);
  });

  it('selects nothing for an absent selector, as kube does for a nil one', () => {
    const p = parseWebhookSelector(undefined);
    expect(p.ok && p.selector.empty()).toBe(false);
    expect(p.ok && p.selector.matches({})).toBe(false);
  });

  it.each([
    ['an unknown operator', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] }, 'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist'],
    ['an invalid key', { matchLabels: { 'a b': 'x' } }, `key: Invalid value: "a b": ${isQualifiedName('a b').join('; ')}`],
    ['an invalid value', { matchExpressions: [{ key: 'a', operator: 'In', values: ['-x'] }] }, `values[0][a]: Invalid value: "-x": ${isValidLabelValue('-x').join('; ')}`],
  ])('reports %s with kube\'s message', (_name, sel, message) => {
    expect(parseWebhookSelector(sel)).toEqual({ ok: false, message });
  });
});

describe('parseWebhookSelector on configuration that cannot change (deep-frozen, as the admission sources hold it)', () => {
  const deepFrozen = <T>(v: T): T => {
    if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v)) deepFrozen(x);
      Object.freeze(v);
    }
    return v;
  };

  it('parses a frozen selector once: the same answer, the same selector, for valid and invalid ones', () => {
    const valid = deepFrozen({ matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] });
    const first = parseWebhookSelector(valid);
    expect(parseWebhookSelector(valid)).toBe(first);
    expect(first.ok && first.selector.matches({ env: 'prod', tier: 'a' })).toBe(true);
    const invalid = deepFrozen({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] });
    expect(parseWebhookSelector(invalid)).toBe(parseWebhookSelector(invalid));
    expect(parseWebhookSelector(invalid)).toEqual({ ok: false, message: '"Gt" is not a valid label selector operator' });
  });

  it('parses again a selector that can change, or whose parts can, and sees the change', () => {
    const open: { matchLabels: Record<string, string> } = { matchLabels: { env: 'prod' } };
    const before = parseWebhookSelector(open);
    open.matchLabels['env'] = 'dev';
    const after = parseWebhookSelector(open);
    expect(after).not.toBe(before);
    expect(after.ok && after.selector.matches({ env: 'dev' })).toBe(true);

    const values = ['a'];
    const outerOnly = Object.freeze({ matchExpressions: Object.freeze([Object.freeze({ key: 'tier', operator: 'In', values })]) });
    expect(parseWebhookSelector(outerOnly)).not.toBe(parseWebhookSelector(outerOnly));
    values[0] = 'b';
    const changed = parseWebhookSelector(outerOnly);
    expect(changed.ok && changed.selector.matches({ tier: 'b' })).toBe(true);
  });
});

describe('namespaceSelector', () => {
  const prodOnly = { matchLabels: { env: 'prod' } };

  it('never exempts cluster-scoped resources other than namespaces', () => {
    const r = matchNamespaceSelector(prodOnly, attrs({ resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }, namespace: '' }), undefined);
    expect(r).toEqual({ matches: true });
  });

  it('matches a namespaced request on its namespace\'s labels', () => {
    expect(matchNamespaceSelector(prodOnly, attrs(), { env: 'prod' })).toEqual({ matches: true });
    expect(matchNamespaceSelector(prodOnly, attrs(), { env: 'dev' })).toEqual({ matches: false });
  });

  it('does not look the namespace up for an empty selector', () => {
    expect(matchNamespaceSelector({}, attrs(), undefined)).toEqual({ matches: true });
  });

  it('answers 404 when the namespace does not exist', () => {
    expect(matchNamespaceSelector(prodOnly, attrs(), undefined)).toEqual({
      matches: false,
      error: { code: 404, reason: 'NotFound', message: 'namespaces "team-a" not found' },
    });
  });

  it.each(['CREATE', 'UPDATE'] as const)('matches a Namespace %s on its own new labels', (operation) => {
    expect(matchNamespaceSelector(prodOnly, nsAttrs({ operation }), { env: 'dev' })).toEqual({ matches: true });
    expect(matchNamespaceSelector(prodOnly, nsAttrs({ operation, object: { metadata: { name: 'team-a' } } }), { env: 'prod' })).toEqual({ matches: false });
  });

  it('matches a Namespace DELETE and its subresources on the stored labels', () => {
    expect(matchNamespaceSelector(prodOnly, nsAttrs({ operation: 'DELETE', object: undefined }), { env: 'prod' })).toEqual({ matches: true });
    expect(matchNamespaceSelector(prodOnly, nsAttrs({ operation: 'UPDATE', subresource: 'status' }), { env: 'dev' })).toEqual({ matches: false });
    expect(matchNamespaceSelector(prodOnly, nsAttrs({ operation: 'DELETE', object: undefined }), undefined)).toMatchObject({ error: { message: 'namespaces "team-a" not found' } });
  });

  it('answers 500 for a selector that does not convert', () => {
    expect(matchNamespaceSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }, attrs(), {})).toEqual({
      matches: false,
      error: { code: 500, reason: 'InternalError', message: 'Internal error occurred: "Bad" is not a valid label selector operator' },
    });
  });
});

describe('objectSelector', () => {
  const sel = { matchLabels: { check: 'yes' } };
  const labelled = (labels: Record<string, string>) => ({ metadata: { labels } });

  it.each([
    ['the new object matches', labelled({ check: 'yes' }), undefined, true],
    ['neither matches', labelled({ check: 'no' }), labelled({}), false],
    ['only the old object matches (label removed by an update)', labelled({}), labelled({ check: 'yes' }), true],
    ['a DELETE whose old object matches', undefined, labelled({ check: 'yes' }), true],
    ['no objects at all', undefined, undefined, false],
  ])('%s', (_name, object, oldObject, want) => {
    expect(matchObjectSelector(sel, { object, oldObject })).toEqual({ matches: want });
  });

  it('matches everything with an empty selector', () => {
    expect(matchObjectSelector({}, { object: undefined, oldObject: undefined })).toEqual({ matches: true });
  });

  it('answers 500 for a selector that does not convert', () => {
    expect(matchObjectSelector({ matchLabels: { 'a/b/c': 'x' } }, { object: labelled({}), oldObject: undefined })).toMatchObject({ matches: false, error: { code: 500 } });
  });
});
