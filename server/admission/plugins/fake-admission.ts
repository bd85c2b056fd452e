// Test support for the built-in plugins' unit tests: admission attributes for one write and an in-memory lister,
// as kube's admission_test.go files build admission.NewAttributesRecord and fake informers.
import type { KubeObject } from '../../api/types.js';
import { newReinvocationContext, type AdmissionAttributes, type AdmissionOperation } from '../attributes.js';
import type { ObjectLister, ResourceRef } from './object-lister.js';

export function fakeAttributes(opts: {
  operation?: AdmissionOperation;
  group?: string;
  version?: string;
  resource?: string;
  kind?: string;
  subresource?: string;
  namespace?: string;
  object?: KubeObject;
  oldObject?: KubeObject;
}): AdmissionAttributes {
  const object = opts.object;
  return {
    operation: opts.operation ?? 'CREATE',
    kind: { group: opts.group ?? '', version: opts.version ?? 'v1', kind: opts.kind ?? 'Pod' },
    resource: { group: opts.group ?? '', version: opts.version ?? 'v1', resource: opts.resource ?? 'pods' },
    subresource: opts.subresource ?? '',
    name: object?.metadata?.name ?? '',
    namespace: opts.namespace ?? 'ns',
    object,
    oldObject: opts.oldObject,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    dryRun: false,
    userInfo: { username: 'test', groups: [] },
    annotations: {},
    warnings: [],
    reinvocation: newReinvocationContext(),
  };
}

/** A lister over fixed objects, keyed by "group/resource"; resources absent from the map are not served. */
export function fakeLister(objects: Record<string, KubeObject[]>): ObjectLister & { gets: number } {
  const lister = {
    gets: 0,
    async list(ref: ResourceRef, namespace: string) {
      const all = objects[`${ref.group}/${ref.resource}`];
      return all?.filter((o) => !namespace || !o.metadata?.namespace || o.metadata.namespace === namespace);
    },
    async get(ref: ResourceRef, namespace: string, name: string) {
      lister.gets++;
      return (await lister.list(ref, namespace))?.find((o) => o.metadata?.name === name);
    },
  };
  return lister;
}
