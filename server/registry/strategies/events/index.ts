// events.k8s.io/v1 registry strategies, keyed by "group/version/resource". The objects are core/v1 Events (one
// storage, two shapes): the catalogue entry carries the converting codec.
import type { Strategy } from '../../resource.js';
import { eventsV1EventStrategy } from './event.js';

export const eventsStrategies: Record<string, Strategy> = {
  'events.k8s.io/v1/events': eventsV1EventStrategy,
};
