// batch/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { cronJobStrategy } from './cronjob.js';
import { jobStrategy } from './job.js';

export const batchStrategies: Record<string, Strategy> = {
  'batch/v1/jobs': jobStrategy,
  'batch/v1/cronjobs': cronJobStrategy,
};
