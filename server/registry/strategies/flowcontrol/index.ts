// flowcontrol.apiserver.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { flowSchemaStrategy } from './flow-schema.js';
import { priorityLevelConfigurationStrategy } from './priority-level-configuration.js';

export const flowcontrolStrategies: Record<string, Strategy> = {
  'flowcontrol.apiserver.k8s.io/v1/flowschemas': flowSchemaStrategy,
  'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': priorityLevelConfigurationStrategy,
};
