// Manifests shared by the CRD suites.
import type { ApiServerHandle } from '../../harness/apiserver-process.js';
import { changeApiVersionOnly, type ConversionWebhookServer, type ConvertFunction } from '../../harness/conversion-webhook-server.js';
import type { KubeObject } from '../../server/api/types.js';
import { api } from '../admission/support.js';
import { eventually } from '../support/eventually.js';

/** crontabs.stable.example.com: namespaced, short name ct, category all, +status, +scale, printer columns, a schema with a default. */
export const crontabCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec:
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image:
                type: string
              replicas:
                type: integer
                minimum: 0
                maximum: 10
                default: 1
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

/** The CronTab of the conversion suites: v1 has spec.cronSpec, v2 has spec.schedule (the conversion webhook renames it). */
export const cronConvert: ConvertFunction = (obj, desired) => {
  const spec = { ...(obj['spec'] as Record<string, unknown> | undefined) };
  const [from, to] = desired.endsWith('/v2') ? ['cronSpec', 'schedule'] : ['schedule', 'cronSpec'];
  if (from in spec) {
    spec[to] = spec[from];
    delete spec[from];
  }
  return { ...changeApiVersionOnly(obj, desired), spec } as KubeObject;
};

/** crontabs.<group>: served at v1 (storage) and v2, whose shapes differ, converted by the webhook (cronConvert). */
export function convertedCronTabCRD(group: string, webhook: Pick<ConversionWebhookServer, 'url' | 'caBundle'>): KubeObject {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: webhook.url('/convert'), caBundle: webhook.caBundle }, conversionReviewVersions: ['v1'] } },
    },
  };
}

/** Creates convertedCronTabCRD(group) and waits until v2 is served. */
export async function createConvertedCronTabCRD(server: ApiServerHandle, group: string, webhook: Pick<ConversionWebhookServer, 'url' | 'caBundle'>): Promise<{ group: string; plural: string; kind: string }> {
  const r = await api(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', convertedCronTabCRD(group, webhook));
  if (r.status !== 201) throw new Error(`crd: ${r.status} ${JSON.stringify(r.json)}`);
  await eventually(async () => expect((await api(server, 'GET', `/apis/${group}/v2`)).status).toBe(200), 15_000);
  return { group, plural: 'crontabs', kind: 'CronTab' };
}
