// KEP-5793 static manifests on disk as a user writes them: one YAML file per policy (policy and binding) or per
// webhook configuration, an AdmissionConfiguration naming the directories, and the flags that load it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { generateCA } from '../certs/index.js';
import type { KubeObject } from '../server/api/types.js';
import { configMapPolicy, neverCalledWebhookConfiguration, policyBinding } from './admission-objects.js';

/** Required of every manifest-loaded object's name (KEP-5793). */
export const staticSuffix = '.static.k8s.io';

export type StaticPlugin = 'ValidatingAdmissionPolicy' | 'ValidatingAdmissionWebhook';

const pluginConfigKind: Record<StaticPlugin, string> = {
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyConfiguration',
  ValidatingAdmissionWebhook: 'WebhookAdmissionConfiguration',
};

/** How the manifest files are written: YAML (what users write) or JSON (what a generator may write). */
export type ManifestFormat = 'yaml' | 'json';

/** Multi-document YAML, as `kubectl get -o yaml` pieces are pasted together; in JSON, a v1 List. */
export function manifestText(objects: readonly KubeObject[], format: ManifestFormat = 'yaml'): string {
  if (format === 'json') return JSON.stringify(objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects }, null, 2) + '\n';
  return objects.map((o) => stringify(o)).join('---\n');
}

/** The policy and binding of static policy `i`, whose rule denies the label `deniedLabel`. */
export function staticPolicyDocuments(i: number, deniedLabel: string, format: ManifestFormat = 'yaml'): string {
  const policy = `bench-policy-${i}${staticSuffix}`;
  return manifestText([configMapPolicy(policy, deniedLabel), policyBinding(`bench-policy-${i}-binding${staticSuffix}`, policy)], format);
}

let caBundle: Promise<string> | undefined;

/** A valid base64 PEM for webhooks that are never called; generated once per process. */
function neverUsedCaBundle(): Promise<string> {
  caBundle ??= generateCA({ commonName: 'kah-bench-unused-ca' }).then((ca) => Buffer.from(ca.cert).toString('base64'));
  return caBundle;
}

function fileName(prefix: string, i: number, format: ManifestFormat): string {
  return `${prefix}-${String(i).padStart(3, '0')}.${format}`;
}

export async function writeStaticPolicies(dir: string, count: number, format: ManifestFormat = 'yaml'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Promise.all(Array.from({ length: count }, (_, i) => writeFile(path.join(dir, fileName('policy', i, format)), staticPolicyDocuments(i, `bench.kah.dev/forbidden-${i}`, format))));
}

export async function writeStaticWebhooks(dir: string, count: number, format: ManifestFormat = 'yaml'): Promise<void> {
  await mkdir(dir, { recursive: true });
  const ca = await neverUsedCaBundle();
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      writeFile(path.join(dir, fileName('webhook', i, format)), manifestText([neverCalledWebhookConfiguration(`bench-webhook-${i}${staticSuffix}`, i, ca)], format)),
    ),
  );
}

/** Writes an AdmissionConfiguration naming each plugin's staticManifestsDir; returns the server flags that load it. */
export async function writeAdmissionConfig(file: string, dirs: Partial<Record<StaticPlugin, string>>): Promise<string[]> {
  const config = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: Object.entries(dirs).map(([name, dir]) => ({
      name,
      configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: pluginConfigKind[name as StaticPlugin], staticManifestsDir: dir },
    })),
  };
  await writeFile(file, stringify(config));
  return ['--feature-gates=ManifestBasedAdmissionControlConfig=true', `--admission-control-config-file=${file}`];
}

/** `policies` policies (+ bindings) and `webhooks` webhook configurations under `root`; returns the server flags. */
export async function writeStaticAdmission(root: string, policies: number, webhooks: number, format: ManifestFormat = 'yaml'): Promise<string[]> {
  const policyDir = path.join(root, 'policies');
  const webhookDir = path.join(root, 'webhooks');
  await Promise.all([writeStaticPolicies(policyDir, policies, format), writeStaticWebhooks(webhookDir, webhooks, format)]);
  return writeAdmissionConfig(path.join(root, 'admission-config.yaml'), { ValidatingAdmissionPolicy: policyDir, ValidatingAdmissionWebhook: webhookDir });
}
