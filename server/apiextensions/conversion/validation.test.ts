// spec.conversion validation: kube's paths (the internal type's, spec.conversion.webhookClientConfig…) and messages.
import { generateCA } from '../../../certs/index.js';
import type { CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionSpec } from '../../api/apiextensions.js';
import { FieldPath, formatFieldError } from '../../api/field.js';
import { conversionValidationOptionsForUpdate, validateCustomResourceConversion, type ConversionValidationOptions } from './validation.js';

const path = FieldPath.root('spec', 'conversion');

function spec(conversion: unknown): CustomResourceDefinitionSpec {
  return {
    group: 'stable.example.com',
    names: { plural: 'crontabs', kind: 'CronTab' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true }],
    conversion: conversion as CustomResourceConversion,
  };
}

const validate = (conversion: unknown, opts?: ConversionValidationOptions): string[] => validateCustomResourceConversion(spec(conversion), path, opts).map(formatFieldError);

const url = 'https://conv.example.com/convert';
let caBundle = '';

beforeAll(async () => {
  caBundle = Buffer.from((await generateCA()).cert).toString('base64');
});

describe('validateCustomResourceConversion', () => {
  it.each<[string, unknown, string[]]>([
    ['no conversion', undefined, []],
    ['strategy None', { strategy: 'None' }, []],
    ['a webhook by URL', { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1', 'v1beta1'] } }, []],
    ['a webhook by service', { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert', port: 8443 } }, conversionReviewVersions: ['v1'] } }, []],
    ['an empty strategy', { strategy: '' }, ['spec.conversion.strategy: Required value']],
    ['an unknown strategy', { strategy: 'Magic' }, ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
    [
      'Webhook without webhook',
      { strategy: 'Webhook' },
      ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value'],
    ],
    [
      'both url and service',
      { strategy: 'Webhook', webhook: { clientConfig: { url, service: { namespace: 'ns', name: 'conv' } }, conversionReviewVersions: ['v1'] } },
      ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required'],
    ],
    [
      'an http URL',
      { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://conv.example.com/' }, conversionReviewVersions: ['v1'] } },
      [`spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`],
    ],
    [
      // kube swaps name and namespace when it calls ValidateWebhookService for CRDs
      'a service without namespace (reported as the name, as kube does)',
      { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: '', name: 'conv' } }, conversionReviewVersions: ['v1'] } },
      ['spec.conversion.webhookClientConfig.service.name: Required value: service name is required'],
    ],
    [
      'a bad service port',
      { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv', port: 70000 } }, conversionReviewVersions: ['v1'] } },
      ['spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive'],
    ],
    [
      'a duplicate review version',
      { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1', 'v1'] } },
      ['spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version'],
    ],
    [
      'no recognized review version',
      { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v2'] } },
      ['spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1'],
    ],
    [
      'an empty review version list',
      { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: [] } },
      ['spec.conversion.conversionReviewVersions: Required value'],
    ],
    [
      'a review version that is not a DNS label',
      { strategy: 'Webhook', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1', 'V2'] } },
      [
        `spec.conversion.conversionReviewVersions[1]: Invalid value: "V2": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      'a webhook with strategy None',
      { strategy: 'None', webhook: { clientConfig: { url }, conversionReviewVersions: ['v1'] } },
      [
        'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
        'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
      ],
    ],
    [
      'a caBundle without certificates',
      { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle: Buffer.from('nope').toString('base64') }, conversionReviewVersions: ['v1'] } },
      [`spec.conversion.webhookClientConfig.caBundle: Invalid value: "bm9wZQ==": data does not contain any valid RSA or ECDSA certificates`],
    ],
  ])('%s', (_name, conversion, expected) => {
    expect(validate(conversion)).toEqual(expected);
  });

  it('accepts a real CA bundle', () => {
    expect(validate({ strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } })).toEqual([]);
  });

  it('lets an update keep unrecognized review versions and an invalid caBundle when the old CRD had them', () => {
    const bad = { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle: Buffer.from('nope').toString('base64') }, conversionReviewVersions: ['v9'] } };
    const old: CustomResourceDefinition = { spec: spec(bad), status: { conditions: [{ type: 'Established', status: 'True' }] } };
    const opts = conversionValidationOptionsForUpdate(old);
    expect(opts).toEqual({ requireRecognizedVersion: false, allowInvalidCABundle: true });
    expect(validate(bad, opts)).toEqual([]);
  });

  it('requires a valid caBundle on update once the old CRD is established with a valid one', () => {
    const good = { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] } };
    const old: CustomResourceDefinition = { spec: spec(good), status: { conditions: [{ type: 'Established', status: 'True' }] } };
    expect(conversionValidationOptionsForUpdate(old)).toEqual({ requireRecognizedVersion: true, allowInvalidCABundle: false });
    const notEstablished: CustomResourceDefinition = { spec: spec(good) };
    expect(conversionValidationOptionsForUpdate(notEstablished).allowInvalidCABundle).toBe(true);
  });
});
