// policy/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { pdbStrategy } from './pdb.js';

export const policyStrategies: Record<string, Strategy> = {
  'policy/v1/poddisruptionbudgets': pdbStrategy,
};
