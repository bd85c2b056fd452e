// authentication.k8s.io/v1 and authorization.k8s.io/v1 reviews: create-only, answered by the authn/authz stubs,
// never stored.
import type { Entry } from './entry.js';

export const reviewEntries: Entry[] = [
  { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'], virtual: 'authentication' },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'], virtual: 'authentication' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: ['create'], virtual: 'authorization' },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'], virtual: 'authorization' },
];
