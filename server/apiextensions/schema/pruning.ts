// Pruning of unknown fields (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go): fields not
// specified by properties or additionalProperties are removed, except below x-kubernetes-preserve-unknown-fields
// and the apiVersion/kind/metadata of embedded resources (and of the resource root). The removed paths are
// returned ("spec.foo", "spec.items[0].bar") for fieldValidation=Strict/Warn, which reports `unknown field "…"`.
import { asResourceRoot, type CompiledSchema } from './compiled.js';
import { kindOf, type JSONObject } from './json-value.js';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

// ObjectMeta's JSON fields: unknown ones inside an embedded resource's metadata are dropped as well, as the
// round trip through metav1.ObjectMeta in objectmeta.Coerce does.
const objectMetaFields = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

const childPath = (parent: string, key: string): string => (parent === '' ? key : `${parent}.${key}`);

class Pruner {
  readonly pruned: string[] = [];

  prune(x: unknown, s: CompiledSchema | undefined, path: string): void {
    if (s?.preserveUnknownFields) {
      this.skipPrune(x, s, path);
      return;
    }
    const kind = kindOf(x);
    if (kind === 'map') {
      const obj = x as JSONObject;
      if (!s) {
        for (const k of Object.keys(obj)) this.drop(obj, k, childPath(path, k));
        return;
      }
      this.pruneFields(obj, s, path, false);
    } else if (kind === 'slice') {
      (x as unknown[]).forEach((v, i) => this.prune(v, s?.items, `${path}[${i}]`));
    }
  }

  /** Below x-kubernetes-preserve-unknown-fields: unknown fields stay, the specified ones are pruned as usual. */
  private skipPrune(x: unknown, s: CompiledSchema | undefined, path: string): void {
    if (!s) return;
    const kind = kindOf(x);
    if (kind === 'map') {
      this.pruneFields(x as JSONObject, s, path, true);
    } else if (kind === 'slice') {
      (x as unknown[]).forEach((v, i) => this.skipPrune(v, s.items, `${path}[${i}]`));
    }
  }

  /**
   * The fields of an object its schema specifies are pruned below; an embedded resource's apiVersion and kind are
   * kept and its metadata coerced to ObjectMeta; other fields are dropped unless the schema preserves them.
   */
  private pruneFields(obj: JSONObject, s: CompiledSchema, path: string, preserveUnknown: boolean): void {
    for (const k of Object.keys(obj)) {
      if (s.embeddedResource && metaFields.has(k)) {
        if (k === 'metadata' && path !== '') this.pruneEmbeddedMetadata(obj[k], childPath(path, k));
        continue;
      }
      const prop = s.properties.get(k);
      if (prop) this.prune(obj[k], prop, childPath(path, k));
      else if (s.additionalProperties) this.prune(obj[k], s.additionalProperties.schema, childPath(path, k));
      else if (!preserveUnknown) this.drop(obj, k, childPath(path, k));
    }
  }

  private pruneEmbeddedMetadata(meta: unknown, path: string): void {
    if (kindOf(meta) !== 'map') return;
    const obj = meta as JSONObject;
    for (const k of Object.keys(obj)) {
      if (!objectMetaFields.has(k)) this.drop(obj, k, childPath(path, k));
    }
  }

  private drop(obj: JSONObject, key: string, path: string): void {
    this.pruned.push(path);
    delete obj[key];
  }
}

/** pruning.PruneWithOptions: prunes x in place and returns the pruned paths. */
export function pruneWithSchema(x: unknown, s: CompiledSchema | undefined, isResourceRoot: boolean): string[] {
  const pruner = new Pruner();
  pruner.prune(x, isResourceRoot ? asResourceRoot(s) : s, '');
  return pruner.pruned;
}
