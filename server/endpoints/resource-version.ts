// A resourceVersion query parameter that is not a revision number, answered as kube-apiserver answers it. kube's
// storage versioner (k8s.io/apiserver/pkg/storage/api_object_versioner.go ParseResourceVersion) refuses it with
// storage.NewInvalidError(field.Invalid("resourceVersion", rv, <strconv.ParseUint error>)), and where that error
// surfaces decides the answer:
// - list: storage.ValidateListOptions (pkg/storage/interfaces.go) wraps it: 400 BadRequest "invalid resource version: …";
// - get (CacheDelegator.Get, pkg/storage/cacher/delegator.go) and watch (Cacher.Watch, pkg/storage/cacher/cacher.go)
//   return it as is; InterpretGetError passes it through, and ErrorToAPIStatus answers a plain error with a 500
//   without a reason whose message is the error text.
import { errors, StatusError } from '../api/errors.js';
import { formatFieldError, GoStructValue } from '../api/field.js';
import { goQuote, parseGoUint64 } from '../options/go-strconv.js';

/** The text of the versioner's InvalidError for rv, or undefined when rv is absent, "", "0" or a uint64. */
export function resourceVersionParseError(rv: string | undefined): string | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  const parsed = parseGoUint64(rv);
  if (parsed.ok) return undefined;
  // field.Invalid prints a string value with %q
  return formatFieldError({ type: 'Invalid', field: 'resourceVersion', badValue: new GoStructValue(goQuote(rv)), detail: parsed.error });
}

/** A list's answer to an unparsable resourceVersion (outside a continue token, which has its own check). */
export function checkListResourceVersion(rv: string | undefined): void {
  const problem = resourceVersionParseError(rv);
  if (problem !== undefined) throw errors.badRequest(`invalid resource version: ${problem}`);
}

/** A get's or a watch's answer to an unparsable resourceVersion: kube's reasonless 500. */
export function checkGetOrWatchResourceVersion(rv: string | undefined): void {
  const problem = resourceVersionParseError(rv);
  if (problem !== undefined) throw new StatusError(500, '', problem);
}
