// PodTemplates: the template's pod spec defaulted as a Pod's (SetDefaults_PodSpec and friends) and validated by
// ValidatePodTemplateSpec at path "template" (pkg/apis/core/validation ValidatePodTemplate/ValidatePodTemplateUpdate).
import { FieldPath } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { objAt, type Obj } from '../fields.js';
import { defaultPodSpec } from './pod.js';
import { validatePodTemplateSpec } from './replicationcontroller.js';

const validate = (obj: Obj) => validatePodTemplateSpec((obj['template'] ?? {}) as Obj, FieldPath.root('template'));

export const podTemplateStrategy: Strategy = {
  applyDefaults(obj) {
    defaultPodSpec(objAt(objAt(obj as Obj, 'template'), 'spec'));
  },
  validate: (obj) => validate(obj as Obj),
  validateUpdate: (obj) => validate(obj as Obj),
};
