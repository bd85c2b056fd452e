import type { JSONSchemaProps, ValidationRule } from '../../api/apiextensions.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import { compileSchemaValidations } from './index.js';

const root = FieldPath.root('spec', 'versions').index(0).child('schema', 'openAPIV3Schema');
const errorsOf = (schema: JSONSchemaProps, opts: { skipCompilation?: boolean } = {}): string[] =>
  compileSchemaValidations(schema, { fldPath: root, ...opts }).errors.map(formatFieldError);

/** A CR schema whose `spec` (an object with replicas/maxReplicas/name/items) carries the rules. */
function specWith(rules: ValidationRule[], extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          name: { type: 'string', maxLength: 63 },
          items: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } },
        },
        'x-kubernetes-validations': rules,
        ...extra,
      },
    },
  };
}

const P = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';
const goRule = (rule: string, more = ''): string =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${JSON.stringify(more)}, ` +
  `Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

describe('compileSchemaValidations: CRD-time errors', () => {
  it('accepts valid rules and builds a validator', () => {
    const r = compileSchemaValidations(specWith([{ rule: 'self.replicas <= self.maxReplicas', message: 'too many' }]), { fldPath: root });
    expect(r.errors).toEqual([]);
    expect(r.validator.hasRules).toBe(true);
  });

  it('reports no rules for a schema without x-kubernetes-validations', () => {
    const r = compileSchemaValidations({ type: 'object', properties: { spec: { type: 'object' } } }, { fldPath: root });
    expect(r.errors).toEqual([]);
    expect(r.validator.hasRules).toBe(false);
  });

  it.each<[string, ValidationRule, string[]]>([
    ['an empty rule', { rule: '  ' }, [`${P}.rule: Required value: rule is not specified`]],
    ['a blank message', { rule: 'true', message: ' ' }, [`${P}.message: Invalid value: " ": message must be non-empty if specified`]],
    ['a multi-line message', { rule: 'true', message: 'a\nb' }, [`${P}.message: Invalid value: "a\\nb": message must not contain line breaks`]],
    ['a multi-line rule without message', { rule: 'true &&\ntrue' }, [`${P}.message: Required value: message must be specified if rule contains line breaks`]],
    ['a blank messageExpression', { rule: 'true', messageExpression: ' ' }, [`${P}.messageExpression: Required value: messageExpression must be non-empty if specified`]],
    [
      'an unsupported reason',
      { rule: 'true', reason: 'FieldValueBogus' as ValidationRule['reason'] },
      [`${P}.reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`],
    ],
    ['a fieldPath to no field', { rule: 'true', fieldPath: '.replicaz' }, [`${P}.fieldPath: Invalid value: ".replicaz": fieldPath must be a valid path`]],
    ['a fieldPath without leading dot', { rule: 'true', fieldPath: 'replicas' }, [`${P}.fieldPath: Invalid value: "replicas": fieldPath must be a valid path`]],
  ])('rejects %s', (_name, rule, want) => {
    expect(errorsOf(specWith([rule]))).toEqual(want);
  });

  it('accepts fieldPaths with dots and quoted keys', () => {
    const schema = specWith([{ rule: 'true', fieldPath: ".replicas" }, { rule: 'true', fieldPath: "['name']" }]);
    expect(errorsOf(schema)).toEqual([]);
  });

  it('reports a syntax error with cel-go text and the rule as Go prints it', () => {
    expect(errorsOf(specWith([{ rule: 'self.replicas <' }]))).toEqual([
      `${P}.rule: Invalid value: ${goRule('self.replicas <')}: compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.replicas <\n | ...............^`,
    ]);
  });

  it('reports an undeclared reference', () => {
    expect(errorsOf(specWith([{ rule: 'foo == 1' }]))).toEqual([
      `${P}.rule: Invalid value: ${goRule('foo == 1')}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^`,
    ]);
  });

  it('types self from the schema: a misspelled field fails at CRD create', () => {
    const [err, ...rest] = errorsOf(specWith([{ rule: 'self.replicass > 0' }]));
    expect(rest).toEqual([]);
    expect(err).toBe(
      `${P}.rule: Invalid value: ${goRule('self.replicass > 0')}: compilation failed: ERROR: <input>:1:5: undefined field 'replicass'\n | self.replicass > 0\n | ....^`,
    );
  });

  it('gives root rules apiVersion, kind and metadata.name but not the rest of metadata', () => {
    const root: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object' } }, 'x-kubernetes-validations': [{ rule: "self.metadata.name != '' && self.kind == 'Widget'" }] };
    expect(errorsOf(root)).toEqual([]);
    root['x-kubernetes-validations'] = [{ rule: "has(self.metadata.labels)" }];
    expect(errorsOf(root)[0]).toContain("undefined field 'labels'");
  });

  it('reports a rule on a schema CEL cannot type as kube does', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { raw: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } } };
    expect(errorsOf(schema)).toEqual([
      "spec.versions[0].schema.openAPIV3Schema.properties[raw].x-kubernetes-validations: Internal error: rule declared on schema that does not support validation rules type: '' x-kubernetes-preserve-unknown-fields: 'true'",
    ]);
  });

  it('rejects a rule that is not a boolean', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self + 1' }] } } };
    expect(errorsOf(schema)).toEqual([
      `spec.versions[0].schema.openAPIV3Schema.properties[n].x-kubernetes-validations[0].rule: Invalid value: ${goRule('self + 1')}: cel expression must evaluate to a bool`,
    ]);
  });

  it('type-checks scalar self: comparing an integer with a string fails at CRD create', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: "self < 'a'" }] } } };
    const [err] = errorsOf(schema);
    expect(err).toContain("compilation failed: ERROR: <input>:1:6: found no matching overload for '_<_' applied to '(int, string)'");
  });

  it('rejects a messageExpression that does not compile or is not a string', () => {
    const bad = errorsOf(specWith([{ rule: 'true', messageExpression: "'x' +" }]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/\.x-kubernetes-validations\[0\]\.messageExpression: Invalid value: apiextensions\.ValidationRule\{.*\}: messageExpression compilation failed: ERROR: <input>:1:6: Syntax error/);
    const n: JSONSchemaProps = { type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', messageExpression: 'self' }] } } };
    expect(errorsOf(n)[0]).toMatch(/properties\[n\]\.x-kubernetes-validations\[0\]\.messageExpression: Invalid value: .*: messageExpression must evaluate to a string$/);
  });

  it('forbids oldSelf below an atomic list, naming the list', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } },
    };
    expect(errorsOf(schema)).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[0].schema.openAPIV3Schema.properties[list]',
    ]);
  });

  it('allows oldSelf on items of a list-type=map', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        },
      },
    };
    expect(errorsOf(schema)).toEqual([]);
  });

  it('rejects optionalOldSelf on a rule that does not use oldSelf', () => {
    expect(errorsOf(specWith([{ rule: 'self.replicas > 0', optionalOldSelf: true }]))).toEqual([`${P}.optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`]);
    expect(errorsOf(specWith([{ rule: 'oldSelf.hasValue()', optionalOldSelf: true }]))).toEqual([]);
  });

  it('forbids a rule whose estimated cost times its cardinality exceeds the limit', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] },
        },
      },
    };
    const errs = errorsOf(schema);
    expect(errs).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    expect(errs).toContain(
      'spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
  });

  it('accepts the same rule once the lists are bounded', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          maxItems: 10,
          items: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] },
        },
      },
    };
    expect(errorsOf(schema)).toEqual([]);
  });

  it('only runs the static checks when compilation is skipped (non-structural schema)', () => {
    expect(errorsOf(specWith([{ rule: 'self.replicas <' }, { rule: ' ' }]), { skipCompilation: true })).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Required value: rule is not specified',
    ]);
  });

  it('does not compile rules of a node with static errors, as kube skips CEL there', () => {
    expect(errorsOf(specWith([{ rule: 'self.replicas <' }, { rule: '' }]))).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Required value: rule is not specified',
    ]);
  });
});
