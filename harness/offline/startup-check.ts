// The part of `kah serve`'s startup that decides whether an admission configuration is usable, without serving:
// --admission-control-config-file (with the manifest controller's environment), then every staticManifestsDir
// loaded with the REST API's validation and CEL compilation. The steps run in the server's order and stop after the
// first one that fails, as the server does, so that the problems are exactly the lines startup would print; kah
// validate may ask for every problem besides (beyondKube).
import type { KubeObject } from '../../server/api/types.js';
import type { CelEnvironment } from '../../server/admission/cel/environment.js';
import { loadManifestDir, manifestLoadFailure } from '../../server/admission/manifest/load.js';
import { formatManifestError } from '../../server/admission/manifest/manifest-error.js';
import { kubeAdmissionPluginOrder, manifestPlugins, policyKindHandlers, webhookKindHandlers, type ManifestKindHandlers, type ManifestPlugin } from '../../server/admission/manifest/plugins.js';
import { compileWebhookMatchCondition } from '../../server/admission/webhook/match-conditions.js';
import { loadAdmissionConfig, StartupError, staticManifestDirs } from '../../server/main.js';
import type { AdmissionConfig, ServerOptions } from '../../server/options/index.js';

/** One staticManifestsDir as the server would have it in force after startup. */
export interface LoadedStaticDir {
  plugin: ManifestPlugin;
  dir: string;
  /** deep-frozen; webhook configurations, or policies then bindings, each sorted by name */
  objects: readonly KubeObject[];
  /** the directory's hash, as `kah serve` logs it ("" for no files) */
  hash: string;
}

export type StartupCheckResult =
  | { ok: true; config: AdmissionConfig | undefined; staticDirs: LoadedStaticDir[] }
  /**
   * problems: each is one line, without the "Error: " that startup prefixes (see startupProblemLine), exactly what
   * startup prints (kube's first error). beyondKube (with everyProblem): every other problem of the failing
   * directories, one line each (`<file>: <Kind>/<name>: <field>: <reason>`), which kube-apiserver would not report.
   */
  | { ok: false; problems: string[]; beyondKube?: string[] };

export interface StartupCheckOptions {
  /** also find every problem of every directory (kah validate), not only the first one kube reports */
  everyProblem?: boolean;
}

/** How `kah serve` prints each startup problem on stderr before exiting 1 (server/main.ts runServer). */
export function startupProblemLine(problem: string): string {
  return `Error: ${problem}`;
}

// ApiServer.buildAdmission's handlers: manifests get the REST API's validation, CEL compilation included.
function handlersFor(plugin: ManifestPlugin, cel: CelEnvironment): ManifestKindHandlers {
  return manifestPlugins[plugin].family === 'webhook' ? webhookKindHandlers({ compileMatchCondition: compileWebhookMatchCondition(cel) }) : policyKindHandlers({ cel });
}

/** Runs the admission part of startup for parsed server flags. */
export async function checkAdmissionStartup(options: ServerOptions, cel: CelEnvironment, check: StartupCheckOptions = {}): Promise<StartupCheckResult> {
  let config: AdmissionConfig | undefined;
  try {
    config = await loadAdmissionConfig(options);
  } catch (err) {
    if (err instanceof StartupError) return { ok: false, problems: err.problems };
    throw err;
  }
  // The server reports the first plugin, in kube's admission order, whose directory fails, with kube's error.
  const configured = staticManifestDirs(config);
  const dirs = kubeAdmissionPluginOrder.flatMap((plugin) => (configured[plugin] ? [[plugin, configured[plugin]] as const] : []));
  const stopAtFirstError = !check.everyProblem;
  const loads = await Promise.all(dirs.map(async ([plugin, dir]) => ({ plugin, dir, result: await loadManifestDir(dir, plugin, { handlers: handlersFor(plugin, cel), stopAtFirstError }) })));
  const failed = loads.find((l) => !l.result.ok);
  if (failed && !failed.result.ok) {
    const problems = [manifestLoadFailure(failed.plugin, failed.dir, failed.result.kubeError)];
    if (!check.everyProblem) return { ok: false, problems };
    // what kube reports is left out; the other problems of that directory and of the later ones follow
    const beyondKube = loads.flatMap((l) => (l.result.ok ? [] : l.result.errors.slice(l === failed ? l.result.kubeErrorCount : 0).map(formatManifestError)));
    return { ok: false, problems, beyondKube };
  }
  const staticDirs = loads.map((l) => (l.result.ok ? { plugin: l.plugin, dir: l.dir, objects: l.result.objects, hash: l.result.hash } : undefined)).filter((d): d is LoadedStaticDir => d !== undefined);
  return { ok: true, config, staticDirs };
}
