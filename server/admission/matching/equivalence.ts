// matchPolicy Equivalent: kube's runtime.EquivalentResourceMapper, which knows which group/version/resources are
// the same stored objects served at several API versions or groups, and the kind each of them has.
//
// With `matchPolicy: Equivalent` (the v1 default) a webhook whose rules do not select the request's own
// resource is still called when they select an equivalent one: kube converts the object to the matched version
// and sends `resource`/`kind` of the matched version, with `requestResource`/`requestKind` the ones the client
// used (generic.ShouldCallHook builds the invocation from the equivalent resource; request.CreateAdmissionReview
// fills requestKind/requestResource from the attributes).
//
// Built-in resources are served at one version each but horizontalpodautoscalers (autoscaling/v2 and v1, one
// store, converted both ways like kube's scheme does). For the others a webhook matched through an
// equivalent built-in resource is told the matched `resource`/`kind` (as kube tells it) but receives the object in
// the served version, unconverted (for the deployments below, an apps/v1 object under an `extensions/v1beta1` or
// `apps/v1beta1|v1beta2` kind). A CRD's served versions are registered at runtime (registerDynamicEquivalences), and
// webhooks matched through one of them get the object converted by the CRD's converter.
import type { GroupVersionKind, GroupVersionResource } from '../../api/types.js';

export interface EquivalentResourceRegistration {
  resource: GroupVersionResource;
  /** '' for the resource itself, else the subresource ("status", "scale") */
  subresource: string;
  kind: GroupVersionKind;
}

/** One class per stored resource: every group/version/subresource it is served at, in kube's registration order. */
export type EquivalenceClass = readonly EquivalentResourceRegistration[];

export interface EquivalentResourceMapper {
  /** EquivalentResourcesFor: every resource (the request's own included) serving the same objects with this subresource */
  equivalentResourcesFor(resource: GroupVersionResource, subresource: string): GroupVersionResource[];
  /** KindFor: the kind a resource/subresource has, undefined when unknown */
  kindFor(resource: GroupVersionResource, subresource: string): GroupVersionKind | undefined;
}

const grKey = (r: { group: string; resource: string }): string => `${r.resource}.${r.group}`;
const gvrKey = (r: GroupVersionResource): string => `${r.group}/${r.version}/${r.resource}`;

/** equivalentResourceRegistry: classes are keyed by every group/resource that belongs to them. */
export function newEquivalentResourceMapper(classes: readonly EquivalenceClass[]): EquivalentResourceMapper {
  const classOf = new Map<string, number>();
  const kinds = new Map<string, Map<string, GroupVersionKind>>();
  classes.forEach((cls, i) => {
    for (const reg of cls) {
      classOf.set(grKey(reg.resource), i);
      const bySub = kinds.get(gvrKey(reg.resource)) ?? new Map<string, GroupVersionKind>();
      bySub.set(reg.subresource, reg.kind);
      kinds.set(gvrKey(reg.resource), bySub);
    }
  });
  return Object.freeze({
    equivalentResourcesFor(resource: GroupVersionResource, subresource: string): GroupVersionResource[] {
      const i = classOf.get(grKey(resource));
      if (i === undefined) return [];
      return classes[i]!.filter((reg) => reg.subresource === subresource).map((reg) => ({ ...reg.resource }));
    },
    kindFor(resource: GroupVersionResource, subresource: string): GroupVersionKind | undefined {
      const kind = kinds.get(gvrKey(resource))?.get(subresource);
      return kind ? { ...kind } : undefined;
    },
  });
}

function servedAt(group: string, version: string, resource: string, kind: string, subresources: Record<string, GroupVersionKind>): EquivalentResourceRegistration[] {
  const gvr = { group, version, resource };
  return [
    { resource: gvr, subresource: '', kind: { group, version, kind } },
    ...Object.entries(subresources).map(([subresource, k]) => ({ resource: gvr, subresource, kind: k })),
  ];
}

const deployment = (group: string, version: string, scale: GroupVersionKind): EquivalentResourceRegistration[] =>
  servedAt(group, version, 'deployments', 'Deployment', { status: { group, version, kind: 'Deployment' }, scale });

/**
 * The equivalences this apiserver knows. Horizontalpodautoscalers, served at autoscaling/v2 and v1 (below), and
 * deployments: apps/v1 deployments (the version served
 * here), and the versions kube-apiserver served the same objects at until 1.16 — extensions/v1beta1,
 * apps/v1beta2 and apps/v1beta1 — with their own Deployment and Scale kinds (apps/v1 scale is autoscaling/v1
 * Scale). A current kube-apiserver no longer serves those versions, so there a rule naming them matches
 * nothing; they are kept here so that `matchPolicy: Equivalent` has something to act on and can be tested.
 * The order is kube 1.15's registration order (extensions installed before apps, apps versions by priority),
 * which decides the version a rule naming several of them is matched as. Every other resource is served at one
 * version only and is equivalent to nothing but itself.
 */
export const defaultEquivalenceClasses: readonly EquivalenceClass[] = Object.freeze([
  Object.freeze([
    ...deployment('extensions', 'v1beta1', { group: 'extensions', version: 'v1beta1', kind: 'Scale' }),
    ...deployment('apps', 'v1', { group: 'autoscaling', version: 'v1', kind: 'Scale' }),
    ...deployment('apps', 'v1beta2', { group: 'apps', version: 'v1beta2', kind: 'Scale' }),
    ...deployment('apps', 'v1beta1', { group: 'apps', version: 'v1beta1', kind: 'Scale' }),
  ]),
  // autoscaling horizontalpodautoscalers: served at v2 and v1 from one store (v2 registered first, by priority)
  Object.freeze([
    ...servedAt('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', { status: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' } }),
    ...servedAt('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', { status: { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' } }),
  ]),
]);

const staticEquivalentResourceMapper: EquivalentResourceMapper = newEquivalentResourceMapper(defaultEquivalenceClasses);

/**
 * Equivalences that come and go at runtime: the served versions of each CustomResourceDefinition (kube's
 * crdHandler registers them with the EquivalentResourceRegistry as it starts serving a CRD).
 */
export interface DynamicEquivalences {
  /** the class of this group/resource, or undefined when it is not one of the provider's */
  classFor(group: string, resource: string): EquivalenceClass | undefined;
}

const dynamicEquivalences = new Set<DynamicEquivalences>();

/** Adds a runtime provider to the default mapper; returns its removal. One apiserver per process registers one. */
export function registerDynamicEquivalences(provider: DynamicEquivalences): () => void {
  dynamicEquivalences.add(provider);
  return () => dynamicEquivalences.delete(provider);
}

function dynamicClassOf(resource: GroupVersionResource): EquivalenceClass | undefined {
  for (const p of dynamicEquivalences) {
    const cls = p.classFor(resource.group, resource.resource);
    if (cls) return cls;
  }
  return undefined;
}

/** The built-in equivalences, then those of the registered runtime providers (CRDs). */
export const defaultEquivalentResourceMapper: EquivalentResourceMapper = Object.freeze({
  equivalentResourcesFor(resource: GroupVersionResource, subresource: string): GroupVersionResource[] {
    const own = staticEquivalentResourceMapper.equivalentResourcesFor(resource, subresource);
    if (own.length) return own;
    const cls = dynamicClassOf(resource);
    return cls ? cls.filter((reg) => reg.subresource === subresource).map((reg) => ({ ...reg.resource })) : [];
  },
  kindFor(resource: GroupVersionResource, subresource: string): GroupVersionKind | undefined {
    const own = staticEquivalentResourceMapper.kindFor(resource, subresource);
    if (own) return own;
    const reg = dynamicClassOf(resource)?.find((r) => r.subresource === subresource && gvrKey(r.resource) === gvrKey(resource));
    return reg ? { ...reg.kind } : undefined;
  },
});
