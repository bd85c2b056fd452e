// Where the type checker finds the OpenAPI schema of a kind (kube's resolver.SchemaResolver): the built-in kinds
// answer from ./builtin-schemas.ts, CRDs from their own resolver, chained in front or behind.
import type { JSONSchemaProps } from '../apiextensions.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface SchemaResolver {
  /** the kind's schema with every reference resolved, or undefined when this resolver does not know the kind */
  schemaFor(gvk: GroupVersionKind): JSONSchemaProps | undefined;
}

/** The first resolver that knows the kind answers (kube's combined resolver). */
export function chainSchemaResolvers(...resolvers: readonly SchemaResolver[]): SchemaResolver {
  return {
    schemaFor(gvk) {
      for (const r of resolvers) {
        const s = r.schemaFor(gvk);
        if (s) return s;
      }
      return undefined;
    },
  };
}

/** kube's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod` for the core group. */
export function formatGroupVersionKind(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}
