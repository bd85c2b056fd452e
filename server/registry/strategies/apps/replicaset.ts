// ReplicaSets: kube's SetDefaults_ReplicaSet (replicas 1, the template's pod defaults), ValidateReplicaSet
// (replicas, minReadySeconds, selector and template — with the "deployment" wording kube shares) and the
// apps/v1 strategy's immutable selector (pkg/registry/apps/replicaset/strategy.go).
import { FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultTemplate, nonNegative, selectorImmutable, specOf, validateControllerTemplate, validateSelectorAndTemplate } from './workload.js';

export const replicaSetStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    defaultTemplate(spec);
  },
  validate(obj) {
    return validateReplicaSetSpec(specOf(obj));
  },
  validateUpdate(obj, old) {
    return [...validateReplicaSetSpec(specOf(obj)), ...selectorImmutable(obj, old)];
  },
};

function validateReplicaSetSpec(spec: Obj): FieldError[] {
  const path = FieldPath.root('spec');
  return [
    ...nonNegative(spec['replicas'], path.child('replicas')),
    ...nonNegative(spec['minReadySeconds'], path.child('minReadySeconds')),
    ...validateSelectorAndTemplate(spec, path, { emptyName: 'deployment', unconvertibleDetail: 'invalid label selector' }),
    ...validateControllerTemplate(spec, path, 'ReplicaSet'),
  ];
}
