// node.k8s.io/v1 runtimeclasses: kube's ValidateRuntimeClass (handler a DNS label, so required) and
// ValidateRuntimeClassUpdate (handler immutable), pkg/apis/node/validation; kube defaults nothing.
import { fieldErrors, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { isDNS1123Label } from '../../validation/name.js';

const handlerOf = (o: Record<string, unknown>): string => (typeof o['handler'] === 'string' ? o['handler'] : '');

const runtimeClassStrategy: Strategy = {
  validate(o) {
    const handler = handlerOf(o);
    return isDNS1123Label(handler).map((m): FieldError => fieldErrors.invalid('handler', handler, m));
  },
  validateUpdate(o, old) {
    return handlerOf(o) === handlerOf(old) ? [] : [fieldErrors.invalid('handler', handlerOf(o), 'field is immutable')];
  },
};

export const nodeStrategies: Record<string, Strategy> = {
  'node.k8s.io/v1/runtimeclasses': runtimeClassStrategy,
};
