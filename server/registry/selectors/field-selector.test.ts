import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import {
  convertFieldSelector,
  escapeFieldValue,
  fieldsOf,
  matchesFieldSelector,
  parseFieldSelector,
  parseFieldSelectorQuery,
  unescapeFieldValue,
} from './field-selector.js';

const pods = { group: '', kind: 'Pod', namespaced: true };
const configmaps = { group: '', kind: 'ConfigMap', namespaced: true };
const namespaces = { group: '', kind: 'Namespace', namespaced: false };
const secrets = { group: '', kind: 'Secret', namespaced: true };
const events = { group: '', kind: 'Event', namespaced: true };
const vwcs = { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration', namespaced: false };

function parsed(s: string) {
  const p = parseFieldSelector(s);
  if (!p.ok) throw new Error(p.message);
  return p.selector;
}

describe('parseFieldSelector', () => {
  it.each([
    ['', []],
    ['metadata.name=foo', [{ field: 'metadata.name', operator: '=', value: 'foo' }]],
    ['metadata.name==foo', [{ field: 'metadata.name', operator: '==', value: 'foo' }]],
    ['metadata.name!=foo', [{ field: 'metadata.name', operator: '!=', value: 'foo' }]],
    ['metadata.name=', [{ field: 'metadata.name', operator: '=', value: '' }]],
    [
      'status.phase=Running,spec.nodeName!=n1',
      [
        { field: 'spec.nodeName', operator: '!=', value: 'n1' },
        { field: 'status.phase', operator: '=', value: 'Running' },
      ],
    ],
    ['a=b\\,c', [{ field: 'a', operator: '=', value: 'b,c' }]],
    ['a=b\\=c\\\\d', [{ field: 'a', operator: '=', value: 'b=c\\d' }]],
    ['a=b,,c=d', [{ field: 'a', operator: '=', value: 'b' }, { field: 'c', operator: '=', value: 'd' }]],
  ])('%j', (input, requirements) => {
    expect(parsed(input).requirements).toEqual(requirements);
  });

  it.each([
    ['foo', "invalid selector: 'foo'; can't understand 'foo'"],
    ['a=b,foo', "invalid selector: 'a=b,foo'; can't understand 'foo'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('rejects %j', (input, message) => {
    expect(parseFieldSelector(input)).toEqual({ ok: false, message });
  });

  it('round-trips escaped values', () => {
    expect(escapeFieldValue('a,b=c\\d')).toBe('a\\,b\\=c\\\\d');
    expect(unescapeFieldValue(escapeFieldValue('a,b=c\\d'))).toEqual({ ok: true, value: 'a,b=c\\d' });
    expect(parsed('x=a\\,b').toString()).toBe('x=a\\,b');
  });

  it('tells what a selector requires exactly', () => {
    expect(parsed('metadata.name=foo').requiresExactMatch('metadata.name')).toBe('foo');
    expect(parsed('metadata.name!=foo').requiresExactMatch('metadata.name')).toBeUndefined();
  });
});

describe('convertFieldSelector: supported field labels', () => {
  it.each([
    [pods, 'spec.nodeName=n1,status.phase=Running,metadata.namespace=x', undefined],
    [pods, 'spec.restartPolicy=Always,spec.schedulerName=s,spec.serviceAccountName=sa,status.podIP=1.2.3.4,status.nominatedNodeName=n', undefined],
    [pods, 'spec.hostNetwork=true', undefined],
    [pods, 'status.hostIP=1.2.3.4', 'field label not supported: status.hostIP'],
    [pods, 'foo=bar', 'field label not supported: foo'],
    [pods, 'constructor=x', 'field label not supported: constructor'],
    [secrets, 'type=kubernetes.io/tls', undefined],
    [secrets, 'data=x', 'field label not supported: data'],
    [namespaces, 'status.phase=Active,metadata.name=default', undefined],
    [namespaces, 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    [events, 'involvedObject.kind=Pod,involvedObject.name=p,involvedObject.uid=u,reason=Failed,type=Warning,source=kubelet,reportingComponent=k', undefined],
    [events, 'involvedObject.namespace=a,involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,involvedObject.fieldPath=spec', undefined],
    [configmaps, 'metadata.name=a,metadata.namespace=b', undefined],
    [configmaps, 'data.x=y', '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    [vwcs, 'webhooks=x', '"webhooks" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ])('%o %j', (target, selector, error) => {
    const converted = convertFieldSelector(target, parsed(selector));
    expect(converted.ok ? undefined : converted.message).toBe(error);
  });

  it('renames spec.host to spec.nodeName for pods, as kube does for old clients', () => {
    const converted = convertFieldSelector(pods, parsed('spec.host=n1'));
    expect(converted.ok && converted.selector.requirements).toEqual([{ field: 'spec.nodeName', operator: '=', value: 'n1' }]);
  });

  it('answers an unsupported field with 400 BadRequest', () => {
    expect(() => parseFieldSelectorQuery(pods, 'foo=bar')).toThrow(StatusError);
    try {
      parseFieldSelectorQuery(pods, 'foo=bar');
    } catch (e) {
      expect((e as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'field label not supported: foo' });
    }
  });

  it('answers a malformed selector with 400 BadRequest', () => {
    expect(() => parseFieldSelectorQuery(pods, 'nonsense')).toThrow("invalid selector: 'nonsense'; can't understand 'nonsense'");
  });
});

describe('fieldsOf and matching', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'prod' },
    spec: { nodeName: 'node-a', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'default' },
    status: { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] },
  };

  it('gives a pod its selectable fields', () => {
    expect(fieldsOf(pods, pod)).toEqual({
      'metadata.name': 'web-1',
      'metadata.namespace': 'prod',
      'spec.nodeName': 'node-a',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'default',
      'spec.hostNetwork': 'false',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.1',
      'status.nominatedNodeName': '',
    });
  });

  it.each([
    ['status.phase=Running', true],
    ['status.phase!=Running', false],
    ['spec.nodeName=node-a,metadata.namespace=prod', true],
    ['spec.nodeName=node-b', false],
    ['status.nominatedNodeName=', true],
    ['status.podIPs=x', false],
  ])('pod matches %j: %s', (selector, expected) => {
    const converted = convertFieldSelector(pods, parsed(selector));
    expect(converted.ok && matchesFieldSelector(pods, converted.selector, pod)).toBe(expected);
  });

  it('gives secrets their type and namespaces their phase', () => {
    expect(fieldsOf(secrets, { metadata: { name: 's', namespace: 'n' }, type: 'Opaque' })['type']).toBe('Opaque');
    expect(fieldsOf(namespaces, { metadata: { name: 'n' }, status: { phase: 'Terminating' } })).toEqual({ 'metadata.name': 'n', 'status.phase': 'Terminating' });
  });

  it('reads an event’s source from source.component, else reportingComponent', () => {
    const ev: KubeObject = { metadata: { name: 'e', namespace: 'n' }, involvedObject: { kind: 'Pod', name: 'p', uid: 'u1' }, reason: 'Killing', type: 'Normal', reportingComponent: 'kubelet' };
    const f = fieldsOf(events, ev);
    expect(f).toMatchObject({ 'involvedObject.kind': 'Pod', 'involvedObject.name': 'p', 'involvedObject.uid': 'u1', reason: 'Killing', type: 'Normal', source: 'kubelet', reportingComponent: 'kubelet' });
    expect(fieldsOf(events, { ...ev, source: { component: 'scheduler' } })['source']).toBe('scheduler');
  });

  it('gives cluster-scoped objects an empty namespace, so metadata.namespace=x selects nothing', () => {
    const converted = convertFieldSelector(vwcs, parsed('metadata.namespace=x'));
    expect(converted.ok && matchesFieldSelector(vwcs, converted.selector, { metadata: { name: 'w' } })).toBe(false);
    const empty = convertFieldSelector(vwcs, parsed('metadata.namespace='));
    expect(empty.ok && matchesFieldSelector(vwcs, empty.selector, { metadata: { name: 'w' } })).toBe(true);
  });
});
