// Which configuration refused an offline request. The chain tells which plugin rejected; within the plugin the
// configuration is named by kube's own denial texts, which are part of the API (clients match on them):
//   ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: …
//   policy '<policy>' with binding '<binding>' denied request: …            (MutatingAdmissionPolicy)
//   admission webhook "<webhook>" denied the request: …  /  failed calling webhook "<webhook>": …
import type { WebhookAccessor } from '../../server/api/admissionregistration.js';
import type { KubeObject } from '../../server/api/types.js';
import type { RestObject } from './rest-manifests.js';
import type { LoadedStaticDir } from './startup-check.js';

export interface DecidedBy {
  /** the admission plugin, or "validation" for the object validation between the phases */
  plugin: string;
  /** the configuration's kind: ValidatingAdmissionPolicy, ValidatingWebhook, … */
  kind?: string;
  name?: string;
  binding?: string;
  /** for a webhook: the configuration holding it */
  configuration?: string;
  /** "static" (a staticManifestsDir) or "manifests" (--manifests) */
  origin?: 'static' | 'manifests';
  /** where it was loaded from: the staticManifestsDir, or the --manifests file */
  source?: string;
  /** one line for people */
  description: string;
}

export interface DecisionContext {
  staticDirs: readonly LoadedStaticDir[];
  manifests: readonly RestObject[];
  calledWebhooks: readonly WebhookAccessor[];
  webhooks: { validating: readonly WebhookAccessor[]; mutating: readonly WebhookAccessor[] };
}

function originOf(ctx: DecisionContext, kind: string, name: string): { origin: 'static' | 'manifests'; source: string } | undefined {
  const isIt = (o: KubeObject): boolean => o.kind === kind && o.metadata?.name === name;
  const dir = ctx.staticDirs.find((d) => d.objects.some(isIt));
  if (dir) return { origin: 'static', source: dir.dir };
  const file = ctx.manifests.find((m) => isIt(m.object));
  return file ? { origin: 'manifests', source: file.file } : undefined;
}

const originText = (o: { origin: 'static' | 'manifests'; source: string }): string => (o.origin === 'static' ? 'static' : `--manifests ${o.source}`);

function policyDecider(ctx: DecisionContext, plugin: string, policy: string, binding: string | undefined): DecidedBy {
  const kind = plugin;
  // the binding says where the pair came from (a static binding can only name a static policy)
  const origin = binding !== undefined ? originOf(ctx, `${kind}Binding`, binding) : originOf(ctx, kind, policy);
  const parts = [...(binding !== undefined ? [`binding ${binding}`] : []), ...(origin ? [originText(origin)] : [])];
  const paren = parts.length > 0 ? ` (${parts.join(', ')})` : '';
  return { plugin, kind, name: policy, ...(binding !== undefined ? { binding } : {}), ...(origin ?? {}), description: `${kind} ${policy}${paren}` };
}

function webhookDecider(ctx: DecisionContext, plugin: string, webhookName: string): DecidedBy {
  const type = plugin === 'MutatingAdmissionWebhook' ? 'mutating' : 'validating';
  const kind = type === 'mutating' ? 'MutatingWebhook' : 'ValidatingWebhook';
  const configurationKind = `${kind}Configuration`;
  // names are unique within a configuration only: prefer the one that was called
  const accessor =
    [...ctx.calledWebhooks].reverse().find((a) => a.kind === type && a.webhook.name === webhookName) ?? ctx.webhooks[type].find((a) => a.webhook.name === webhookName);
  if (!accessor) return { plugin, kind, name: webhookName, description: `${kind} ${webhookName}` };
  const origin = originOf(ctx, configurationKind, accessor.configurationName);
  return {
    plugin,
    kind,
    name: webhookName,
    configuration: accessor.configurationName,
    ...(origin ?? {}),
    description: `${kind} ${webhookName} in ${configurationKind} ${accessor.configurationName}${origin ? ` (${originText(origin)})` : ''}`,
  };
}

/** The decider of a denial from `plugin` with Status message `message`. */
export function decidedBy(ctx: DecisionContext, plugin: string, message: string): DecidedBy {
  if (plugin === 'ValidatingAdmissionPolicy') {
    const m = /ValidatingAdmissionPolicy '([^']*)'(?: with binding '([^']*)')? denied request/u.exec(message);
    if (m) return policyDecider(ctx, plugin, m[1]!, m[2]);
  }
  if (plugin === 'MutatingAdmissionPolicy') {
    const m = /policy '([^']*)' with binding '([^']*)' denied request/u.exec(message) ?? /policy "([^"]*)" denied request/u.exec(message);
    if (m) return policyDecider(ctx, plugin, m[1]!, m[2]);
  }
  if (plugin === 'ValidatingAdmissionWebhook' || plugin === 'MutatingAdmissionWebhook') {
    const m = /(?:admission webhook|failed calling webhook) "([^"]*)"/u.exec(message) ?? new RegExp(`${plugin}/(\\S+) has panicked`, 'u').exec(message);
    if (m) return webhookDecider(ctx, plugin, m[1]!);
  }
  return { plugin, description: plugin };
}
