// cel-go's bindings extension (ext/bindings.go): the `cel.bind(var, init, expr)` macro, expanded by the parser
// (engine/parser.ts) where a library enables it. Kubernetes 1.36 does not add it to its base environment
// (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go), so it is not among kubernetesLibraries; the cel-spec
// conformance runner and engine tests use it.
import type { LibraryRegistration } from '../engine/functions.js';

export const bindingsLibrary: LibraryRegistration = Object.freeze({ name: 'cel.lib.ext.cel.bindings', macros: ['cel.bind'] });
