// The ParamLookup of this apiserver: a paramKind resolves to the served resource of that apiVersion and kind
// (kube's RESTMapper), parameters are read from storage as the system user, bypassing admission.
import { StatusError } from '../../../api/errors.js';
import type { KubeObject } from '../../../api/types.js';
import { apiVersionOf } from '../../../api/types.js';
import { newRequestContext } from '../../../registry/request-context.js';
import type { ResourceIndex } from '../../../registry/resource-index.js';
import type { ResourceInfo } from '../../../registry/resource.js';
import type { ResourceStore } from '../../../registry/store.js';
import type { ParamLookup } from './types.js';

const paramReader = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };

export function storeParamLookup(index: ResourceIndex, storeFor: (info: ResourceInfo) => ResourceStore): ParamLookup {
  const infoOf = (group: string, version: string, resource: string): ResourceInfo | undefined => index.lookup(group, version, resource);
  return {
    resolve(kind) {
      const info = index.lookupKind(apiVersionOf(kind.group, kind.version), kind.kind);
      // virtual resources are never stored, so they cannot hold parameters
      if (!info || info.virtual) return undefined;
      return {
        resource: { group: info.group, version: info.version, resource: info.resource },
        kind: { group: info.group, version: info.version, kind: info.kind },
        namespaced: info.namespaced,
      };
    },
    async get(p, namespace, name): Promise<KubeObject | undefined> {
      const info = infoOf(p.resource.group, p.resource.version, p.resource.resource);
      if (!info) return undefined;
      try {
        return await storeFor(info).get(newRequestContext(paramReader, namespace), name);
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    },
    async list(p, namespace, selector): Promise<KubeObject[]> {
      const info = infoOf(p.resource.group, p.resource.version, p.resource.resource);
      if (!info) return [];
      const list = await storeFor(info).list(newRequestContext(paramReader, namespace), { predicate: (o) => selector.matches(o.metadata?.labels) });
      return list.items;
    },
  };
}
