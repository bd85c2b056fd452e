// CRD version conversion (issue #9): converters for strategies None and Webhook, and spec.conversion validation.
export { conversionFailure, converterFor } from './converter.js';
export type { ConverterDeps, CustomResourceConverter } from './converter.js';
export { acceptedConversionReviewVersions, caBundleProblem, conversionValidationOptionsForUpdate, validateCustomResourceConversion } from './validation.js';
export type { ConversionValidationOptions } from './validation.js';
export { conversionReviewVersionFor, createConversionReview, decodeConversionReview } from './review.js';
export type { ConversionReviewVersion } from './review.js';
