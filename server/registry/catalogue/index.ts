// The resources this apiserver serves. Data only, one file per API group; the columns mirror kube-apiserver's
// printers (pkg/printers/internalversion) so `kubectl get` prints what it prints against a real cluster.
import { allVerbs, gvrKey, type ResourceInfo, type Strategy } from '../resource.js';
import { strategiesFor } from '../strategies/index.js';
import type { PolicyStrategyOptions } from '../strategies/policies.js';
import type { WebhookConfigurationStrategyOptions } from '../strategies/admissionregistration.js';
import { customResourceDefinitionResource } from '../../apiextensions/crd-resource.js';
import { admissionregistrationEntries } from './admissionregistration.js';
import { appsEntries } from './apps.js';
import { policyEntries } from './policy.js';
import { coreEntries } from './core.js';
import { age, type Entry } from './entry.js';
import { reviewEntries } from './reviews.js';

const entries: readonly Entry[] = [...coreEntries, ...appsEntries, ...admissionregistrationEntries, ...reviewEntries, ...policyEntries];

function complete(e: Entry, strategies: Record<string, Strategy>): ResourceInfo {
  const strategy: Strategy = strategies[gvrKey(e.group, e.version, e.resource)] ?? {};
  return {
    listKind: `${e.kind}List`,
    singular: e.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    verbs: allVerbs,
    subresources: {},
    nameRule: 'DNS1123Subdomain',
    hasGeneration: false,
    hasStatus: false,
    printerColumns: [age],
    strategy,
    ...e,
  };
}

/** The built-in resources, with the strategies of the given feature gates. */
export function builtinResourcesFor(gates: WebhookConfigurationStrategyOptions & PolicyStrategyOptions = {}): readonly ResourceInfo[] {
  const strategies = strategiesFor(gates);
  // apiextensions.k8s.io/v1 customresourcedefinitions: its strategy compiles CEL rules, so it is built per server.
  return Object.freeze([...entries.map((e) => complete(e, strategies)), complete(customResourceDefinitionResource(gates), strategies)]);
}

/** The built-in resources under the default feature gates. */
export const builtinResources: readonly ResourceInfo[] = builtinResourcesFor();
