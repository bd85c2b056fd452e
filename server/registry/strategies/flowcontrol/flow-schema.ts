// FlowSchemas: kube's SetDefaults_FlowSchemaSpec (pkg/apis/flowcontrol/v1/defaults.go: matchingPrecedence 1000)
// and the core of ValidateFlowSchemaSpec (pkg/apis/flowcontrol/validation/validation.go).
import { fieldErrors, FieldPath, type FieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import type { Strategy } from '../../resource.js';
import { nameIsDNSSubdomain } from '../../validation/name.js';
import { listAt, objAt, setDefault, type Obj } from '../fields.js';

export const flowSchemaMaxMatchingPrecedence = 10000;
const distinguisherMethods = ['ByNamespace', 'ByUser'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];

function validateFlowSchema(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = String((obj['metadata'] as Obj | undefined)?.['name'] ?? '');
  const spec = (obj['spec'] ?? {}) as Obj;
  const path = FieldPath.root('spec');
  const precedence = typeof spec['matchingPrecedence'] === 'number' ? spec['matchingPrecedence'] : 0;
  if (precedence <= 0) errs.push(fieldErrors.invalid(path.child('matchingPrecedence'), precedence, 'must be a positive value'));
  if (precedence > flowSchemaMaxMatchingPrecedence) errs.push(fieldErrors.invalid(path.child('matchingPrecedence'), precedence, `must not be greater than ${flowSchemaMaxMatchingPrecedence}`));
  if (precedence === 1 && name !== 'exempt') errs.push(fieldErrors.invalid(path.child('matchingPrecedence'), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = spec['distinguisherMethod'] as Obj | undefined | null;
  if (method && !distinguisherMethods.includes(String(method['type'] ?? ''))) {
    errs.push(fieldErrors.notSupported(path.child('distinguisherMethod', 'type'), method['type'] ?? '', distinguisherMethods));
  }
  const plName = String((spec['priorityLevelConfiguration'] as Obj | undefined)?.['name'] ?? '');
  if (plName.length > 0) for (const msg of nameIsDNSSubdomain(plName, false)) errs.push(fieldErrors.invalid(path.child('priorityLevelConfiguration', 'name'), plName, msg));
  else errs.push(fieldErrors.required(path.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'));
  listAt(spec, 'rules').forEach((rule, i) => {
    const rp = path.child('rules').index(i);
    const subjects = listAt(rule, 'subjects');
    if (subjects.length === 0) errs.push(fieldErrors.required(rp.child('subjects'), 'subjects must contain at least one value'));
    subjects.forEach((s, j) => {
      if (!subjectKinds.includes(String(s['kind'] ?? ''))) errs.push(fieldErrors.notSupported(rp.child('subjects').index(j).child('kind'), s['kind'] ?? '', subjectKinds));
    });
    if (listAt(rule, 'resourceRules').length === 0 && listAt(rule, 'nonResourceRules').length === 0) {
      errs.push(fieldErrors.required(rp, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    }
  });
  return errs;
}

export const flowSchemaStrategy: Strategy = {
  applyDefaults(obj) {
    const spec = objAt(obj as Obj, 'spec');
    if (spec['matchingPrecedence'] === 0) delete spec['matchingPrecedence'];
    setDefault(spec, 'matchingPrecedence', 1000);
  },
  validate: validateFlowSchema,
  validateUpdate: (obj) => validateFlowSchema(obj),
};
