// matchPolicy Equivalent for both policy plugins: a policy whose rules name v1 of a custom resource, matched by a
// v2 request, evaluates (and mutates) the object converted to v1, with request.kind/resource the matched v1 and
// request.requestKind/requestResource the v2 the client used (kube's VersionedAttributes per matched kind).
import type { MatchResources, MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from '../../api/admissionregistration.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { AdmissionAttributes } from '../attributes.js';
import { kubernetesCelEnvironment } from '../cel/kubernetes.js';
import { cronAttributes, cronConverter, cronEquivalences, cronGroup, cronTab, type RecordingConverter } from './crontab-fixtures.js';
import { MutatingAdmissionPolicyPlugin } from './mutating/plugin.js';
import { applyConfiguration, jsonPatch, map, mapb, mutatingApiSources } from './mutating/test-fixtures.js';
import { apiSources, getNamespace, memoryParamLookup, vap, vapb } from './test-fixtures.js';
import { ValidatingAdmissionPolicyPlugin } from './validating/plugin.js';

const cel = kubernetesCelEnvironment();
const params = memoryParamLookup([]);

const cronTabsAt = (...versions: string[]): MatchResources => ({
  matchPolicy: 'Equivalent',
  namespaceSelector: {},
  objectSelector: {},
  resourceRules: [{ apiGroups: [cronGroup], apiVersions: versions, resources: ['crontabs'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
});

async function denial(run: Promise<void>): Promise<StatusError> {
  try {
    await run;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('the request was allowed');
}

const specOf = (o: KubeObject | undefined): Record<string, unknown> | undefined => o?.['spec'] as Record<string, unknown> | undefined;

describe('ValidatingAdmissionPolicy matched through an equivalent version', () => {
  function validating(policies: ValidatingAdmissionPolicy[], converter: RecordingConverter | undefined) {
    return new ValidatingAdmissionPolicyPlugin({
      sources: apiSources(policies, policies.map((p) => vapb(`${p.metadata!.name}-binding`, p.metadata!.name!))),
      cel,
      params,
      getNamespace,
      equivalentResources: cronEquivalences,
      ...(converter ? { converterFor: () => converter.convert } : {}),
      readyTimeoutMs: 50,
    });
  }
  const v1Policy = (name: string, spec: Partial<ValidatingAdmissionPolicy['spec']> = {}) =>
    vap(name, {
      matchConstraints: cronTabsAt('v1'),
      validations: [{ expression: "object.spec.cronSpec != '0 * * * *'", messageExpression: "'cronSpec ' + object.spec.cronSpec + ' is not allowed'" }],
      ...spec,
    });

  it('evaluates a v1 field of a v2 request converted to v1, and says so in the message', async () => {
    const converter = cronConverter();
    const err = await denial(validating([v1Policy('v1-only.example.com')], converter).validate(cronAttributes('v2')));
    expect(err.status.message).toBe(
      `crontabs.${cronGroup} "tab" is forbidden: ValidatingAdmissionPolicy 'v1-only.example.com' with binding 'v1-only.example.com-binding' denied request: cronSpec 0 * * * * is not allowed`,
    );
    expect(err.status.code).toBe(422);
    expect(converter.calls).toEqual([`${cronGroup}/v2 -> v1`]);
  });

  it('binds request.kind/resource to the matched version and requestKind/requestResource to the requested one', async () => {
    const policy = v1Policy('versions.example.com', {
      validations: [
        {
          expression:
            "request.kind.version == 'v1' && request.resource.version == 'v1' && request.requestKind.version == 'v2' && request.requestResource.version == 'v2' && object.apiVersion == 'stable.example.com/v1'",
        },
      ],
    });
    await validating([policy], cronConverter()).validate(cronAttributes('v2'));
    // the same request without a converter sees the v2 object: the apiVersion check fails
    const err = await denial(validating([policy], undefined).validate(cronAttributes('v2')));
    expect(err.status.message).toContain('failed expression: request.kind.version');
  });

  it('converts the old object of an UPDATE too, and leaves the request\'s objects alone', async () => {
    const attrs = cronAttributes('v2', { operation: 'UPDATE', object: cronTab('v2', '5 * * * *'), oldObject: cronTab('v2', '0 * * * *') });
    const policy = v1Policy('old.example.com', { validations: [{ expression: 'object.spec.cronSpec != oldObject.spec.cronSpec', message: 'unchanged' }] });
    await validating([policy], cronConverter()).validate(attrs);
    expect(specOf(attrs.object)).toEqual({ schedule: '5 * * * *' });
    expect(specOf(attrs.oldObject)).toEqual({ schedule: '0 * * * *' });
  });

  it('converts once per matched kind, and not at all for the requested one', async () => {
    const converter = cronConverter();
    const allowAll = { validations: [{ expression: 'true' }] };
    await validating([v1Policy('a.example.com', allowAll), v1Policy('b.example.com', allowAll), vap('c.example.com', { matchConstraints: cronTabsAt('v2'), ...allowAll })], converter).validate(cronAttributes('v2'));
    expect(converter.calls).toEqual([`${cronGroup}/v2 -> v1`]);
    converter.calls.length = 0;
    await validating([v1Policy('a.example.com', allowAll)], converter).validate(cronAttributes('v1'));
    expect(converter.calls).toEqual([]);
  });

  it('reports a failed conversion as the binding\'s configuration error under Fail, and skips the policy under Ignore', async () => {
    const converter = cronConverter();
    converter.failWith = 'conversion webhook for stable.example.com/v2, Kind=CronTab failed: boom';
    const err = await denial(validating([v1Policy('fail.example.com')], converter).validate(cronAttributes('v2')));
    expect(err.status.message).toBe(
      `crontabs.${cronGroup} "tab" is forbidden: ValidatingAdmissionPolicy 'fail.example.com' with binding 'fail.example.com-binding' denied request: failed to configure binding: failed to convert object version: conversion webhook for stable.example.com/v2, Kind=CronTab failed: boom`,
    );
    await validating([v1Policy('ignore.example.com', { failurePolicy: 'Ignore' })], converter).validate(cronAttributes('v2'));
  });
});

describe('MutatingAdmissionPolicy matched through an equivalent version', () => {
  function mutating(policies: MutatingAdmissionPolicy[], converter: RecordingConverter | undefined, defaulted: Array<[string, string]> = []) {
    return new MutatingAdmissionPolicyPlugin({
      sources: mutatingApiSources(policies, policies.map((p) => mapb(`${p.metadata!.name}-binding`, p.metadata!.name!))),
      cel,
      params,
      getNamespace,
      equivalentResources: cronEquivalences,
      defaultObject: (o: KubeObject, a: AdmissionAttributes) => {
        defaulted.push([String(o.apiVersion), `${a.kind.version}/${a.resource.version}`]);
      },
      ...(converter ? { converterFor: () => converter.convert } : {}),
      readyTimeoutMs: 50,
    });
  }
  const setCronSpec = (name: string, value: string, spec: Partial<MutatingAdmissionPolicy['spec']> = {}) =>
    map(name, [jsonPatch(`[JSONPatch{op: "replace", path: "/spec/cronSpec", value: "${value}"}]`)], { matchConstraints: cronTabsAt('v1'), ...spec });

  it('sets a v1 field of a v2 request in v1 and converts the object back to v2, defaulted as v1', async () => {
    const converter = cronConverter();
    const defaulted: Array<[string, string]> = [];
    const attrs = cronAttributes('v2');
    await mutating([setCronSpec('set.example.com', '*/5 * * * *')], converter, defaulted).admit(attrs);
    expect(attrs.object?.apiVersion).toBe(`${cronGroup}/v2`);
    expect(specOf(attrs.object)).toEqual({ schedule: '*/5 * * * *' });
    expect(converter.calls).toEqual([`${cronGroup}/v2 -> v1`, `${cronGroup}/v1 -> v2`]);
    expect(defaulted).toEqual([[`${cronGroup}/v1`, 'v1/v1']]);
    expect(attrs.reinvocation.shouldReinvoke).toBe(true);
  });

  it('applies an ApplyConfiguration in the matched version, with request.kind the matched one', async () => {
    const attrs = cronAttributes('v2');
    const policy = map('apply.example.com', [applyConfiguration(`Object{spec: Object.spec{cronSpec: request.kind.version + "-" + request.requestKind.version}}`)], { matchConstraints: cronTabsAt('v1') });
    await mutating([policy], cronConverter()).admit(attrs);
    expect(specOf(attrs.object)).toEqual({ schedule: 'v1-v2' });
  });

  it('carries the object from a policy on v1 to one on v2 and back: no mutation is lost', async () => {
    const converter = cronConverter();
    const attrs = cronAttributes('v2');
    const first = setCronSpec('a.example.com', '1 * * * *');
    const second = map('b.example.com', [jsonPatch(`[JSONPatch{op: "add", path: "/spec/seen", value: object.spec.schedule}]`)], { matchConstraints: cronTabsAt('v2') });
    const third = map('c.example.com', [jsonPatch(`[JSONPatch{op: "add", path: "/spec/seenInV1", value: object.spec.cronSpec}]`)], { matchConstraints: cronTabsAt('v1') });
    await mutating([first, second, third], converter).admit(attrs);
    expect(specOf(attrs.object)).toEqual({ schedule: '1 * * * *', seen: '1 * * * *', seenInV1: '1 * * * *' });
    expect(attrs.object?.apiVersion).toBe(`${cronGroup}/v2`);
  });

  it('writes a patched object back even when the patch changed nothing (kube\'s Dirty), without asking for reinvocation', async () => {
    const converter = cronConverter();
    const attrs = cronAttributes('v2');
    const before = structuredClone(attrs.object);
    await mutating([setCronSpec('same.example.com', '0 * * * *')], converter).admit(attrs);
    expect(attrs.object).toEqual(before);
    expect(converter.calls).toEqual([`${cronGroup}/v2 -> v1`, `${cronGroup}/v1 -> v2`]);
    expect(attrs.reinvocation.shouldReinvoke).toBe(false);
  });

  it('evaluates matchConditions on the converted object and writes nothing back when they skip the policy', async () => {
    const converter = cronConverter();
    const attrs = cronAttributes('v2');
    await mutating([setCronSpec('skipped.example.com', 'x', { matchConditions: [{ name: 'never', expression: "object.spec.cronSpec == 'never'" }] })], converter).admit(attrs);
    expect(specOf(attrs.object)).toEqual({ schedule: '0 * * * *' });
    // the matchConditions saw the v1 object; nothing was written back
    expect(converter.calls).toEqual([`${cronGroup}/v2 -> v1`]);
  });

  it('reports a failed conversion as the policy\'s configuration error (kube\'s generic dispatcher)', async () => {
    const converter = cronConverter();
    converter.failWith = 'conversion webhook for stable.example.com/v2, Kind=CronTab failed: boom';
    const err = await denial(mutating([setCronSpec('fail.example.com', 'x')], converter).admit(cronAttributes('v2')));
    expect(err.status.message).toBe('policy "fail.example.com" denied request: failed to configure policy: conversion webhook for stable.example.com/v2, Kind=CronTab failed: boom');
    expect(err.status.code).toBe(403);
    const attrs = cronAttributes('v2');
    await mutating([setCronSpec('ignore.example.com', 'x', { failurePolicy: 'Ignore' })], converter).admit(attrs);
    expect(specOf(attrs.object)).toEqual({ schedule: '0 * * * *' });
  });
});
