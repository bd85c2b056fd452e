// apiextensions.k8s.io/v1 types (CustomResourceDefinition, JSONSchemaProps, ConversionReview) with the JSON field
// names of the v1 API (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types*.go).
import type { ServiceReference } from './admissionregistration.js';
import type { KubeObject, ObjectMeta, Status } from './types.js';

export const apiextensionsGroup = 'apiextensions.k8s.io';

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export type ResourceScope = 'Namespaced' | 'Cluster';

/** x-kubernetes-validations[i] */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** An OpenAPI v3 schema as CRDs carry it (JSONSchemaProps). `default`, `enum` and `example` hold JSON values. */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** a schema, or (not allowed in structural schemas) an array of schemas */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface CustomResourceValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  /** an empty object enables /status */
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface SelectableField {
  jsonPath: string;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

export interface WebhookConversionClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 PEM */
  caBundle?: string;
}

export interface WebhookConversion {
  clientConfig?: WebhookConversionClientConfig;
  conversionReviewVersions: string[];
}

export interface CustomResourceConversion {
  strategy: 'None' | 'Webhook';
  webhook?: WebhookConversion;
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: ResourceScope;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export type CustomResourceDefinitionConditionType = 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant';

export interface CustomResourceDefinitionCondition {
  type: CustomResourceDefinitionConditionType;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  apiVersion?: 'apiextensions.k8s.io/v1';
  kind?: 'CustomResourceDefinition';
  metadata?: ObjectMeta;
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

export interface ConversionResponse {
  uid: string;
  convertedObjects?: KubeObject[];
  result: Status;
}

export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1' | 'apiextensions.k8s.io/v1beta1';
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}
