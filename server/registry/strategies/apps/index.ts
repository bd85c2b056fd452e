// apps/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { controllerRevisionStrategy } from './controllerrevision.js';
import { daemonSetStrategy } from './daemonset.js';
import { deploymentStrategy } from './deployment.js';
import { replicaSetStrategy } from './replicaset.js';
import { statefulSetStrategy } from './statefulset.js';

export const appsStrategies: Record<string, Strategy> = {
  'apps/v1/deployments': deploymentStrategy,
  'apps/v1/replicasets': replicaSetStrategy,
  'apps/v1/statefulsets': statefulSetStrategy,
  'apps/v1/daemonsets': daemonSetStrategy,
  'apps/v1/controllerrevisions': controllerRevisionStrategy,
};
