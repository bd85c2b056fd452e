// autoscaling registry strategies, keyed by "group/version/resource": one store, served at v2 and v1.
import type { Strategy } from '../../resource.js';
import { hpaV1Strategy, hpaV2Strategy } from './hpa.js';

export const autoscalingStrategies: Record<string, Strategy> = {
  'autoscaling/v2/horizontalpodautoscalers': hpaV2Strategy,
  'autoscaling/v1/horizontalpodautoscalers': hpaV1Strategy,
};
