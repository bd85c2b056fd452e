// PriorityLevelConfigurations: kube's SetDefaults_LimitedPriorityLevelConfiguration (nominalConcurrencyShares 30,
// lendablePercent 0), SetDefaults_ExemptPriorityLevelConfiguration (0, 0) and SetDefaults_QueuingConfiguration
// (handSize 8, queues 64, queueLengthLimit 50) of pkg/apis/flowcontrol/v1/defaults.go, and the core of
// ValidatePriorityLevelConfigurationSpec (pkg/apis/flowcontrol/validation/validation.go).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { objAt, setDefault, type Obj } from '../fields.js';

const types = ['Exempt', 'Limited'];
const limitResponseTypes = ['Queue', 'Reject'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function validateLendable(v: unknown, path: FieldPath): FieldError[] {
  return typeof v === 'number' && (v < 0 || v > 100) ? [fieldErrors.invalid(path, v, 'must be between 0 and 100, inclusive')] : [];
}

function validateLimited(limited: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ncs = limited['nominalConcurrencyShares'];
  if (typeof ncs === 'number' && ncs < 0) errs.push(fieldErrors.invalid(path.child('nominalConcurrencyShares'), ncs, 'must be a non-negative integer'));
  errs.push(...validateLendable(limited['lendablePercent'], path.child('lendablePercent')));
  const br = limited['borrowingLimitPercent'];
  if (typeof br === 'number' && br < 0) errs.push(fieldErrors.invalid(path.child('borrowingLimitPercent'), br, 'if specified, must be a non-negative integer'));
  const lr = (limited['limitResponse'] ?? {}) as Obj;
  const lrPath = path.child('limitResponse');
  const queuing = lr['queuing'] as Obj | undefined | null;
  switch (lr['type']) {
    case 'Reject':
      if (isSet(queuing)) errs.push(fieldErrors.forbidden(lrPath.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
      break;
    case 'Queue':
      if (!isSet(queuing)) errs.push(fieldErrors.required(lrPath.child('queuing'), 'must not be empty if limited.limitResponse.type is Queue'));
      else errs.push(...validateQueuing(queuing!, lrPath.child('queuing')));
      break;
    default:
      errs.push(fieldErrors.notSupported(lrPath.child('type'), lr['type'] ?? '', limitResponseTypes));
  }
  return errs;
}

function validateQueuing(q: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (num(q['queueLengthLimit']) <= 0) errs.push(fieldErrors.invalid(path.child('queueLengthLimit'), num(q['queueLengthLimit']), 'must be positive'));
  if (num(q['queues']) <= 0) errs.push(fieldErrors.invalid(path.child('queues'), num(q['queues']), 'must be positive'));
  else if (num(q['handSize']) > num(q['queues'])) {
    errs.push(fieldErrors.invalid(path.child('handSize'), num(q['handSize']), `should not be greater than queues (${num(q['queues'])})`));
  }
  if (num(q['handSize']) <= 0) errs.push(fieldErrors.invalid(path.child('handSize'), num(q['handSize']), 'must be positive'));
  return errs;
}

function validatePriorityLevelConfiguration(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = String((obj['metadata'] as Obj | undefined)?.['name'] ?? '');
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  // the mandatory objects keep their type (kube: "type must be 'Exempt' if and only if name is 'exempt'")
  if ((name === 'exempt') !== (spec['type'] === 'Exempt')) errs.push(fieldErrors.invalid(path.child('type'), spec['type'] ?? '', "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (spec['type']) {
    case 'Exempt':
      if (isSet(spec['limited'])) errs.push(fieldErrors.forbidden(path.child('limited'), 'must be nil if the type is not Limited'));
      if (isSet(spec['exempt'])) errs.push(...validateLendable((spec['exempt'] as Obj)['lendablePercent'], path.child('exempt', 'lendablePercent')));
      break;
    case 'Limited':
      if (!isSet(spec['limited'])) errs.push(fieldErrors.required(path.child('limited'), 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(spec['limited'] as Obj, path.child('limited')));
      if (isSet(spec['exempt'])) errs.push(fieldErrors.forbidden(path.child('exempt'), 'must be nil if the type is Limited'));
      break;
    default:
      errs.push(fieldErrors.notSupported(path.child('type'), spec['type'] ?? '', types));
  }
  return errs;
}

export const priorityLevelConfigurationStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    if (isSet(spec['limited'])) {
      const limited = objAt(spec, 'limited');
      setDefault(limited, 'nominalConcurrencyShares', 30);
      setDefault(limited, 'lendablePercent', 0);
      const q = (limited['limitResponse'] as Obj | undefined)?.['queuing'];
      if (q && typeof q === 'object') {
        const queuing = q as Obj;
        for (const [k, v] of [['handSize', 8], ['queues', 64], ['queueLengthLimit', 50]] as const) if (!queuing[k]) queuing[k] = v;
      }
    }
    if (isSet(spec['exempt'])) {
      const exempt = objAt(spec, 'exempt');
      setDefault(exempt, 'nominalConcurrencyShares', 0);
      setDefault(exempt, 'lendablePercent', 0);
    }
  },
  validate: validatePriorityLevelConfiguration,
  validateUpdate: (obj) => validatePriorityLevelConfiguration(obj),
};
