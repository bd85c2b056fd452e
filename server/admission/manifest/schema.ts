// The Go types a manifest is strictly decoded into: admissionregistration.k8s.io/v1 and the metav1 types they
// embed, described as far as encoding/json (sigs.k8s.io/json UnmarshalStrict) needs them to report unknown and
// duplicate fields and type errors with kube's texts ("json: cannot unmarshal string into Go struct field
// ValidatingWebhook.webhooks.timeoutSeconds of type int32").
//
// Field names are the v1 API's JSON names; struct names are reflect.Type.Name() as Go prints them in errors.
import type { GoStruct, GoType } from '../../api/go-strict-decoder.js';

const str = (name?: string): GoType => (name ? { kind: 'string', name } : { kind: 'string' });
const string: GoType = str();
const bool: GoType = { kind: 'bool' };
const int32: GoType = { kind: 'int', name: 'int32' };
const int64: GoType = { kind: 'int', name: 'int64' };
const time: GoType = { kind: 'time' };
const sliceOf = (elem: GoType): GoType => ({ kind: 'slice', elem });
const mapOf = (elem: GoType): GoType => ({ kind: 'map', elem });
const strings = sliceOf(string);

function struct(pkg: 'v1' | 'metav1' | 'runtime', name: string, fields: Record<string, GoType>): GoStruct {
  // metav1 types print as v1.X in Go too (package name v1).
  return { kind: 'struct', name, qualified: `${pkg === 'metav1' ? 'v1' : pkg}.${name}`, fields };
}

const typeMeta = { apiVersion: string, kind: string };

// ---- k8s.io/apimachinery/pkg/apis/meta/v1 ----------------------------------------------------------------

const ownerReference = struct('metav1', 'OwnerReference', {
  apiVersion: string,
  kind: string,
  name: string,
  uid: str('types.UID'),
  controller: bool,
  blockOwnerDeletion: bool,
});

const managedFieldsEntry = struct('metav1', 'ManagedFieldsEntry', {
  manager: string,
  operation: str('v1.ManagedFieldsOperationType'),
  apiVersion: string,
  time,
  fieldsType: string,
  fieldsV1: { kind: 'raw', name: 'v1.FieldsV1' },
  subresource: string,
});

export const objectMeta = struct('metav1', 'ObjectMeta', {
  name: string,
  generateName: string,
  namespace: string,
  selfLink: string,
  uid: str('types.UID'),
  resourceVersion: string,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: mapOf(string),
  annotations: mapOf(string),
  ownerReferences: sliceOf(ownerReference),
  finalizers: strings,
  managedFields: sliceOf(managedFieldsEntry),
});

const listMeta = struct('metav1', 'ListMeta', { selfLink: string, resourceVersion: string, continue: string, remainingItemCount: int64 });

const labelSelector = struct('metav1', 'LabelSelector', {
  matchLabels: mapOf(string),
  matchExpressions: sliceOf(struct('metav1', 'LabelSelectorRequirement', { key: string, operator: str('v1.LabelSelectorOperator'), values: strings })),
});

const condition = struct('metav1', 'Condition', {
  type: string,
  status: str('v1.ConditionStatus'),
  observedGeneration: int64,
  lastTransitionTime: time,
  reason: string,
  message: string,
});

// ---- k8s.io/api/admissionregistration/v1 -----------------------------------------------------------------

const ruleFields = {
  operations: sliceOf(str('v1.OperationType')),
  apiGroups: strings,
  apiVersions: strings,
  resources: strings,
  scope: str('v1.ScopeType'),
};

const ruleWithOperations = struct('v1', 'RuleWithOperations', ruleFields);
// NamedRuleWithOperations embeds RuleWithOperations (which embeds Rule): their fields are its own.
const namedRuleWithOperations = struct('v1', 'NamedRuleWithOperations', { resourceNames: strings, ...ruleFields });

const matchCondition = struct('v1', 'MatchCondition', { name: string, expression: string });

const webhookClientConfig = struct('v1', 'WebhookClientConfig', {
  url: string,
  service: struct('v1', 'ServiceReference', { namespace: string, name: string, path: string, port: int32 }),
  caBundle: { kind: 'bytes' },
});

const webhookFields = {
  name: string,
  clientConfig: webhookClientConfig,
  rules: sliceOf(ruleWithOperations),
  failurePolicy: str('v1.FailurePolicyType'),
  matchPolicy: str('v1.MatchPolicyType'),
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  sideEffects: str('v1.SideEffectClass'),
  timeoutSeconds: int32,
  admissionReviewVersions: strings,
  matchConditions: sliceOf(matchCondition),
};

const validatingWebhook = struct('v1', 'ValidatingWebhook', webhookFields);
const mutatingWebhook = struct('v1', 'MutatingWebhook', { ...webhookFields, reinvocationPolicy: str('v1.ReinvocationPolicyType') });

const validatingWebhookConfiguration = struct('v1', 'ValidatingWebhookConfiguration', { ...typeMeta, metadata: objectMeta, webhooks: sliceOf(validatingWebhook) });
const mutatingWebhookConfiguration = struct('v1', 'MutatingWebhookConfiguration', { ...typeMeta, metadata: objectMeta, webhooks: sliceOf(mutatingWebhook) });

const paramKind = struct('v1', 'ParamKind', { apiVersion: string, kind: string });

const matchResources = struct('v1', 'MatchResources', {
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  resourceRules: sliceOf(namedRuleWithOperations),
  excludeResourceRules: sliceOf(namedRuleWithOperations),
  matchPolicy: str('v1.MatchPolicyType'),
});

const variable = struct('v1', 'Variable', { name: string, expression: string });

const paramRef = struct('v1', 'ParamRef', {
  name: string,
  namespace: string,
  selector: labelSelector,
  parameterNotFoundAction: str('v1.ParameterNotFoundActionType'),
});

const validatingAdmissionPolicy = struct('v1', 'ValidatingAdmissionPolicy', {
  ...typeMeta,
  metadata: objectMeta,
  spec: struct('v1', 'ValidatingAdmissionPolicySpec', {
    paramKind,
    matchConstraints: matchResources,
    validations: sliceOf(struct('v1', 'Validation', { expression: string, message: string, reason: str('v1.StatusReason'), messageExpression: string })),
    failurePolicy: str('v1.FailurePolicyType'),
    auditAnnotations: sliceOf(struct('v1', 'AuditAnnotation', { key: string, valueExpression: string })),
    matchConditions: sliceOf(matchCondition),
    variables: sliceOf(variable),
  }),
  status: struct('v1', 'ValidatingAdmissionPolicyStatus', {
    observedGeneration: int64,
    typeChecking: struct('v1', 'TypeChecking', {
      expressionWarnings: sliceOf(struct('v1', 'ExpressionWarning', { fieldRef: string, warning: string })),
    }),
    conditions: sliceOf(condition),
  }),
});

const validatingAdmissionPolicyBinding = struct('v1', 'ValidatingAdmissionPolicyBinding', {
  ...typeMeta,
  metadata: objectMeta,
  spec: struct('v1', 'ValidatingAdmissionPolicyBindingSpec', {
    policyName: string,
    paramRef,
    matchResources,
    validationActions: sliceOf(str('v1.ValidationAction')),
  }),
});

const mutatingAdmissionPolicy = struct('v1', 'MutatingAdmissionPolicy', {
  ...typeMeta,
  metadata: objectMeta,
  spec: struct('v1', 'MutatingAdmissionPolicySpec', {
    paramKind,
    matchConstraints: matchResources,
    variables: sliceOf(variable),
    mutations: sliceOf(
      struct('v1', 'Mutation', {
        patchType: str('v1.PatchType'),
        applyConfiguration: struct('v1', 'ApplyConfiguration', { expression: string }),
        jsonPatch: struct('v1', 'JSONPatch', { expression: string }),
      }),
    ),
    failurePolicy: str('v1.FailurePolicyType'),
    matchConditions: sliceOf(matchCondition),
    reinvocationPolicy: str('v1.ReinvocationPolicyType'),
  }),
});

const mutatingAdmissionPolicyBinding = struct('v1', 'MutatingAdmissionPolicyBinding', {
  ...typeMeta,
  metadata: objectMeta,
  spec: struct('v1', 'MutatingAdmissionPolicyBindingSpec', { policyName: string, paramRef, matchResources }),
});

function typedList(item: GoStruct): GoStruct {
  return struct('v1', `${item.name}List`, { ...typeMeta, metadata: listMeta, items: sliceOf(item) });
}

/** metav1.List: items stay raw and are decoded one by one, as runtime.RawExtension. */
export const metaList = struct('metav1', 'List', { ...typeMeta, metadata: listMeta, items: sliceOf({ kind: 'raw', name: 'runtime.RawExtension' }) });

export const admissionRegistrationGroup = 'admissionregistration.k8s.io';

/** The kinds a manifest may hold: the four admission types of each plugin, in v1. */
export type ManifestKind =
  | 'ValidatingWebhookConfiguration'
  | 'MutatingWebhookConfiguration'
  | 'ValidatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicyBinding'
  | 'MutatingAdmissionPolicy'
  | 'MutatingAdmissionPolicyBinding';

export const manifestKinds: Readonly<Record<ManifestKind, GoStruct>> = {
  ValidatingWebhookConfiguration: validatingWebhookConfiguration,
  MutatingWebhookConfiguration: mutatingWebhookConfiguration,
  ValidatingAdmissionPolicy: validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: validatingAdmissionPolicyBinding,
  MutatingAdmissionPolicy: mutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding: mutatingAdmissionPolicyBinding,
};

export function isManifestKind(kind: string): kind is ManifestKind {
  return Object.prototype.hasOwnProperty.call(manifestKinds, kind);
}

/** A kind this decoder knows: a single object, its typed list, or the generic v1 List. */
export type SchemeEntry =
  | { readonly form: 'object'; readonly kind: ManifestKind; readonly type: GoStruct }
  | { readonly form: 'typedList'; readonly kind: ManifestKind; readonly type: GoStruct }
  | { readonly form: 'list'; readonly type: GoStruct }
  /** registered in kube's scheme but never accepted in a manifest (other versions, v1 Status): decoded no further */
  | { readonly form: 'registered'; readonly goType: string };

const v1Entries = new Map<string, SchemeEntry>();
for (const [kind, type] of Object.entries(manifestKinds) as Array<[ManifestKind, GoStruct]>) {
  v1Entries.set(kind, { form: 'object', kind, type });
  v1Entries.set(`${kind}List`, { form: 'typedList', kind, type: typedList(type) });
}

// What else kube's manifest scheme (admissionregistration install + metav1 List and Status) knows: decoding
// succeeds and the loader then says "unsupported resource type".
const otherVersionKinds: Readonly<Record<string, readonly string[]>> = {
  v1beta1: ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
  v1alpha1: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'],
};

/** The scheme's name in "no kind … is registered" errors (kube prints the file:line that created its scheme). */
export const manifestSchemeName = 'k8s.io/apiserver/pkg/admission/plugin/manifest';

/** runtime.Scheme lookup for a group/version and kind. */
export function lookupKind(group: string, version: string, kind: string): SchemeEntry | undefined {
  if (group === admissionRegistrationGroup) {
    if (version === 'v1') return v1Entries.get(kind);
    const kinds = otherVersionKinds[version];
    if (!kinds) return undefined;
    const base = kind.endsWith('List') ? kind.slice(0, -'List'.length) : kind;
    return kinds.includes(base) ? { form: 'registered', goType: `*${version}.${kind}` } : undefined;
  }
  if (group === '' && version === 'v1') {
    if (kind === 'List') return { form: 'list', type: metaList };
    if (kind === 'Status') return { form: 'registered', goType: '*v1.Status' };
  }
  return undefined;
}
