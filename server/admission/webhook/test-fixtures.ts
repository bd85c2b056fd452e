// Builders for the webhook plugin tests: admission attributes and webhook accessors with kube's v1 defaults.
// Plain data, no I/O.
import type { MutatingWebhook, ValidatingWebhook, WebhookAccessor, WebhookKind } from '../../api/admissionregistration.js';
import type { KubeObject } from '../../api/types.js';
import { newReinvocationContext, type AdmissionAttributes } from '../attributes.js';

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a', ...(labels ? { labels } : {}) }, data };
}

/** CREATE of a ConfigMap in namespace team-a by "alice", unless overridden. */
export function configMapAttributes(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object = overrides.object ?? configMap('cm');
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    name: object?.metadata?.name ?? 'cm',
    namespace: 'team-a',
    object,
    oldObject: undefined,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    dryRun: false,
    userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
    annotations: {},
    warnings: [],
    reinvocation: newReinvocationContext(),
    ...overrides,
  };
}

/** A webhook on configmaps CREATE/UPDATE with the v1 defaults and sideEffects None. */
export function webhook(name: string, url: string, caBundle: string | undefined, extra: Partial<MutatingWebhook> = {}): MutatingWebhook {
  return {
    name,
    clientConfig: { url, ...(caBundle ? { caBundle } : {}) },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

export function accessor(kind: WebhookKind, configurationName: string, hook: ValidatingWebhook | MutatingWebhook, index = 0): WebhookAccessor {
  return { uid: `api/${configurationName}/${hook.name}/${index}`, kind, source: 'api', configurationName, webhook: hook };
}
