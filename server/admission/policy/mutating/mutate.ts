// One mutation of one (policy, binding, param) invocation: kube's patcher.Patch. The expression is evaluated against
// the object as the previous mutations left it, with a cost budget of its own and its own pass over the variables
// (kube's composition context is created per evaluation); the result is applied as an ApplyConfiguration or a JSON
// patch. Expected failures are values: `error` follows the policy's failurePolicy, `status` is sent as it is.
import { errors, type StatusError } from '../../../api/errors.js';
import type { GroupVersionKind, KubeObject } from '../../../api/types.js';
import { celTypeName, evaluatePass, runtimeCostBudget, type Activation, type CompiledVariable } from '../generic/expressions.js';
import { applyStructuredMergeDiff } from './apply-configuration.js';
import { applySchemaFor } from './apply-schema.js';
import { loadedTypedKind } from '../../../api/openapi/typed-object.js';
import type { CompiledMutation } from './compile.js';
import { applyJsonPatchMutation, jsonPatchOperationsOf, strictDecodingError } from './json-patch.js';
import { objectTypeMismatch } from './object-type-names.js';

export type MutationOutcome =
  /** the patched object, not yet defaulted (the object itself when a JSON patch's test failed) */
  | { ok: true; object: KubeObject }
  /** the invocation's error: subject to failurePolicy */
  | { ok: false; error: string }
  /** an API error returned to the client as it is, whatever the failurePolicy */
  | { ok: false; status: StatusError };

export interface MutationInput {
  /** the object to patch, with its apiVersion and kind */
  object: KubeObject;
  /** the other variables of the evaluation (`object` is taken from above) */
  activation: Omit<Activation, 'object'>;
  /** the object's kind: its structured-merge schema */
  kind: GroupVersionKind;
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function applyMutation(
  mutation: CompiledMutation,
  variables: readonly CompiledVariable[],
  input: MutationInput,
  opts: { budget?: number } = {},
): MutationOutcome {
  // CompilationErrors() are returned before anything is evaluated, as the compiler wrote them
  if (!mutation.slot.compiled.ok) return { ok: false, error: mutation.slot.compiled.error };
  const pass = evaluatePass([mutation.slot], variables, { ...input.activation, object: input.object }, opts.budget ?? runtimeCostBudget, { authorizer: true });
  if (!pass.ok) return { ok: false, error: pass.error };
  const result = pass.results[0]!;
  if (!result.ok) return { ok: false, error: result.error };
  const schema = applySchemaFor(input.kind);

  if (mutation.patchType === 'ApplyConfiguration') {
    // the compiler refused every other result type (../../cel/index.ts); kept as kube's patcher keeps its check
    if (!isMap(result.value)) return { ok: false, error: `must evaluate to Object but got ${celTypeName(result.value)}` };
    const mismatch = objectTypeMismatch(result.value);
    if (mismatch !== undefined) return { ok: false, error: mismatch };
    // structured-merge-diff's conversion to a typed value also checks the values' types
    const typeErrors = loadedTypedKind(input.kind)?.applyConfigurationTypeErrors(result.value) ?? [];
    if (typeErrors.length > 0) {
      const list = typeErrors.length === 1 ? typeErrors[0]! : ['errors:', ...typeErrors.map((e) => `  ${e}`)].join('\n');
      return { ok: false, error: `error applying patch: failed to convert patch object to typed object: ${list}` };
    }
    const applied = applyStructuredMergeDiff(input.object, result.value, schema);
    if (!applied.ok) return { ok: false, error: `error applying patch: ${applied.error}` };
    return { ok: true, object: applied.object };
  }

  const ops = jsonPatchOperationsOf(result.value);
  if (!ops.ok) return { ok: false, error: ops.error };
  const patched = applyJsonPatchMutation(input.object, ops.operations);
  if (!patched.ok) return { ok: false, error: patched.error };
  // the strict json serializer decodes the patched JSON into the kind's Go type: a wrong type fails first
  const fields = loadedTypedKind(input.kind);
  const typed = fields?.decodePlain(patched.object as Record<string, unknown>);
  if (typed && !typed.ok) return { ok: false, status: errors.internal(new Error(typed.error)) };
  const strict = strictDecodingError(schema.unknownFields(patched.object));
  if (strict !== undefined) return { ok: false, status: errors.internal(new Error(strict)) };
  typed?.prune();
  return { ok: true, object: patched.object };
}
