// Webhook matchConditions on the Kubernetes CEL environment (kube's webhook/matchconditions): every condition must
// be true for the webhook to be called; an evaluation error is returned to the dispatcher, which applies the
// webhook's failurePolicy. Conditions see object, oldObject, request and authorizer — no params, no variables,
// no namespaceObject.
import type { Authorizer } from '../../authz/types.js';
import type { CelEnvironment } from '../cel/environment.js';
import { compileSlot } from '../policy/generic/expressions.js';
import { requestAuthorizer } from '../policy/generic/authorizer.js';
import { evaluateMatchConditions, type CompiledMatchCondition } from '../policy/generic/match-conditions.js';
import { admissionRequestFor } from '../policy/generic/request.js';
import type { MatchConditionsEvaluator } from './dispatch.js';

export function celWebhookMatchConditions(cel: CelEnvironment, authorizer?: Authorizer): MatchConditionsEvaluator {
  const compiled = new Map<string, CompiledMatchCondition[]>();
  const compile = (uid: string, conditions: ReadonlyArray<{ name: string; expression: string }>): CompiledMatchCondition[] => {
    const key = `${uid}\u0000${conditions.map((c) => `${c.name}=${c.expression}`).join('\u0000')}`;
    let out = compiled.get(key);
    if (!out) {
      out = conditions.map((c) => ({
        name: c.name,
        slot: compileSlot({ cel, hasParams: false }, c.expression, { kind: 'bool', hasAuthorizer: true, variableNames: [], forWebhookMatchCondition: true }),
      }));
      compiled.set(key, out);
    }
    return out;
  };
  return (accessor, attrs, invocation) => {
    const conditions = compile(accessor.uid, accessor.webhook.matchConditions ?? []);
    const result = evaluateMatchConditions(
      conditions,
      [],
      {
        object: attrs.object ?? null,
        oldObject: attrs.oldObject ?? null,
        request: admissionRequestFor(attrs, invocation.resource, invocation.kind),
        params: null,
        namespaceObject: null,
        ...(authorizer ? { authorizer: requestAuthorizer(authorizer, attrs) } : {}),
      },
      { failurePolicy: 'Fail', operation: attrs.operation },
    );
    if (result.matches) return { matches: true };
    return 'error' in result ? { error: result.error } : { matches: false };
  };
}

/** Compile-time check for VWC/MWC validation and manifests: the error as kube prints it, or undefined. */
export function compileWebhookMatchCondition(cel: CelEnvironment) {
  return (expression: string): string | undefined => {
    const r = cel.compile(expression, { kind: 'bool', hasParams: false, hasAuthorizer: true, variableNames: [], forWebhookMatchCondition: true });
    return r.ok ? undefined : r.error;
  };
}
