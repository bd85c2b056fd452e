// core/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { configMapStrategy, secretStrategy } from './config.js';
import { namespaceStrategy } from './namespace.js';
import { podStrategy } from './pod.js';
import { ephemeralContainersStrategy, resizeStrategy } from './pod-subresources.js';
import { serviceStrategy } from './service.js';

export const coreStrategies: Record<string, Strategy> = {
  '/v1/namespaces': namespaceStrategy,
  '/v1/pods': { ...podStrategy, subresourceUpdates: { ephemeralcontainers: ephemeralContainersStrategy, resize: resizeStrategy } },
  '/v1/services': serviceStrategy,
  '/v1/configmaps': configMapStrategy,
  '/v1/secrets': secretStrategy,
  // kube's eventStrategy: events never get the GC's finalizers, and the GC does not follow them
  '/v1/events': { defaultGarbageCollectionPolicy: 'Unsupported' },
};
