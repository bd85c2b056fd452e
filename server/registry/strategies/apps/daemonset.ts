// DaemonSets: kube's SetDefaults_DaemonSet (updateStrategy RollingUpdate with maxUnavailable 1 and maxSurge 0,
// revisionHistoryLimit 10), the core of ValidateDaemonSetSpec (selector, template, restartPolicy Always, update
// strategy), the apps/v1 immutable selector, and the template generation kube keeps in apps/v1 as the
// deprecated.daemonset.template.generation annotation (pkg/registry/apps/daemonset/strategy.go,
// pkg/apis/apps/v1/conversion.go): 1 on create, +1 whenever the pod template changes, never set by clients.
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { jsonEqual, metaOf } from '../../object-fields.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';
import { defaultTemplate, intOrPercentValue, nonNegative, selectorImmutable, specOf, validateControllerTemplate, validateIntOrPercent, validateSelectorAndTemplate } from './workload.js';

/** appsv1.DeprecatedTemplateGeneration */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

function templateGenerationOf(obj: KubeObject): number {
  const raw = metaOf(obj).annotations?.[templateGenerationAnnotation];
  const n = raw !== undefined && /^-?[0-9]+$/.test(raw) ? Number.parseInt(raw, 10) : 0;
  return Number.isSafeInteger(n) ? n : 0;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  const meta = metaOf(obj);
  meta.annotations = { ...(meta.annotations ?? {}), [templateGenerationAnnotation]: String(generation) };
}

export const daemonSetStrategy: Strategy = {
  prepareForCreate(obj) {
    setTemplateGeneration(obj, Math.max(1, templateGenerationOf(obj)));
  },
  prepareForUpdate(obj, old, subresource) {
    // kube's daemonSetStrategy.PrepareForUpdate; its status strategy leaves the annotation alone
    if (subresource !== '') return;
    const oldGeneration = templateGenerationOf(old);
    const templateChanged = !jsonEqual(specOf(obj)['template'] ?? null, specOf(old)['template'] ?? null);
    setTemplateGeneration(obj, templateChanged ? oldGeneration + 1 : oldGeneration);
  },
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    const strategy = objAt(spec, 'updateStrategy');
    if (strategy['type'] === undefined || strategy['type'] === null || strategy['type'] === '') strategy['type'] = 'RollingUpdate';
    if (strategy['type'] === 'RollingUpdate') {
      const ru = objAt(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultTemplate(spec);
  },
  validate(obj) {
    return validateDaemonSetSpec(specOf(obj));
  },
  validateUpdate(obj, old) {
    return [...validateDaemonSetSpec(specOf(obj)), ...selectorImmutable(obj, old)];
  },
};

/** ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet. */
function validateUpdateStrategy(strategy: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  switch (strategy['type']) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = strategy['rollingUpdate'] as Obj | undefined | null;
      if (!ru) return [fieldErrors.required(path.child('rollingUpdate'))];
      const ruPath = path.child('rollingUpdate');
      errs.push(...validateIntOrPercent(ru['maxUnavailable'], ruPath.child('maxUnavailable'), { notOver100: true }));
      errs.push(...validateIntOrPercent(ru['maxSurge'], ruPath.child('maxSurge'), { notOver100: true }));
      const hasUnavailable = intOrPercentValue(ru['maxUnavailable']) !== 0;
      const hasSurge = intOrPercentValue(ru['maxSurge']) !== 0;
      if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(ruPath.child('maxSurge'), ru['maxSurge'], 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(ruPath.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(path, strategy, ['RollingUpdate', 'OnDelete']));
  }
  return errs;
}

function validateDaemonSetSpec(spec: Obj): FieldError[] {
  const path = FieldPath.root('spec');
  return [
    // a DaemonSet without a selector only fails to match its template (kube has no Required for it)
    ...validateSelectorAndTemplate(spec, path, { emptyName: 'daemonset', selectorOptional: true }),
    ...validateControllerTemplate(spec, path, 'DaemonSet'),
    ...nonNegative(spec['minReadySeconds'], path.child('minReadySeconds')),
    ...validateUpdateStrategy((spec['updateStrategy'] ?? {}) as Obj, path.child('updateStrategy')),
    ...nonNegative(spec['revisionHistoryLimit'], path.child('revisionHistoryLimit')),
  ];
}
