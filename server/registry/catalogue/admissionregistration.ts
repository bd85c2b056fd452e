// admissionregistration.k8s.io/v1: webhook configurations, admission policies and their bindings.
import type { KubeObject } from '../../api/types.js';
import { age, at, lengthAt, type Entry } from './entry.js';

function paramRefOf(o: KubeObject): string {
  const ref = at(o, 'spec', 'paramRef') as { namespace?: string; name?: string } | undefined;
  if (!ref) return '<unset>';
  return ref.namespace ? `${ref.namespace}/${ref.name ?? '*'}` : ref.name ?? '*';
}
function paramKindOf(o: KubeObject): string {
  const pk = at(o, 'spec', 'paramKind') as { apiVersion?: string; kind?: string } | undefined;
  return pk ? `${pk.apiVersion}/${pk.kind}` : '<unset>';
}

export const admissionregistrationEntries: Entry[] = [
  ...(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}s`, kind, namespaced: false, categories: ['api-extensions'], hasGeneration: true,
    printerColumns: [{ name: 'Webhooks', type: 'integer', compute: lengthAt((o) => o['webhooks']) }, age],
  })),
  ...(['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}ies`.replace('policyies', 'policies'), kind, namespaced: false, categories: ['api-extensions'],
    subresources: { status: true }, hasGeneration: true, hasStatus: true,
    printerColumns: kind === 'ValidatingAdmissionPolicy'
      ? [{ name: 'Validations', type: 'integer', compute: lengthAt((o) => at(o, 'spec', 'validations')) }, { name: 'ParamKind', type: 'string', compute: paramKindOf }, age]
      : [{ name: 'Mutations', type: 'integer', compute: lengthAt((o) => at(o, 'spec', 'mutations')) }, { name: 'ParamKind', type: 'string', compute: paramKindOf }, age],
  })),
  ...(['ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicyBinding'] as const).map<Entry>((kind) => ({
    group: 'admissionregistration.k8s.io', version: 'v1', resource: `${kind.toLowerCase()}s`, kind, namespaced: false, categories: ['api-extensions'], hasGeneration: true,
    printerColumns: [{ name: 'PolicyName', type: 'string', jsonPath: '.spec.policyName' }, { name: 'ParamRef', type: 'string', compute: paramRefOf }, age],
  })),
];
