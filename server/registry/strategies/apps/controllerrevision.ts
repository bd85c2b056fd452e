// ControllerRevisions: kube's ValidateControllerRevisionCreate (data is mandatory, revision >= 0) and
// ValidateControllerRevisionUpdate (data is immutable; revision is not: controllers renumber a revision they
// reuse). pkg/apis/apps/validation/validation.go, pkg/registry/apps/controllerrevision/strategy.go.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { nonNegative } from './workload.js';

function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  // an absent or null data decodes to a nil runtime.Object
  if (obj['data'] === undefined || obj['data'] === null) errs.push(fieldErrors.required('data', 'data is mandatory'));
  errs.push(...nonNegative(obj['revision'], FieldPath.root('revision')));
  return errs;
}

export const controllerRevisionStrategy: Strategy = {
  validate: validateControllerRevision,
  validateUpdate(obj, old) {
    const errs = validateControllerRevision(obj);
    // kube renders the bad value as the raw JSON of the new data
    if (!jsonEqual(obj['data'] ?? null, old['data'] ?? null)) errs.push(fieldErrors.invalid('data', obj['data'] ?? null, 'field is immutable'));
    return errs;
  },
};
