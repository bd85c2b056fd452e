// The CustomResourceOps of this server: schema/ for validation, pruning and defaulting, cel/ for
// x-kubernetes-validations, conversion/ for converters (webhooks called with the given client), printer-cells
// for additionalPrinterColumns. Loaded on demand (serving.ts), so none of these load before a CRD is served.
import type { WebhookClient } from '../../admission/webhook/client.js';
import { customResourceRuleValidator } from '../cel/index.js';
import { converterFor } from '../conversion/index.js';
import { customResourceCell } from './printer-cells.js';
import { applySchemaDefaults, pruneUnknownFields, structuralSchemaViolations, validateCustomResourceValue } from '../schema/index.js';
import type { CustomResourceOps } from './schema-ops.js';

export function customResourceOps(deps: { webhookClient: WebhookClient }): CustomResourceOps {
  return {
    validateValue: validateCustomResourceValue,
    prune: (obj, schema) => pruneUnknownFields(obj, schema, { isResourceRoot: true }),
    applyDefaults: applySchemaDefaults,
    compileRules(schema) {
      const validator = customResourceRuleValidator(schema);
      return validator.hasRules ? validator : undefined;
    },
    converterFor: (crd) => converterFor(crd, { webhookClient: deps.webhookClient }),
    printerCell: customResourceCell,
    structuralViolations: structuralSchemaViolations,
  };
}
