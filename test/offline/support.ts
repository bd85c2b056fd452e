// Shared by the offline command tests: temp directories of configuration files and the objects written to them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { anonymousWithAlwaysAllowWarning } from '../../server/options/server-options.js';

/** A temp directory removed by cleanup(); write() takes text or an object (written as YAML). */
export class TempDir {
  readonly path = mkdtempSync(path.join(tmpdir(), 'kah-offline-'));

  write(name: string, content: string | object | object[]): string {
    const file = path.join(this.path, name);
    mkdirSync(path.dirname(file), { recursive: true });
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => YAML.stringify(c)).join('---\n') : YAML.stringify(content);
    writeFileSync(file, text);
    return file;
  }

  dir(name: string): string {
    const d = path.join(this.path, name);
    mkdirSync(d, { recursive: true });
    return d;
  }

  cleanup(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

/** An AdmissionConfiguration giving each plugin its staticManifestsDir. */
export function admissionConfiguration(dirs: Partial<Record<'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy' | 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook', string>>): object {
  const kinds = {
    ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyConfiguration',
    MutatingAdmissionPolicy: 'MutatingAdmissionPolicyConfiguration',
    ValidatingAdmissionWebhook: 'WebhookAdmissionConfiguration',
    MutatingAdmissionWebhook: 'WebhookAdmissionConfiguration',
  } as const;
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: Object.entries(dirs).map(([name, dir]) => ({
      name,
      configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: kinds[name as keyof typeof kinds], staticManifestsDir: dir },
    })),
  };
}

/**
 * What every offline command prints first with kube-apiserver's default flags: the default --authorization-mode is
 * AlwaysAllow, so kube's ApplyAuthorization (pkg/kubeapiserver/options/authentication.go) switches anonymous
 * authentication off with this warning, and `kah serve` prints it at startup too.
 */
export const defaultFlagsWarning = `Warning: ${anonymousWithAlwaysAllowWarning}\n`;

export const gateOn = '--feature-gates=ManifestBasedAdmissionControlConfig=true';

const deployments = { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] };

/** A ValidatingAdmissionPolicy on Deployments: replicas at most `max`. */
export function maxReplicasPolicy(name: string, max: number): object {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [deployments] },
      validations: [{ expression: `object.spec.replicas <= ${max}`, messageExpression: `"replicas must be at most ${max}, got " + string(object.spec.replicas)` }],
    },
  };
}

export function binding(kind: 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding', name: string, policyName: string, spec: object = {}): object {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, spec: { policyName, ...(kind === 'ValidatingAdmissionPolicyBinding' ? { validationActions: ['Deny'] } : {}), ...spec } };
}

export function deployment(name: string, replicas: number, extra: { namespace?: string; labels?: Record<string, string> } = {}): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(extra.namespace ? { namespace: extra.namespace } : {}), ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  };
}
