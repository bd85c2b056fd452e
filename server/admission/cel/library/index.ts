// The Kubernetes CEL libraries, in the order kube-apiserver's base environment adds them
// (staging/src/k8s.io/apiserver/pkg/cel/environment/base.go): URLs, Regex, Lists (1.0), Authz (1.27), Quantity
// (1.28), the strings extension at version 2 and the sets extension (1.29), IP and CIDR (1.30), Format and
// AuthzSelectors (1.31), Semver at version 1 (1.33). Optional types and two-variable comprehensions are language
// features of the engine, not libraries. The Image library (1.33) is not provided. JSONPatch is not in the base
// environment: kube adds it to mutation expressions only (`mutationLibraries`).
import type { LibraryRegistration } from '../engine/functions.js';
import { authzLibrary, authzSelectorsLibrary } from './authz.js';
import { cidrLibrary } from './cidr.js';
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
]);

/** What kube's plugin/cel hasPatchTypes adds for MutatingAdmissionPolicy mutations: jsonpatch.escapeKey. */
export const mutationLibraries: readonly LibraryRegistration[] = Object.freeze([jsonPatchLibrary]);

export {
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
