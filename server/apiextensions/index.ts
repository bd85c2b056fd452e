// Serving CustomResourceDefinitions (issue #9): the serving registry, the CRD controllers, and the
// matchPolicy Equivalent classes of the served CRDs, started together by the apiserver.
import { registerDynamicEquivalences } from '../admission/matching/equivalence.js';
import type { WebhookClient } from '../admission/webhook/client.js';
import type { KubeObject } from '../api/types.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import { CustomResourceDefinitionController } from './controllers/crd-controller.js';
import type { Converter } from './customresource/schema-ops.js';
import { CustomResourceServing } from './serving.js';

export interface CustomResourceDefinitionsDeps {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  /** the client conversion webhooks are called with */
  webhookClient: WebhookClient;
  log(msg: string, fields?: Record<string, unknown>): void;
}

export interface CustomResourceDefinitions {
  /** a CRD write of this server, as it returns */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', crd: KubeObject): void;
  /** the converter between the versions of a served custom resource */
  converterFor(group: string, resource: string): Converter | undefined;
  /** the CRDs in storage are served */
  hasSynced(): boolean;
  /** lists the stored CRDs, serves them and follows changes */
  start(): Promise<void>;
  stop(): void;
}

export function customResourceDefinitions(deps: CustomResourceDefinitionsDeps): CustomResourceDefinitions {
  // ops.ts pulls in the schema, CEL and conversion modules: imported when the first CRD is established
  const loadOps = async () => (await import('./customresource/ops.js')).customResourceOps({ webhookClient: deps.webhookClient });
  const serving = new CustomResourceServing(deps.index, loadOps, deps.log);
  const crdInfo = deps.index.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  const controller = new CustomResourceDefinitionController({ crds: deps.storeFor(crdInfo), serving, storeFor: deps.storeFor, log: deps.log });
  let unregister: (() => void) | undefined;
  return {
    observe: (type, crd) => controller.observe(type, crd),
    converterFor: (group, resource) => serving.converterFor(group, resource),
    hasSynced: () => controller.hasSynced(),
    async start() {
      unregister ??= registerDynamicEquivalences(serving);
      await controller.start();
    },
    stop() {
      controller.stop();
      unregister?.();
    },
  };
}
