// `kah validate`: kube-apiserver's startup checks of the admission configuration, without serving. The flags are
// `kah serve`'s (so a command line pasted from a real manifest works); the problems are printed exactly as startup
// prints them, or a summary of what would be in force.
import { kubernetesCelEnvironment } from '../../server/admission/cel/kubernetes.js';
import { manifestPlugins } from '../../server/admission/manifest/plugins.js';
import type { KubeObject } from '../../server/api/types.js';
import { parseServerOptions, type AdmissionConfig, type FeatureGates } from '../../server/options/index.js';
import { lastValue, splitOwnFlags } from './args.js';
import { beyondKubePrefix, ignoredAdmissionPluginEntries } from './ignored-admission-plugins.js';
import type { OfflineIO } from './io.js';
import { checkAdmissionStartup, startupProblemLine, type LoadedStaticDir } from './startup-check.js';

export const validateUsage =
  'kah validate --admission-control-config-file=FILE [--feature-gates=ManifestBasedAdmissionControlConfig=true] [other kube-apiserver flags…] [-o text|json]\n' +
  '  Runs kube-apiserver\'s startup loading and validation of the admission configuration (the file, then every\n' +
  '  staticManifestsDir) without serving. Exit 0: valid, with a summary of what would load; 1: invalid, one line per\n' +
  '  problem, exactly as `kah serve` prints them at startup; 2: usage error.\n' +
  '  Beyond kube-apiserver, it warns (on stderr, and in the JSON\'s warnings) about plugins entries kube-apiserver\n' +
  '  ignores without a word: names that are no admission plugin (misspellings), repeated names (only the first entry\n' +
  '  is read) and plugins that are not enabled.';

/** What one plugin would have in force. */
export interface PluginSummary {
  plugin: string;
  kubeConfigFile?: string;
  staticManifestsDir?: string;
  hash?: string;
  counts?: Record<string, number>;
  objects?: Array<{ kind: string; name: string; webhooks?: string[] }>;
  /** why the loaded manifests would not be enforced (the plugin's feature gate is off) */
  notEnforced?: string;
}

function countsOf(d: LoadedStaticDir): Record<string, number> {
  const spec = manifestPlugins[d.plugin];
  if (spec.family === 'webhook') {
    return { configurations: d.objects.length, webhooks: d.objects.reduce((n, o) => n + webhookNames(o).length, 0) };
  }
  return { policies: d.objects.filter((o) => o.kind === spec.policyKind).length, bindings: d.objects.filter((o) => o.kind === spec.bindingKind).length };
}

function webhookNames(o: KubeObject): string[] {
  const hooks = Array.isArray(o['webhooks']) ? (o['webhooks'] as Array<{ name?: unknown }>) : [];
  return hooks.map((h) => (typeof h.name === 'string' ? h.name : ''));
}

export function summarize(config: AdmissionConfig | undefined, staticDirs: readonly LoadedStaticDir[], gates: FeatureGates): PluginSummary[] {
  const out: PluginSummary[] = [];
  for (const [plugin, settings] of Object.entries(config?.plugins ?? {}) as Array<[string, { kubeConfigFile?: string; staticManifestsDir?: string }]>) {
    const s: PluginSummary = { plugin };
    if (settings.kubeConfigFile) s.kubeConfigFile = settings.kubeConfigFile;
    const loaded = staticDirs.find((d) => d.plugin === plugin);
    if (loaded) {
      s.staticManifestsDir = loaded.dir;
      s.hash = loaded.hash;
      s.counts = countsOf(loaded);
      s.objects = loaded.objects.map((o) => ({ kind: o.kind ?? '', name: o.metadata?.name ?? '', ...(manifestPlugins[loaded.plugin].family === 'webhook' ? { webhooks: webhookNames(o) } : {}) }));
      // kube's MutatingAdmissionPolicy plugin does nothing while its gate is off; the directory is still loaded.
      if (plugin === 'MutatingAdmissionPolicy' && !gates.enabled('MutatingAdmissionPolicy')) s.notEnforced = 'the MutatingAdmissionPolicy feature gate is off';
    }
    out.push(s);
  }
  return out;
}

function summaryText(configPath: string, plugins: readonly PluginSummary[]): string[] {
  const lines = [`${configPath}: valid`];
  if (plugins.length === 0) lines.push('  no webhook or policy plugin is configured');
  for (const p of plugins) {
    const parts: string[] = [];
    if (p.staticManifestsDir !== undefined) {
      const counts = Object.entries(p.counts ?? {}).map(([k, n]) => `${n} ${k}`).join(', ');
      parts.push(`staticManifestsDir ${p.staticManifestsDir}: ${counts} (hash ${p.hash === '' ? '"" (no files)' : p.hash})`);
    }
    if (p.kubeConfigFile) parts.push(`kubeConfigFile ${p.kubeConfigFile}`);
    if (parts.length === 0) parts.push('no staticManifestsDir');
    lines.push(`  ${p.plugin}: ${parts.join('; ')}${p.notEnforced ? ` — not enforced: ${p.notEnforced}` : ''}`);
    for (const o of p.objects ?? []) lines.push(`    ${o.kind}/${o.name}${o.webhooks ? ` (webhooks: ${o.webhooks.join(', ') || 'none'})` : ''}`);
  }
  return lines;
}

const write = (stream: NodeJS.WritableStream, lines: readonly string[]): void => {
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
};

/** A problem kube-apiserver would not report (it stops at the first one), as kah validate prints it. */
export function beyondKubeLine(problem: string): string {
  return `(beyond kube-apiserver, which stops at the first problem) ${problem}`;
}

export async function runValidate(args: string[], io: OfflineIO): Promise<number> {
  const split = splitOwnFlags(args, [{ name: 'output', short: 'o', takesValue: true }]);
  const output = lastValue(split, 'output') ?? 'text';
  const usageErrors = [...split.errors];
  if (output !== 'text' && output !== 'json') usageErrors.push(`-o must be text or json, not ${JSON.stringify(output)}`);
  if (usageErrors.length > 0) {
    write(io.stderr, [...usageErrors.map((e) => `kah validate: ${e}`), `usage: ${validateUsage}`]);
    return 2;
  }
  const json = output === 'json';
  const fail = (problems: string[], warnings: string[] = []): number => {
    if (json) write(io.stdout, [JSON.stringify({ valid: false, errors: problems, warnings }, null, 2)]);
    // stderr carries startup's own lines in both modes, so scripts and people see the same text
    write(io.stderr, problems.map(startupProblemLine));
    return 1;
  };

  const parsed = parseServerOptions(split.rest, 'kah validate');
  if (!parsed.ok) return fail(parsed.errors);
  if (parsed.options.help) {
    write(io.stdout, [`usage: ${validateUsage}`]);
    return 0;
  }
  // All of kube's flag warnings, the AnonymousAuth one included: validate's output is startup's, line for line.
  const flagWarnings = parsed.warnings;
  write(io.stderr, flagWarnings.map((w) => `Warning: ${w}`));
  if (!parsed.options.admission.configFile) {
    write(io.stderr, ['kah validate: --admission-control-config-file is required', `usage: ${validateUsage}`]);
    return 2;
  }
  const result = await checkAdmissionStartup(parsed.options, kubernetesCelEnvironment(), { everyProblem: true });
  // kube-apiserver stops at the first problem; kah validate lists every one after it, marked as going beyond kube
  if (!result.ok) return fail([...result.problems, ...(result.beyondKube ?? []).map(beyondKubeLine)], flagWarnings);
  const plugins = summarize(result.config, result.staticDirs, parsed.options.featureGates);
  const configPath = result.config?.path ?? parsed.options.admission.configFile;
  const ignored = ignoredAdmissionPluginEntries(result.config?.entryNames ?? [], parsed.options.admission.plugins).map((m) => `${beyondKubePrefix}: ${configPath}: ${m}`);
  write(io.stderr, ignored);
  const warnings = [...flagWarnings, ...ignored];
  if (json) write(io.stdout, [JSON.stringify({ valid: true, config: configPath, featureGates: parsed.options.featureGates.toString(), plugins, warnings }, null, 2)]);
  else write(io.stdout, summaryText(configPath, plugins));
  return 0;
}
