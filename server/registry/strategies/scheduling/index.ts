// scheduling.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { priorityClassStrategy } from './priorityclass.js';

export const schedulingStrategies: Record<string, Strategy> = {
  'scheduling.k8s.io/v1/priorityclasses': priorityClassStrategy,
};
