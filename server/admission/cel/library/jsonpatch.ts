// kube's JSONPatch library (staging/src/k8s.io/apiserver/pkg/cel/library/jsonpatch.go): jsonpatch.escapeKey(string)
// escapes a key for a JSON Pointer path (RFC 6901): "~" becomes "~0" and "/" becomes "~1", in one pass, so an
// escaped "~1" stays "~01". kube adds it only to the environments of mutation expressions (plugin/cel/compile.go
// hasPatchTypes), next to the Object and JSONPatch types; ../index.ts does the same with `mutationLibraries`.
// Its cost is cost.go's: a traversal of the argument, the estimate's result size the argument's.
import { T, type CallEstimateInput, type LibraryRegistration } from '../engine/functions.js';
import { STRING_TRAVERSAL_COST_FACTOR, byFactor, sizeOf, stringTraversal } from './cost.js';

/** strings.NewReplacer("/", "~1", "~", "~0").Replace */
export function escapeJsonPatchKey(key: string): string {
  return key.replace(/[~/]/g, (c) => (c === '~' ? '~0' : '~1'));
}

export const jsonPatchLibrary: LibraryRegistration = {
  name: 'kubernetes.jsonpatch',
  functions: [
    {
      id: 'string_jsonpatch_escapeKey_string',
      name: 'jsonpatch.escapeKey',
      args: [T.string],
      result: T.string,
      impl: (s) => escapeJsonPatchKey(s as string),
      cost: (args) => stringTraversal(args[0]!),
      estimate: (i: CallEstimateInput) => {
        const sz = sizeOf(i.args[0]);
        return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      },
    },
  ],
};
