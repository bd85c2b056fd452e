// apiregistration.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { apiServiceStrategy } from './api-service.js';

export const apiregistrationStrategies: Record<string, Strategy> = {
  'apiregistration.k8s.io/v1/apiservices': apiServiceStrategy,
};
