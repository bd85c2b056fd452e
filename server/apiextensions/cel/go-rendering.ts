// Go's %#v of apiextensions.ValidationRule, which kube prints as the bad value of CRD-time rule errors:
// `…x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.x >", …}: compilation failed: …`.
import type { ValidationRule } from '../../api/apiextensions.js';
import { GoStructValue } from '../../api/field.js';
import { goQuote } from '../../options/go-strconv.js';

/** Pointers print as their address in Go; any address is as good as kube's (it differs on every request). */
const GO_POINTER = '0xc000000000';

export function goValidationRule(rule: ValidationRule): GoStructValue {
  const reason = rule.reason === undefined ? 'nil' : GO_POINTER;
  const optionalOldSelf = rule.optionalOldSelf === undefined ? 'nil' : GO_POINTER;
  return new GoStructValue(
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? '')}, Message:${goQuote(rule.message ?? '')}, ` +
      `MessageExpression:${goQuote(rule.messageExpression ?? '')}, Reason:(*apiextensions.FieldValueErrorReason)(${reason}), ` +
      `FieldPath:${goQuote(rule.fieldPath ?? '')}, OptionalOldSelf:(*bool)(${optionalOldSelf})}`,
  );
}
