// Decoding built-in kinds into their Go types: sigs.k8s.io/json's UnmarshalTypeError texts, the custom decoders'
// errors, strictness errors, pruning, and the unstructured converter's texts (strategic merge patches).
import { parseJsonOrYamlDocument, type JsonNode } from '../go-json-document.js';
import { maxNestingDepth } from '../nesting-depth.js';
import { kindFields, type KindFields } from './strict-decoding.js';

const node = (text: string): JsonNode => {
  const p = parseJsonOrYamlDocument(text);
  if (!p.ok) throw new Error(p.error);
  return p.node;
};

let configMap: KindFields;
let deployment: KindFields;
let secret: KindFields;
let pod: KindFields;
let namespace: KindFields;
beforeAll(async () => {
  [configMap, deployment, secret, pod, namespace] = (await Promise.all(['V1ConfigMap', 'V1Deployment', 'V1Secret', 'V1Pod', 'V1Namespace'].map(kindFields))) as KindFields[];
});

const decode = (fields: () => KindFields, text: string) => {
  const doc = node(text);
  const r = fields().decodeJson(doc);
  if (!r.ok) return { error: r.error };
  r.prune();
  return { strict: r.strict, value: doc.value };
};

describe('UnmarshalStrict of a built-in kind', () => {
  it.each<[string, () => KindFields, string, string]>([
    ['a string for a []string', () => configMap, '{"metadata":{"finalizers":"str"}}', 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
    ['an array for a map', () => configMap, '{"metadata":{"labels":[1]}}', 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    ['a number for a map', () => configMap, '{"data":123}', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'],
    ['a number in a map of strings', () => configMap, '{"data":{"a":1}}', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['a string for an int32', () => deployment, '{"spec":{"replicas":"x"}}', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a fraction for an int32', () => deployment, '{"spec":{"replicas":1.5}}', 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['an int32 overflow', () => deployment, '{"spec":{"replicas":3000000000}}', 'json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['an exponent for an int32', () => deployment, '{"spec":{"replicas":1e3}}', 'json: cannot unmarshal number 1e3 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a number for ownerReferences', () => configMap, '{"metadata":{"ownerReferences":123}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference'],
    ['a string for a struct', () => configMap, '{"metadata":"x"}', 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'],
    ['a bool for a string in a list of structs', () => pod, '{"spec":{"containers":[{"name":true}]}}', 'json: cannot unmarshal bool into Go struct field Container.spec.containers.name of type string'],
    ['an object for a bool', () => configMap, '{"immutable":{}}', 'json: cannot unmarshal object into Go struct field ConfigMap.immutable of type bool'],
    ['a named string type', () => pod, '{"spec":{"restartPolicy":1}}', 'json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy'],
    ['a types.UID', () => configMap, '{"metadata":{"uid":1}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID'],
    ['a named list type', () => namespace, '{"spec":{"finalizers":"kubernetes"}}', 'json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName'],
    ['bad base64 in Secret data', () => secret, '{"data":{"a":"abc!"}}', 'illegal base64 data at input byte 3'],
    ['a number in Secret data', () => secret, '{"data":{"a":1}}', 'json: cannot unmarshal number into Go struct field Secret.data of type []uint8'],
    ['a bad quantity', () => pod, '{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1x"}}}]}}', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['a bool quantity', () => pod, '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":true}}}]}}', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['a quantity suffix', () => pod, '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1kk"}}}]}}', "unable to parse quantity's suffix"],
    ['a resource list that is not a map', () => pod, '{"spec":{"containers":[{"name":"c","resources":{"limits":[]}}]}}', 'json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList'],
    ['a bool for an IntOrString', () => pod, '{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":true}}}]}}', 'json: cannot unmarshal bool into Go value of type int32'],
    ['a fraction for an IntOrString', () => pod, '{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":1.5}}}]}}', 'json: cannot unmarshal number 1.5 into Go value of type int32'],
    ['a number for a time', () => configMap, '{"metadata":{"creationTimestamp":5}}', 'json: cannot unmarshal number into Go value of type string'],
    ['a bad time', () => configMap, '{"metadata":{"creationTimestamp":"yesterday"}}', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    // the custom decoders end the decode at once, and win over a type error saved before them
    ['a custom decoder error after a type error', () => configMap, '{"data":1,"metadata":{"creationTimestamp":"x"}}', 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
    // the first saved type error is the one returned
    ['two type errors', () => configMap, '{"data":1,"immutable":"x"}', 'json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string'],
  ])('fails %s with kube\'s text', (_, fields, text, error) => {
    expect(decode(fields, text)).toEqual({ error });
  });

  it('accepts null for any field, and drops it as the zero value Go encodes', () => {
    expect(decode(() => configMap, '{"metadata":{"name":"a","finalizers":null,"labels":null,"creationTimestamp":null},"data":null,"immutable":null}')).toEqual({
      strict: [],
      value: { metadata: { name: 'a' } },
    });
  });

  it('gives null map values and list items their zero value', () => {
    expect(decode(() => configMap, '{"metadata":{"labels":{"a":null},"finalizers":["x",null]}}').value).toEqual({ metadata: { labels: { a: '' }, finalizers: ['x', ''] } });
  });

  it('accepts numbers and strings as quantities, integers and strings as IntOrString, RFC 3339 times', () => {
    const text = '{"metadata":{"creationTimestamp":"2024-02-29T10:00:00.5+01:00"},"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":1.5,"memory":"1Gi"}},"livenessProbe":{"httpGet":{"port":"http"},"tcpSocket":{"port":80}}}]}}';
    expect(decode(() => pod, text)).toEqual({ strict: [], value: JSON.parse(text) });
  });

  it('drops unknown fields at every depth and reports them, with duplicates, in document order', () => {
    const r = decode(() => deployment, '{"spec":{"replicas":1,"foo":1,"replicas":2,"template":{"spec":{"containers":[{"name":"c","imagee":"x"}]}}},"bar":true}');
    expect(r).toEqual({
      strict: ['unknown field "spec.foo"', 'duplicate field "spec.replicas"', 'unknown field "spec.template.spec.containers[0].imagee"', 'unknown field "bar"'],
      value: { spec: { replicas: 2, template: { spec: { containers: [{ name: 'c' }] } } } },
    });
  });

  it('drops an unknown field nested to the nesting limit whole, without walking into it (issue #13: a deep unknown field is dropped, never refused)', () => {
    const levels = maxNestingDepth - 1;
    const text = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"k":"v"},"zz":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
    expect(decode(() => configMap, text)).toEqual({ strict: ['unknown field "zz"'], value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'v' } } });
  });

  it('does not read inside an unknown field, in any of the three decoders (its cost is the parse alone)', () => {
    // any read below zz throws: a walk into it would fail the test
    const untouchable = (): Record<string, unknown> => ({ zz: Object.defineProperty({}, 'a', { enumerable: true, get: () => { throw new Error('walked into an unknown field'); } }), data: { k: 'v' } });
    const plain = untouchable();
    const json = configMap.decodePlain(plain);
    expect(json.ok && json.strict).toEqual(['unknown field "zz"']);
    if (json.ok) json.prune();
    expect(plain).toEqual({ data: { k: 'v' } });
    const converted = untouchable();
    const unstructured = configMap.fromUnstructured(converted);
    expect(unstructured.ok && unstructured.strict).toEqual(['unknown field "zz"']);
    if (unstructured.ok) unstructured.prune();
    expect(converted).toEqual({ data: { k: 'v' } });
    // structured-merge-diff leaves undeclared fields to the apply code
    expect(configMap.applyConfigurationTypeErrors(untouchable())).toEqual([]);
  });

  it('leaves what the custom types hold (RawExtension, FieldsV1) unchecked', () => {
    const text = '{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:data":{"anything":1}}}]}}';
    expect(decode(() => configMap, text)).toEqual({ strict: [], value: JSON.parse(text) });
  });

  it('decodes a byte array into Secret data as the base64 text Go encodes it back to', () => {
    expect(decode(() => secret, '{"data":{"a":[104,105]}}').value).toEqual({ data: { a: 'aGk=' } });
    expect(decode(() => secret, '{"data":{"a":[300]}}')).toEqual({ error: 'json: cannot unmarshal number 300 into Go struct field Secret.data of type uint8' });
  });

  it('leaves the document alone when the decode fails', () => {
    const doc = node('{"data":1,"foo":2}');
    expect(configMap.decodeJson(doc).ok).toBe(false);
    expect(doc.value).toEqual({ data: 1, foo: 2 });
  });
});

describe('FromUnstructuredWithValidation of a built-in kind', () => {
  it.each<[string, () => KindFields, Record<string, unknown>, string]>([
    ['a string for a list', () => configMap, { metadata: { finalizers: 'str' } }, 'cannot restore slice from string'],
    ['a number for a list', () => configMap, { metadata: { ownerReferences: 123 } }, 'cannot restore slice from int64'],
    ['a list for a map', () => configMap, { metadata: { labels: [1] } }, 'cannot restore map from slice'],
    ['a string for a struct', () => configMap, { metadata: 'x' }, 'cannot restore struct from: string'],
    ['an integer for a string', () => configMap, { data: { a: 1 } }, 'cannot convert int64 to string'],
    ['a bool for a string', () => configMap, { data: { a: true } }, 'unrecognized type: string'],
    ['a string for an int32', () => deployment, { spec: { replicas: 'x' } }, 'unrecognized type: int32'],
    ['a fraction for an int32', () => deployment, { spec: { replicas: 1.5 } }, 'cannot convert float64 to int32'],
    ['bad base64', () => secret, { data: { a: 'abc!' } }, 'error decoding from json: illegal base64 data at input byte 3'],
    ['a bad time', () => configMap, { metadata: { creationTimestamp: 'x' } }, 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
  ])('fails %s with the converter\'s text', (_, fields, obj, error) => {
    expect(fields().fromUnstructured(obj)).toEqual({ ok: false, error });
  });

  it('accepts a whole float for an int32, and sorts and drops the unknown fields', () => {
    const obj = { zzz: 1, spec: { replicas: 2.0, aaa: 1 } };
    const r = deployment.fromUnstructured(obj);
    expect(r.ok && r.strict).toEqual(['unknown field "spec.aaa"', 'unknown field "zzz"']);
    if (r.ok) r.prune();
    expect(obj).toEqual({ spec: { replicas: 2 } });
  });
});

describe('structured-merge-diff validation of an apply configuration', () => {
  it.each<[string, () => KindFields, Record<string, unknown>, string[]]>([
    ['a string for an int32', () => deployment, { spec: { replicas: 'x' } }, ['.spec.replicas: expected numeric (int or float), got string']],
    ['a number for a map', () => configMap, { data: 123 }, ['.data: expected map, got &{123}']],
    ['a string for a list', () => configMap, { metadata: { finalizers: 'str' } }, ['.metadata.finalizers: expected list, got &{str}']],
    ['a number for a string', () => configMap, { data: { a: 1 } }, ['.data.a: expected string, got &value.valueUnstructured{Value:1}']],
    ['a string for a bool', () => configMap, { immutable: 'yes' }, ['.immutable: expected boolean, got &{yes}']],
    ['a map for a quantity', () => pod, { spec: { overhead: { cpu: { a: 1 } } } }, ['.spec.overhead.cpu: expected any scalar, got &{map[a:1]}']],
    ['two mismatches', () => configMap, { data: 1, immutable: 2 }, ['.data: expected map, got &{1}', '.immutable: expected boolean, got &{2}']],
    ['nothing wrong (unknown fields are the apply code\'s)', () => configMap, { data: { a: 'b' }, foo: 1, metadata: { labels: null } }, []],
  ])('reports %s', (_, fields, config, errs) => {
    expect(fields().applyConfigurationTypeErrors(config)).toEqual(errs);
  });
});
