import type { JSONSchemaProps, ValidationRule } from '../../api/apiextensions.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import { compileNodeRules } from './compiled-rules.js';
import { compileSchemaValidations } from './index.js';
import { buildRuleNode } from './rule-tree.js';
import { RuleTreeValidator } from './rule-validator.js';

const fldPath = FieldPath.root('spec', 'versions').index(0).child('schema', 'openAPIV3Schema');

function validatorFor(schema: JSONSchemaProps) {
  const r = compileSchemaValidations(schema, { fldPath });
  expect(r.errors.map(formatFieldError)).toEqual([]);
  return r.validator;
}

function run(schema: JSONSchemaProps, obj: unknown, old?: unknown): { errors: string[]; warnings: string[] } {
  const out = validatorFor(schema).validate(obj, old);
  return { errors: out.errors.map(formatFieldError), warnings: out.warnings };
}

/** A custom resource whose spec has the rules given. */
function crd(specRules: ValidationRule[], specProps: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          ...specProps,
        },
        'x-kubernetes-validations': specRules,
      },
    },
  };
}

const cr = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

describe('CustomResourceRuleValidator: self rules', () => {
  const schema = crd([{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }]);

  it('passes a valid object', () => {
    expect(run(schema, cr({ replicas: 1, maxReplicas: 2 }))).toEqual({ errors: [], warnings: [] });
  });

  it('fails with kube’s error: the path, the schema type as value, the message', () => {
    expect(run(schema, cr({ replicas: 3, maxReplicas: 2 })).errors).toEqual(['spec: Invalid value: "object": replicas must not exceed maxReplicas']);
  });

  it('defaults the message to "failed rule: <rule>"', () => {
    expect(run(crd([{ rule: 'self.replicas > 0' }]), cr({ replicas: 0 })).errors).toEqual(['spec: Invalid value: "object": failed rule: self.replicas > 0']);
  });

  it('reports a runtime error with the rule', () => {
    expect(run(crd([{ rule: 'self.replicas > 0' }]), cr({})).errors).toEqual(['spec: Invalid value: "object": no such key: replicas evaluating rule: self.replicas > 0']);
  });

  it('skips absent and null values', () => {
    expect(run(schema, { apiVersion: 'v', kind: 'k', metadata: {} }).errors).toEqual([]);
    expect(run(schema, { spec: null }).errors).toEqual([]);
  });

  it('evaluates rules on scalars, list items and map values at their paths', () => {
    const s = crd([], {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.startsWith('w')", message: 'must start with w' }] },
      items: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 5' }] } } },
      },
      labels: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != ''", message: 'empty' }] } },
    });
    expect(run(s, cr({ name: 'x', items: [{ name: 'ok' }, { name: 'too-long' }], labels: { a: 'b', c: '' } })).errors).toEqual([
      'spec.name: Invalid value: "string": must start with w',
      'spec.items[1].name: Invalid value: "string": failed rule: self.size() < 5',
      'spec.labels[c]: Invalid value: "string": empty',
    ]);
  });

  it('sees the root’s apiVersion, kind and metadata.name', () => {
    const s: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object' } }, 'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w-')" }] };
    // the root's path is empty, so the error has no field prefix
    expect(run(s, cr({})).errors).toEqual([`Invalid value: "object": failed rule: self.metadata.name.startsWith('w-')`]);
  });

  it('converts formatted strings: date-time to timestamp, duration to duration, byte to bytes', () => {
    const s = crd([], {
      ts: { type: 'string', format: 'date-time', 'x-kubernetes-validations': [{ rule: "self < timestamp('2030-01-01T00:00:00Z')", message: 'too late' }] },
      d: { type: 'string', format: 'duration', 'x-kubernetes-validations': [{ rule: "self <= duration('1h')", message: 'too long' }] },
      b: { type: 'string', format: 'byte', 'x-kubernetes-validations': [{ rule: "self == b'hi'", message: 'not hi' }] },
      ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.5' }] },
    });
    expect(run(s, cr({ ts: '2029-12-31T23:59:59Z', d: '30m', b: 'aGk=', ratio: 1 })).errors).toEqual([]);
    expect(run(s, cr({ ts: '2030-06-01T00:00:00Z', d: '2h', b: 'aG8=', ratio: 2 })).errors).toEqual([
      'spec.ts: Invalid value: "string": too late',
      'spec.d: Invalid value: "string": too long',
      'spec.b: Invalid value: "string": not hi',
      'spec.ratio: Invalid value: "number": failed rule: self < 1.5',
    ]);
  });

  it('selects properties by their escaped names, and reserved words by their plain names', () => {
    const s = crd([{ rule: "self.namespace == 'ns' && self.foo__dash__bar == 1 && self.a__dot__b == 2", message: 'names' }], {
      namespace: { type: 'string' },
      'foo-bar': { type: 'integer' },
      'a.b': { type: 'integer' },
    });
    expect(run(s, cr({ namespace: 'ns', 'foo-bar': 1, 'a.b': 2 })).errors).toEqual([]);
    expect(run(s, cr({ namespace: 'ns', 'foo-bar': 1, 'a.b': 3 })).errors).toEqual(['spec: Invalid value: "object": names']);
  });

  it('evaluates rules in allOf on the node that holds them', () => {
    const s = crd([], { replicas: { type: 'integer', allOf: [{ 'x-kubernetes-validations': [{ rule: 'self % 2 == 0', message: 'even' }] }] } });
    expect(run(s, cr({ replicas: 2 })).errors).toEqual([]);
    expect(run(s, cr({ replicas: 3 })).errors).toEqual(['spec.replicas: Invalid value: "integer": even']);
  });

  it('keeps int-or-string dynamic: a mismatched operator is a runtime overload error', () => {
    const s = crd([], { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self > 0' }] } });
    expect(run(s, cr({ port: 80 })).errors).toEqual([]);
    const [err] = run(s, cr({ port: 'http' })).errors;
    expect(err).toMatch(/^spec\.port: Invalid value: "": 'no such overload.*': call arguments did not match a supported operator, function or macro signature for rule: self > 0$/);
  });
});

describe('CustomResourceRuleValidator: reason, fieldPath, messageExpression', () => {
  it.each<[ValidationRule['reason'], string]>([
    ['FieldValueForbidden', 'spec: Forbidden: no'],
    ['FieldValueRequired', 'spec: Required value: no'],
    ['FieldValueDuplicate', 'spec: Duplicate value: "object"'],
    ['FieldValueInvalid', 'spec: Invalid value: "object": no'],
  ])('reason %s', (reason, want) => {
    expect(run(crd([{ rule: 'false', message: 'no', reason }]), cr({})).errors).toEqual([want]);
  });

  it('reports at fieldPath below the rule’s node', () => {
    expect(run(crd([{ rule: 'self.replicas <= self.maxReplicas', fieldPath: '.replicas' }]), cr({ replicas: 2, maxReplicas: 1 })).errors).toEqual([
      'spec.replicas: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas',
    ]);
  });

  it('uses the messageExpression result, trimmed', () => {
    // string(self.replicas) would be rejected at CRD time, as in kube: a converted int has no size bound
    const s = crd([{ rule: 'self.replicas <= self.maxReplicas', messageExpression: "' replicas of ' + self.name + ' exceed the maximum '" }], {
      name: { type: 'string', maxLength: 63 },
    });
    expect(run(s, cr({ name: 'web', replicas: 3, maxReplicas: 2 })).errors).toEqual(['spec: Invalid value: "object": replicas of web exceed the maximum']);
  });

  it.each([
    ['empty', "''"],
    ['whitespace', "'  '"],
    ['an error', "'x' + self.missing"],
    ['multi-line', "'a\\nb'"],
  ])('falls back to the message when the messageExpression is %s', (_name, messageExpression) => {
    const s = crd([{ rule: 'false', message: 'static', messageExpression }], { missing: { type: 'string' } });
    expect(run(s, cr({})).errors).toEqual(['spec: Invalid value: "object": static']);
  });
});

describe('CustomResourceRuleValidator: transition rules', () => {
  const schema = crd([{ rule: 'self.replicas >= oldSelf.replicas', message: 'cannot scale down' }]);

  it('does not evaluate oldSelf rules on create', () => {
    expect(run(schema, cr({ replicas: 1 })).errors).toEqual([]);
  });

  it('blocks an invalid transition on update and allows a valid one', () => {
    expect(run(schema, cr({ replicas: 1 }), cr({ replicas: 2 })).errors).toEqual(['spec: Invalid value: "object": cannot scale down']);
    expect(run(schema, cr({ replicas: 3 }), cr({ replicas: 2 })).errors).toEqual([]);
  });

  it('does not evaluate where no old value correlates (a field added by the update)', () => {
    expect(run(schema, cr({ replicas: 1 }), { apiVersion: 'v', kind: 'k', metadata: {} }).errors).toEqual([]);
  });

  it('correlates list-type=map items by their keys', () => {
    const s = crd([], {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, port: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }],
        },
      },
    });
    const old = cr({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] });
    // reordered, b changed, c new (no old value: not evaluated)
    expect(run(s, cr({ ports: [{ name: 'b', port: 3 }, { name: 'a', port: 1 }, { name: 'c', port: 9 }] }), old).errors).toEqual([
      'spec.ports[0]: Invalid value: "object": port is immutable',
    ]);
  });

  it('evaluates optionalOldSelf rules on create with oldSelf absent', () => {
    const s = crd([{ rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true, message: 'no scale down' }]);
    expect(run(s, cr({ replicas: 1 })).errors).toEqual([]);
    expect(run(crd([{ rule: 'oldSelf.hasValue()', optionalOldSelf: true, message: 'update only' }]), cr({})).errors).toEqual([
      'spec: Invalid value: "object": update only',
    ]);
    expect(run(s, cr({ replicas: 1 }), cr({ replicas: 2 })).errors).toEqual(['spec: Invalid value: "object": no scale down']);
  });
});

describe('CustomResourceRuleValidator: ratcheting', () => {
  const schema = crd([{ rule: 'self.replicas < 10', message: 'too many' }]);

  it('turns the failure of an unchanged value into a warning on update', () => {
    expect(run(schema, cr({ replicas: 20 }), cr({ replicas: 20 }))).toEqual({ errors: [], warnings: ['spec: Invalid value: "object": too many'] });
  });

  it('still fails a changed value', () => {
    expect(run(schema, cr({ replicas: 21 }), cr({ replicas: 20 })).errors).toEqual(['spec: Invalid value: "object": too many']);
  });
});

describe('CustomResourceRuleValidator: cost', () => {
  it('stops when one evaluation exceeds the per-call limit', () => {
    const s = crd([], {
      list: {
        type: 'array',
        maxItems: 2000,
        items: { type: 'integer' },
        'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, true))', message: 'expensive' }],
      },
    });
    const big = Array.from({ length: 2000 }, (_, i) => i);
    // the CRD-time estimate rejects this rule; the runtime limit is what this test is about
    const validator = new RuleTreeValidator(buildRuleNode(s, s, true));
    const errs = validator.validate(cr({ list: big }), undefined).errors.map(formatFieldError);
    expect(errs).toEqual([
      "spec.list: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: expensive",
    ]);
  });

  it('stops with kube’s message once the budget of the custom resource is spent', () => {
    const s = crd([], { items: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'x'" }] } } });
    const validator = new RuleTreeValidator(buildRuleNode(s, s, true), 5);
    const errs = validator.validate(cr({ items: ['a', 'b', 'c', 'd', 'e'] }), undefined).errors.map(formatFieldError);
    expect(errs).toEqual(['spec.items[2]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run']);
  });

  it('reports a stored rule that does not compile at runtime', () => {
    const rules = compileNodeRules({ type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >' }] }, { type: 'integer' }, false);
    expect(rules.rules[0]!.error).toMatch(/^compilation failed: ERROR: <input>:1:7: Syntax error/);
  });
});
