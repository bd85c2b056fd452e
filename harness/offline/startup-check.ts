// The part of `kah serve`'s startup that decides whether an admission configuration is usable, without serving:
// --admission-control-config-file (with the manifest controller's environment), then every staticManifestsDir
// loaded with the REST API's validation and CEL compilation. The steps run in the server's order and stop after the
// first one that fails, as the server does, so that the problems are exactly the lines startup would print.
import type { KubeObject } from '../../server/api/types.js';
import type { CelEnvironment } from '../../server/admission/cel/environment.js';
import { loadManifestDir } from '../../server/admission/manifest/load.js';
import { formatManifestError } from '../../server/admission/manifest/manifest-error.js';
import { manifestPlugins, policyKindHandlers, webhookKindHandlers, type ManifestKindHandlers, type ManifestPlugin } from '../../server/admission/manifest/plugins.js';
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
  /** each problem is one line, without the "Error: " that startup prefixes (see startupProblemLine) */
  | { ok: false; problems: string[] };

/** How `kah serve` prints each startup problem on stderr before exiting 1 (server/main.ts runServer). */
export function startupProblemLine(problem: string): string {
  return `Error: ${problem}`;
}

// ApiServer.buildAdmission's handlers: manifests get the REST API's validation, CEL compilation included.
function handlersFor(plugin: ManifestPlugin, cel: CelEnvironment): ManifestKindHandlers {
  return manifestPlugins[plugin].family === 'webhook' ? webhookKindHandlers({ compileMatchCondition: compileWebhookMatchCondition(cel) }) : policyKindHandlers({ cel });
}

/** Runs the admission part of startup for parsed server flags. */
export async function checkAdmissionStartup(options: ServerOptions, cel: CelEnvironment): Promise<StartupCheckResult> {
  let config: AdmissionConfig | undefined;
  try {
    config = await loadAdmissionConfig(options);
  } catch (err) {
    if (err instanceof StartupError) return { ok: false, problems: err.problems };
    throw err;
  }
  // The server loads every directory at once and reports all their errors together, in plugin order.
  const dirs = Object.entries(staticManifestDirs(config)) as Array<[ManifestPlugin, string]>;
  const loads = await Promise.all(dirs.map(async ([plugin, dir]) => ({ plugin, dir, result: await loadManifestDir(dir, plugin, { handlers: handlersFor(plugin, cel) }) })));
  const problems = loads.flatMap((l) => (l.result.ok ? [] : l.result.errors.map(formatManifestError)));
  if (problems.length > 0) return { ok: false, problems };
  const staticDirs = loads.map((l) => (l.result.ok ? { plugin: l.plugin, dir: l.dir, objects: l.result.objects, hash: l.result.hash } : undefined)).filter((d): d is LoadedStaticDir => d !== undefined);
  return { ok: true, config, staticDirs };
}
