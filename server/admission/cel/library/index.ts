// The Kubernetes CEL libraries, in the order kube-apiserver's base environment adds them
// (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go): URLs, Regex, Lists (1.0), Authz (1.27), Quantity
// (1.28), the strings extension at version 2 and the sets extension (1.29), IP and CIDR (1.30), Format and
// AuthzSelectors (1.31), two-variable comprehensions (1.32), Semver at version 1 (1.33), cel-go's lists extension at
// version 3 (1.34). Optional types and two-variable comprehensions are language features of the engine, not
// libraries. kube 1.36 enables neither cel-go's math nor its encoders (base64) extension, so neither is here.
// JSONPatch is not in the base environment: kube adds it to mutation expressions only (`mutationLibraries`).
// The AST validators kube adds (homogeneous literals; duration, timestamp and regex literals) are the engine's
// KUBERNETES_VALIDATORS (engine/validators.ts).
import type { LibraryRegistration } from '../engine/functions.js';
import { authzLibrary, authzSelectorsLibrary } from './authz.js';
import { cidrLibrary } from './cidr.js';
import { extListsLibrary } from './ext-lists.js';
import { formatLibrary } from './format.js';
import { ipLibrary } from './ip.js';
import { jsonPatchLibrary } from './jsonpatch.js';
import { listsLibrary } from './lists.js';
import { quantityLibrary } from './quantity.js';
import { regexLibrary } from './regex.js';
import { semverLibrary } from './semver.js';
import { setsLibrary } from './sets.js';
import { stringsLibrary } from './strings.js';
import { urlsLibrary } from './urls.js';

export const kubernetesLibraries: readonly LibraryRegistration[] = Object.freeze([
  urlsLibrary,
  regexLibrary,
  listsLibrary,
  authzLibrary,
  quantityLibrary,
  stringsLibrary,
  setsLibrary,
  ipLibrary,
  cidrLibrary,
  formatLibrary,
  authzSelectorsLibrary,
  semverLibrary,
  extListsLibrary,
]);

/** What kube's plugin/cel hasPatchTypes adds for MutatingAdmissionPolicy mutations: jsonpatch.escapeKey. */
export const mutationLibraries: readonly LibraryRegistration[] = Object.freeze([jsonPatchLibrary]);

export {
  extListsLibrary,
  authzLibrary,
  authzSelectorsLibrary,
  cidrLibrary,
  formatLibrary,
  ipLibrary,
  jsonPatchLibrary,
  listsLibrary,
  quantityLibrary,
  regexLibrary,
  semverLibrary,
  setsLibrary,
  stringsLibrary,
  urlsLibrary,
};
export type { AuthorizerCheckRequest, CheckUser } from './authz.js';
