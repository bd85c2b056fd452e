// Per-resource defaulting and validation (kube-apiserver's registry strategies), keyed by "group/version/resource".
import type { Strategy } from './resource.js';

export const strategies: Record<string, Strategy> = {};
