// apps/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { deploymentStrategy } from './deployment.js';

export const appsStrategies: Record<string, Strategy> = {
  'apps/v1/deployments': deploymentStrategy,
};
