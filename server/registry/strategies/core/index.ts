// core/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { configMapStrategy, secretStrategy } from './config.js';
import { endpointsStrategy } from './endpoints.js';
import { limitRangeStrategy } from './limitrange.js';
import { namespaceStrategy } from './namespace.js';
import { nodeStrategy } from './node.js';
import { persistentVolumeStrategy } from './persistentvolume.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaim.js';
import { podStrategy } from './pod.js';
import { podTemplateStrategy } from './podtemplate.js';
import { replicationControllerStrategy } from './replicationcontroller.js';
import { resourceQuotaStrategy } from './resourcequota.js';
import { ephemeralContainersStrategy, resizeStrategy } from './pod-subresources.js';
import { serviceStrategy } from './service.js';
import { coreV1EventStrategy } from '../events/event.js';

export const coreStrategies: Record<string, Strategy> = {
  '/v1/namespaces': namespaceStrategy,
  '/v1/pods': { ...podStrategy, subresourceUpdates: { ephemeralcontainers: ephemeralContainersStrategy, resize: resizeStrategy } },
  '/v1/services': serviceStrategy,
  '/v1/configmaps': configMapStrategy,
  '/v1/secrets': secretStrategy,
  // kube's eventStrategy: events never get the GC's finalizers, and the GC does not follow them
  // kube's legacy event rules (core/v1 writes get only those), and no GC finalizer (eventStrategy: Unsupported)
  '/v1/events': { ...coreV1EventStrategy, defaultGarbageCollectionPolicy: 'Unsupported' },
  '/v1/nodes': nodeStrategy,
  '/v1/persistentvolumes': persistentVolumeStrategy,
  '/v1/persistentvolumeclaims': persistentVolumeClaimStrategy,
  '/v1/endpoints': endpointsStrategy,
  '/v1/limitranges': limitRangeStrategy,
  '/v1/resourcequotas': resourceQuotaStrategy,
  '/v1/replicationcontrollers': replicationControllerStrategy,
  '/v1/podtemplates': podTemplateStrategy,
};
