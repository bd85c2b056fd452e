import type { KubeObject } from '../../api/types.js';
import {
  mutatingWebhookConfigurationStrategy,
  mutatingWebhookConfigurationStrategyWith,
  validatingWebhookConfigurationStrategy,
  validatingWebhookConfigurationStrategyWith,
} from './admissionregistration.js';
import { strategiesFor } from './index.js';

function config(kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', name: string, rules: unknown[] = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }]): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: [{ name: 'check.example.com', clientConfig: { url: 'https://webhook.example.com/check' }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  };
}

const tokenReviewRule = [{ operations: ['CREATE'], apiGroups: ['authentication.k8s.io'], apiVersions: ['v1'], resources: ['tokenreviews'] }];
const tokenReviewWarning = 'webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect';
const suffixWarning =
  'metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API';

describe.each([
  ['ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', validatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategyWith],
  ['MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', mutatingWebhookConfigurationStrategy, mutatingWebhookConfigurationStrategyWith],
] as const)('%s strategy', (kind, resource, strategy, strategyWith) => {
  it('is registered for admissionregistration.k8s.io/v1, built for the server\'s feature gates', () => {
    const registered = strategiesFor({ excludeVirtualResources: true })[`admissionregistration.k8s.io/v1/${resource}`];
    expect(registered).toBeDefined();
    expect(Object.keys(registered!).sort()).toEqual(Object.keys(strategy).sort());
  });

  it('applies the v1 defaults, then validates the defaulted object', () => {
    const obj = config(kind, 'cfg');
    strategy.applyDefaults!(obj);
    expect((obj['webhooks'] as unknown[])[0]).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {}, rules: [{ scope: '*' }] });
    if (kind === 'MutatingWebhookConfiguration') expect((obj['webhooks'] as unknown[])[0]).toMatchObject({ reinvocationPolicy: 'Never' });
    expect(strategy.validate!(obj)).toEqual([]);
  });

  it('returns field errors with kube\'s paths', () => {
    const obj = config(kind, 'cfg');
    (obj['webhooks'] as Array<Record<string, unknown>>)[0]!['timeoutSeconds'] = 31;
    expect(strategy.validate!(obj).map((e) => e.field)).toEqual(['webhooks[0].timeoutSeconds']);
  });

  it('relaxes updates of objects that were already invalid', () => {
    const old = config(kind, 'cfg');
    (old['webhooks'] as Array<Record<string, unknown>>)[0]!['sideEffects'] = 'Unknown';
    expect(strategy.validateUpdate!(old, old)).toEqual([]);
    expect(strategy.validate!(old).map((e) => e.field)).toEqual(['webhooks[0].sideEffects']);
  });

  it('warns about a rule naming an excluded virtual resource, on create and update', () => {
    const obj = config(kind, 'cfg', tokenReviewRule);
    expect(strategy.warningsOnCreate!(obj)).toEqual([tokenReviewWarning]);
    expect(strategy.warningsOnUpdate!(obj, obj)).toEqual([tokenReviewWarning]);
    expect(strategy.warningsOnCreate!(config(kind, 'cfg'))).toEqual([]);
  });

  it('does not warn about excluded resources when ExcludeAdmissionWebhookVirtualResources is off', () => {
    const s = strategyWith({ excludeVirtualResources: false });
    expect(s.warningsOnCreate!(config(kind, 'cfg', tokenReviewRule))).toEqual([]);
  });

  it('warns about the .static.k8s.io suffix while ManifestBasedAdmissionControlConfig is off', () => {
    const obj = config(kind, 'protect.static.k8s.io');
    expect(strategy.warningsOnCreate!(obj)).toEqual([suffixWarning]);
    expect(strategy.validate!(obj)).toEqual([]);
  });

  it('refuses the .static.k8s.io suffix on create when ManifestBasedAdmissionControlConfig is on', () => {
    const s = strategyWith({ manifestBasedAdmissionControlConfig: true });
    const obj = config(kind, 'protect.static.k8s.io');
    expect(s.validate!(obj).map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API',
    ]);
    expect(s.warningsOnCreate!(obj)).toEqual([]);
    // objects stored before the gate was turned on stay updatable, with kube's warning
    expect(s.validateUpdate!(obj, obj)).toEqual([]);
    expect(s.warningsOnUpdate!(obj, obj)).toEqual([suffixWarning]);
  });

  it('passes matchCondition expressions to the CEL compiler it is given', () => {
    const s = strategyWith({ compileMatchCondition: (expr) => (expr === 'nope' ? 'undeclared reference to \'nope\'' : undefined) });
    const obj = config(kind, 'cfg');
    (obj['webhooks'] as Array<Record<string, unknown>>)[0]!['matchConditions'] = [{ name: 'c', expression: 'nope' }];
    expect(s.validate!(obj).map((e) => e.field)).toEqual(['webhooks[0].matchConditions[0].expression']);
  });
});
