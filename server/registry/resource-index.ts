// Lookup over the served resources. Mutable so CustomResourceDefinitions can add and remove entries later;
// the generation lets discovery caches notice.
import { apiVersionOf } from '../api/types.js';
import { gvrKey, type ResourceInfo } from './resource.js';

export interface GroupVersions {
  group: string;
  /** preferred first */
  versions: string[];
}

export class ResourceIndex {
  private byGvr = new Map<string, ResourceInfo>();
  private gen = 0;

  constructor(resources: readonly ResourceInfo[]) {
    for (const r of resources) this.add(r);
  }

  add(r: ResourceInfo): void {
    this.byGvr.set(gvrKey(r.group, r.version, r.resource), r);
    this.gen++;
  }

  remove(group: string, version: string, resource: string): void {
    if (this.byGvr.delete(gvrKey(group, version, resource))) this.gen++;
  }

  get generation(): number {
    return this.gen;
  }

  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.byGvr.get(gvrKey(group, version, resource));
  }

  /** The resource served for an apiVersion + kind (for body/URL checks and ownerReferences). */
  lookupKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    for (const r of this.byGvr.values()) if (apiVersionOf(r.group, r.version) === apiVersion && r.kind === kind) return r;
    return undefined;
  }

  all(): ResourceInfo[] {
    return [...this.byGvr.values()];
  }

  inGroupVersion(group: string, version: string): ResourceInfo[] {
    return this.all().filter((r) => r.group === group && r.version === version);
  }

  /** Groups in a stable order: core first, then by name. */
  groups(): GroupVersions[] {
    const m = new Map<string, Set<string>>();
    for (const r of this.byGvr.values()) {
      if (!m.has(r.group)) m.set(r.group, new Set());
      m.get(r.group)!.add(r.version);
    }
    return [...m.entries()]
      .sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
      .map(([group, versions]) => ({ group, versions: [...versions].sort(compareKubeVersions) }));
  }
}

/** Kubernetes version priority (v1 > v1beta2 > v1beta1 > v1alpha1), as apimachinery's version.CompareKubeAwareVersionStrings. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { major: -1, stage: -1, minor: 0 };
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa.major < 0 || pb.major < 0) return pa.major < 0 && pb.major < 0 ? a.localeCompare(b) : pa.major < 0 ? 1 : -1;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
