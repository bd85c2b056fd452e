// Deployments: kube's SetDefaults_Deployment and the core of ValidateDeployment (selector, template labels,
// replicas, strategy) and ValidateDeploymentUpdate (the selector is immutable in apps/v1).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultTemplate, intOrPercentValue, nonNegative, selectorImmutable, specOf, validateControllerTemplate, validateIntOrPercent, validateSelectorAndTemplate } from './workload.js';

export const deploymentStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    const strategy = objAt(spec, 'strategy');
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const ru = objAt(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', '25%');
      setDefault(ru, 'maxSurge', '25%');
    }
    defaultTemplate(spec);
  },
  validate(obj) {
    return validateDeploymentSpec(specOf(obj));
  },
  validateUpdate(obj, old) {
    return [...validateDeploymentSpec(specOf(obj)), ...selectorImmutable(obj, old)];
  },
};

/** ValidateDeploymentStrategy and ValidateRollingUpdateDeployment. */
function validateDeploymentStrategy(strategy: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ru = strategy['rollingUpdate'] as Obj | undefined | null;
  switch (strategy['type']) {
    case 'Recreate':
      if (ru) errs.push(fieldErrors.forbidden(path.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate': {
      if (!ru) {
        errs.push(fieldErrors.required(path.child('rollingUpdate'), 'this should be defaulted and never be nil'));
        break;
      }
      const ruPath = path.child('rollingUpdate');
      errs.push(...validateIntOrPercent(ru['maxUnavailable'], ruPath.child('maxUnavailable')));
      errs.push(...validateIntOrPercent(ru['maxSurge'], ruPath.child('maxSurge')));
      if (intOrPercentValue(ru['maxUnavailable']) === 0 && intOrPercentValue(ru['maxSurge']) === 0) {
        errs.push(fieldErrors.invalid(ruPath.child('maxUnavailable'), ru['maxUnavailable'] ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
      const mu = ru['maxUnavailable'];
      if (typeof mu === 'string' && intOrPercentValue(mu) > 100 && /^[0-9]+%$/.test(mu)) errs.push(fieldErrors.invalid(ruPath.child('maxUnavailable'), mu, 'must not be greater than 100%'));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(path, strategy, ['Recreate', 'RollingUpdate']));
  }
  return errs;
}

function validateDeploymentSpec(spec: Obj): FieldError[] {
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [...nonNegative(spec['replicas'], path.child('replicas'))];
  errs.push(...validateSelectorAndTemplate(spec, path, { emptyName: 'deployment', unconvertibleDetail: 'invalid label selector' }));
  // Deployments validate their template as a ReplicaSet's (ValidatePodTemplateSpecForReplicaSet), wording included.
  errs.push(...validateControllerTemplate(spec, path, 'ReplicaSet'));
  errs.push(...validateDeploymentStrategy((spec['strategy'] ?? {}) as Obj, path.child('strategy')));
  errs.push(...nonNegative(spec['minReadySeconds'], path.child('minReadySeconds')));
  errs.push(...nonNegative(spec['revisionHistoryLimit'], path.child('revisionHistoryLimit')));
  const pds = spec['progressDeadlineSeconds'];
  if (typeof pds === 'number') {
    errs.push(...nonNegative(pds, path.child('progressDeadlineSeconds')));
    const mrs = typeof spec['minReadySeconds'] === 'number' ? (spec['minReadySeconds'] as number) : 0;
    if (pds <= mrs) errs.push(fieldErrors.invalid(path.child('progressDeadlineSeconds'), pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}
