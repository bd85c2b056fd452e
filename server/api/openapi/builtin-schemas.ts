// The OpenAPI schemas of the built-in kinds this server serves (and autoscaling/v1 Scale), from client-node's
// generated models. Schemas load on demand: `load` imports the models of the kinds asked for, after which
// `schemaFor` answers synchronously.
import type { JSONSchemaProps } from '../apiextensions.js';
import { schemaOfModel } from './client-node-models.js';
import type { GroupVersionKind, SchemaResolver } from './resolver.js';

const key = (gvk: GroupVersionKind) => `${gvk.group}/${gvk.version}/${gvk.kind}`;

/** The client-node model of each built-in kind. */
const builtinModels: Readonly<Record<string, string>> = {
  '/v1/Namespace': 'V1Namespace',
  '/v1/Pod': 'V1Pod',
  '/v1/ConfigMap': 'V1ConfigMap',
  '/v1/Secret': 'V1Secret',
  '/v1/Service': 'V1Service',
  '/v1/ServiceAccount': 'V1ServiceAccount',
  '/v1/Event': 'CoreV1Event',
  'apps/v1/Deployment': 'V1Deployment',
  'autoscaling/v1/Scale': 'V1Scale',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'V1ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'V1MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': 'V1ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': 'V1ValidatingAdmissionPolicyBinding',
  // client-node 1.4 has no v1 models of these yet; v1beta1's are field-for-field the same API
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy': 'V1beta1MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding': 'V1beta1MutatingAdmissionPolicyBinding',
  'authentication.k8s.io/v1/TokenReview': 'V1TokenReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'V1SelfSubjectReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'V1SubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'V1SelfSubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'V1LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'V1SelfSubjectRulesReview',
  // issue #15 events: client-node names events.k8s.io/v1 Event apart from core's
  'events.k8s.io/v1/Event': 'EventsV1Event',
  // resource.k8s.io: V1ResourceClaim is core/v1's container claim reference; DRA's claim is prefixed by its group
  'resource.k8s.io/v1/ResourceClaim': 'ResourceV1ResourceClaim',
};

/**
 * kube-apiserver's built-in API groups: a kind of these groups not named above has the client-node model its
 * generator names `V<version><Kind>` (batch/v1 Job → V1Job, autoscaling/v2 → V2HorizontalPodAutoscaler), so a new
 * built-in resource needs only its catalogue entry. Custom resources never take this path.
 */
const builtinGroups: ReadonlySet<string> = new Set([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'scheduling.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'node.k8s.io', 'certificates.k8s.io', 'storage.k8s.io',
  'resource.k8s.io', 'flowcontrol.apiserver.k8s.io', 'apiregistration.k8s.io', 'admissionregistration.k8s.io',
  'authentication.k8s.io', 'authorization.k8s.io', 'apiextensions.k8s.io',
]);

const conventionalModel = (gvk: GroupVersionKind): string => `V${gvk.version.slice(1)}${gvk.kind}`;

/** Every built-in kind named in the table, with its client-node model. */
export function builtinKindModels(): Array<GroupVersionKind & { model: string }> {
  return Object.entries(builtinModels).map(([k, model]) => {
    const [group, version, kind] = k.split('/') as [string, string, string];
    return { group, version, kind, model };
  });
}

/** The client-node model of a built-in kind (`V1Deployment`), undefined for kinds it does not describe. */
export function builtinModelOf(gvk: GroupVersionKind): string | undefined {
  return builtinModels[key(gvk)] ?? (builtinGroups.has(gvk.group) && /^v\d+((alpha|beta)\d+)?$/.test(gvk.version) ? conventionalModel(gvk) : undefined);
}

export class BuiltinSchemaResolver implements SchemaResolver {
  private readonly loaded = new Map<string, Promise<JSONSchemaProps | undefined>>();
  private readonly schemas = new Map<string, JSONSchemaProps>();

  /** Whether this resolver has a schema for the kind (loaded or not). */
  knows(gvk: GroupVersionKind): boolean {
    return builtinModelOf(gvk) !== undefined;
  }

  /** Imports the schemas of these kinds (those it knows); `schemaFor` answers for them afterwards. */
  async load(gvks: readonly GroupVersionKind[]): Promise<void> {
    await Promise.all(
      gvks.map((gvk) => {
        const k = key(gvk);
        const model = builtinModelOf(gvk);
        if (!model) return undefined;
        let p = this.loaded.get(k);
        if (!p) {
          p = schemaOfModel(model).then((s) => {
            if (s) this.schemas.set(k, Object.freeze(s));
            return s;
          });
          this.loaded.set(k, p);
        }
        return p;
      }),
    );
  }

  schemaFor(gvk: GroupVersionKind): JSONSchemaProps | undefined {
    return this.schemas.get(key(gvk));
  }
}

let shared: BuiltinSchemaResolver | undefined;

/** One resolver per process: the imported models and built schemas are shared by every policy checked. */
export function builtinSchemaResolver(): BuiltinSchemaResolver {
  shared ??= new BuiltinSchemaResolver();
  return shared;
}
