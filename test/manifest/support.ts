// Manifest directories for the loader and controller tests: real temp dirs, files written atomically (temp file,
// then rename) as the KEP asks operators to.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export class ManifestDir {
  readonly path: string;

  constructor() {
    this.path = mkdtempSync(path.join(tmpdir(), 'kah-manifests-'));
  }

  file(name: string): string {
    return path.join(this.path, name);
  }

  /** Writes `name` atomically: a temp file (ignored by the loader: wrong extension) renamed over it. */
  write(name: string, content: string): string {
    const target = this.file(name);
    mkdirSync(path.dirname(target), { recursive: true });
    const tmp = `${target}.tmp`;
    writeFileSync(tmp, content);
    renameSync(tmp, target);
    return target;
  }

  remove(name: string): void {
    rmSync(this.file(name), { force: true, recursive: true });
  }

  cleanup(): void {
    rmSync(this.path, { force: true, recursive: true });
  }
}

export const validatingWebhookYaml = (name: string, url = 'https://127.0.0.1:9443/validate', extra = ''): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: check.example.com
  clientConfig:
    url: ${url}
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [configmaps]
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}`;

export const mutatingWebhookYaml = (name: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: mutate.example.com
  clientConfig:
    url: https://127.0.0.1:9443/mutate
  sideEffects: None
  admissionReviewVersions: [v1]
`;

export const vapYaml = (name: string, specExtra = ''): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  validations:
  - expression: "!has(object.metadata.labels) || !('deny-me' in object.metadata.labels)"
${specExtra}`;

export const vapbYaml = (name: string, policyName: string, specExtra = ''): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policyName}
  validationActions: [Deny]
${specExtra}`;

export const mapYaml = (name: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [configmaps]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"static-mutated": "true"}}}'
`;

export const mapbYaml = (name: string, policyName: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policyName}
`;

export const docs = (...parts: string[]): string => parts.join('---\n');
