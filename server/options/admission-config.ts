// --admission-control-config-file: the AdmissionConfiguration file and the plugin configurations it holds, read
// as kube-apiserver reads them (admission.ReadAdmissionConfiguration, then each plugin's config loader), with
// apimachinery's strict decoding and its error texts ("strict decoding error: unknown field \"plugins[0].foo\"").
//
// The four dynamic plugins' configurations are decoded here: WebhookAdmissionConfiguration (kubeConfigFile,
// staticManifestsDir) for the webhook plugins, ValidatingAdmissionPolicyConfiguration and
// MutatingAdmissionPolicyConfiguration (staticManifestsDir) for the policy plugins (KEP-5793). Every other plugin's
// configuration is kept raw: the plugins this server does not implement accept it and do nothing.
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseJsonOrYamlDocument, type JsonNode, type JsonValue } from '../api/go-json-document.js';
import { interpretTypeMeta, isDecodedStruct, RawJson, strictDecodingError, unmarshalStrict, type DecodedStruct, type GoStruct, type GoType } from '../api/go-strict-decoder.js';
import { fieldErrors, formatFieldError, type FieldError } from '../api/field.js';
import type { FeatureGates } from './feature-gates.js';
import { goPathErrorMessage } from './go-fs-errors.js';
import { goQuote } from './go-strconv.js';
import { deepFreeze } from '../api/deep-freeze.js';

// ---------------------------------------------------------------------------------------------------------------
// Result types

/** WebhookAdmissionConfiguration (apiserver.config.k8s.io/v1), for ValidatingAdmissionWebhook and MutatingAdmissionWebhook. */
export interface WebhookAdmissionPluginConfig {
  /** absolute path of the kubeconfig holding the credentials for calling webhooks */
  readonly kubeConfigFile?: string;
  /** absolute path of the directory of static webhook configurations (KEP-5793) */
  readonly staticManifestsDir?: string;
}

/** ValidatingAdmissionPolicyConfiguration / MutatingAdmissionPolicyConfiguration (apiserver.config.k8s.io/v1). */
export interface PolicyAdmissionPluginConfig {
  /** absolute path of the directory of static policies and bindings (KEP-5793) */
  readonly staticManifestsDir?: string;
}

/** A plugin this module does not decode: its entry as written, `path` made absolute as kube does. */
export interface OtherAdmissionPluginConfig {
  readonly path?: string;
  /** the inline `configuration`, as a JSON value */
  readonly configuration?: JsonValue;
}

export interface AdmissionConfig {
  /** the AdmissionConfiguration file, absolute */
  readonly path: string;
  /** the dynamic plugins named in the file (a plugin present with `{}` had an entry without settings) */
  readonly plugins: {
    readonly ValidatingAdmissionWebhook?: WebhookAdmissionPluginConfig;
    readonly MutatingAdmissionWebhook?: WebhookAdmissionPluginConfig;
    readonly ValidatingAdmissionPolicy?: PolicyAdmissionPluginConfig;
    readonly MutatingAdmissionPolicy?: PolicyAdmissionPluginConfig;
  };
  /** every other plugin's entry, by plugin name */
  readonly other: Readonly<Record<string, OtherAdmissionPluginConfig>>;
  /**
   * The `name` of every entry of `plugins`, in file order ("" for an entry without one), including those kube
   * ignores (unknown names, repeats, disabled plugins), so that `kah validate` can point them out.
   */
  readonly entryNames: readonly string[];
}

export type AdmissionConfigResult = { ok: true; config: AdmissionConfig } | { ok: false; errors: string[] };

export interface LoadAdmissionConfigurationOptions {
  /**
   * The enabled admission plugins (ServerOptions.admission.plugins). kube-apiserver reads a plugin's configuration
   * only when the plugin is enabled, and the legacy file format only applies to enabled plugins. Default: all.
   */
  enabledPlugins?: readonly string[];
}

export type { JsonValue };

const webhookPlugins = ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'] as const;
const policyPlugins = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const;
type WebhookPluginName = (typeof webhookPlugins)[number];
type PolicyPluginName = (typeof policyPlugins)[number];
type DecodedPluginName = WebhookPluginName | PolicyPluginName;

function isDecodedPlugin(name: string): name is DecodedPluginName {
  return (webhookPlugins as readonly string[]).includes(name) || (policyPlugins as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing a config text as runtime.Decode does (json serializer, strict)

/** One config text as the json serializer reads it before typing: the JSON tree and the YAML strictness errors. */
type ParsedConfigText = { ok: true; node: JsonNode; yamlStrictError?: string } | { ok: false; error: string };

function parseConfigText(text: string): ParsedConfigText {
  const parsed = parseJsonOrYamlDocument(text);
  if (!parsed.ok) return parsed;
  const dups = parsed.yamlDuplicateKeys;
  // yaml.v2's TypeError lists each duplicate on its own line.
  return { ok: true, node: parsed.node, ...(dups.length > 0 ? { yamlStrictError: `yaml: unmarshal errors:\n  ${dups.join('\n  ')}` } : {}) };
}

// The configuration structs in the strict decoder's Go type vocabulary.
const goString: GoType = { kind: 'string' };
const typeMeta = { apiVersion: goString, kind: goString };

/** A runtime.Scheme's worth of config types: GroupVersion → kind → struct. */
interface ConfigScheme {
  /** the name kube's scheme carries in "not registered" errors */
  name: string;
  types: Readonly<Record<string, Readonly<Record<string, GoStruct>>>>;
}

type DecodeResult =
  | { ok: true; groupVersion: string; kind: string; object: DecodedStruct }
  | { ok: false; error: string; missingKindOrNotRegistered: boolean };

/**
 * runtime.Decode(codecs.UniversalDecoder(), data) with a strict codec factory: meta.Interpret, the missing kind and
 * version errors, the scheme lookup, then the strict unmarshal (YAML duplicate keys, unknown and duplicate fields).
 */
function decodeConfig(text: string, scheme: ConfigScheme): DecodeResult {
  const parsed = parseConfigText(text);
  if (!parsed.ok) return { ok: false, error: parsed.error, missingKindOrNotRegistered: false };
  const root = parsed.node;
  const meta = interpretTypeMeta(root);
  if (!meta.ok) return { ok: false, error: meta.error, missingKindOrNotRegistered: false };
  const { group, version, kind } = meta;
  if (kind === '') return { ok: false, error: `Object 'Kind' is missing in '${text}'`, missingKindOrNotRegistered: true };
  if (version === '') return { ok: false, error: `Object 'apiVersion' is missing in '${text}'`, missingKindOrNotRegistered: true };
  const groupVersion = group === '' ? version : `${group}/${version}`;
  const kinds = Object.prototype.hasOwnProperty.call(scheme.types, groupVersion) ? scheme.types[groupVersion] : undefined;
  const type = kinds && Object.prototype.hasOwnProperty.call(kinds, kind) ? kinds[kind] : undefined;
  if (!type) {
    return { ok: false, error: `no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(scheme.name)}`, missingKindOrNotRegistered: true };
  }
  const { object, fatal, strict } = unmarshalStrict(root, type);
  if (fatal !== undefined) return { ok: false, error: fatal, missingKindOrNotRegistered: false };
  const error = strictDecodingError(parsed.yamlStrictError, strict);
  if (error !== undefined) return { ok: false, error, missingKindOrNotRegistered: false };
  return { ok: true, groupVersion, kind, object };
}

// ---------------------------------------------------------------------------------------------------------------
// The schemes kube-apiserver decodes these files with

function admissionConfigurationType(pkg: string): GoStruct {
  const plugin: GoStruct = {
    kind: 'struct',
    name: 'AdmissionPluginConfiguration',
    qualified: `${pkg}.AdmissionPluginConfiguration`,
    fields: { name: goString, path: goString, configuration: { kind: 'raw', name: '*runtime.Unknown', keep: 'node' } },
  };
  return { kind: 'struct', name: 'AdmissionConfiguration', qualified: `${pkg}.AdmissionConfiguration`, fields: { ...typeMeta, plugins: { kind: 'slice', elem: plugin } } };
}

/** k8s.io/apiserver/pkg/server/options configScheme: apiserver.config.k8s.io/v1 and apiserver.k8s.io/v1alpha1 (there is no v1beta1 AdmissionConfiguration). */
const admissionConfigScheme: ConfigScheme = {
  name: 'k8s.io/apiserver/pkg/server/options/admission.go',
  types: {
    'apiserver.config.k8s.io/v1': { AdmissionConfiguration: admissionConfigurationType('v1') },
    'apiserver.k8s.io/v1alpha1': { AdmissionConfiguration: admissionConfigurationType('v1alpha1') },
  },
};

/** webhook/config: only apiserver.config.k8s.io/v1 since Kubernetes 1.36 dropped v1alpha1 WebhookAdmission (kubernetes#137379). */
const webhookConfigScheme: ConfigScheme = {
  name: 'k8s.io/apiserver/pkg/admission/plugin/webhook/config/config.go',
  types: {
    'apiserver.config.k8s.io/v1': {
      WebhookAdmissionConfiguration: {
        kind: 'struct',
        name: 'WebhookAdmission',
        qualified: 'v1.WebhookAdmission',
        fields: { ...typeMeta, kubeConfigFile: goString, staticManifestsDir: goString },
      },
    },
  },
};

const policyConfigKinds = { ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicyConfiguration', MutatingAdmissionPolicy: 'MutatingAdmissionPolicyConfiguration' } as const;

/** policy/config (KEP-5793): both kinds in one scheme, so the other plugin's kind decodes and is then "unexpected". */
const policyConfigScheme: ConfigScheme = {
  name: 'k8s.io/apiserver/pkg/admission/plugin/policy/config/config.go',
  types: {
    'apiserver.config.k8s.io/v1': Object.fromEntries(
      Object.values(policyConfigKinds).map((kind) => [kind, { kind: 'struct', name: kind, qualified: `v1.${kind}`, fields: { ...typeMeta, staticManifestsDir: goString } } satisfies GoStruct]),
    ),
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Plugin configuration validation

const statErrnoText: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
};

/** Go's os.Stat error text ("stat /x: no such file or directory"). */
function goStatErrorMessage(err: unknown, path: string): string {
  const e = err as NodeJS.ErrnoException | undefined;
  const text = statErrnoText[e?.code ?? ''];
  return text ? `stat ${path}: ${text}` : (e?.message ?? String(err));
}

/**
 * manifest.ValidateStaticManifestsDir (KEP-5793): the gate must be on, the path absolute (Go's path.IsAbs), and
 * name an existing directory. kube returns the first failure; so does this.
 */
export async function validateStaticManifestsDir(dir: string | undefined, gates: FeatureGates): Promise<FieldError[]> {
  if (!dir) return [];
  const path = 'staticManifestsDir';
  if (!gates.enabled('ManifestBasedAdmissionControlConfig')) {
    return [fieldErrors.forbidden(path, 'staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled')];
  }
  if (!dir.startsWith('/')) return [fieldErrors.invalid(path, dir, 'must be an absolute file path')];
  try {
    const info = await stat(dir);
    if (!info.isDirectory()) return [fieldErrors.invalid(path, dir, 'must be a directory')];
  } catch (err) {
    return [fieldErrors.invalid(path, dir, `unable to read: ${goStatErrorMessage(err, dir)}`)];
  }
  return [];
}

function decodedString(o: DecodedStruct, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

type PluginDecodeResult<T> = { ok: true; config: T } | { ok: false; errors: string[] };

/**
 * webhook/config.LoadConfig: WebhookAdmissionConfiguration; kubeConfigFile, when set, must be absolute; then
 * staticManifestsDir. kube stops at the first error; both field errors are reported here.
 */
async function loadWebhookConfig(text: string | undefined, gates: FeatureGates): Promise<PluginDecodeResult<WebhookAdmissionPluginConfig>> {
  if (text === undefined) return { ok: true, config: {} };
  const d = decodeConfig(text, webhookConfigScheme);
  if (!d.ok) {
    let error = d.error;
    if (/^no kind "WebhookAdmission(Configuration)?" is registered for version "apiserver\.config\.k8s\.io\/v1alpha1"/u.test(error)) {
      error += ' (apiserver.config.k8s.io/v1alpha1 WebhookAdmission was removed in Kubernetes 1.36: use apiVersion apiserver.config.k8s.io/v1, kind WebhookAdmissionConfiguration)';
    }
    return { ok: false, errors: [error] };
  }
  const kubeConfigFile = decodedString(d.object, 'kubeConfigFile');
  const staticManifestsDir = decodedString(d.object, 'staticManifestsDir');
  const errs: FieldError[] = [];
  if (kubeConfigFile !== undefined && !kubeConfigFile.startsWith('/')) errs.push(fieldErrors.invalid('kubeConfigFile', kubeConfigFile, 'must be an absolute file path'));
  errs.push(...(await validateStaticManifestsDir(staticManifestsDir, gates)));
  if (errs.length > 0) return { ok: false, errors: errs.map(formatFieldError) };
  return { ok: true, config: { ...(kubeConfigFile ? { kubeConfigFile } : {}), ...(staticManifestsDir ? { staticManifestsDir } : {}) } };
}

/** policy/config.LoadValidatingConfig / LoadMutatingConfig. */
async function loadPolicyConfig(plugin: PolicyPluginName, text: string | undefined, gates: FeatureGates): Promise<PluginDecodeResult<PolicyAdmissionPluginConfig>> {
  if (text === undefined) return { ok: true, config: {} };
  const d = decodeConfig(text, policyConfigScheme);
  if (!d.ok) return { ok: false, errors: [d.error] };
  if (d.kind !== policyConfigKinds[plugin]) return { ok: false, errors: [`unexpected type: *policyconfig.${d.kind}`] };
  const staticManifestsDir = decodedString(d.object, 'staticManifestsDir');
  const errs = await validateStaticManifestsDir(staticManifestsDir, gates);
  if (errs.length > 0) return { ok: false, errors: errs.map(formatFieldError) };
  return { ok: true, config: staticManifestsDir ? { staticManifestsDir } : {} };
}

// ---------------------------------------------------------------------------------------------------------------
// The AdmissionConfiguration file

interface PluginEntry {
  name: string;
  /** absolute */
  path?: string;
  configuration?: JsonNode;
}

function pluginEntries(object: DecodedStruct, baseDir: string): PluginEntry[] {
  const plugins = object['plugins'];
  if (!Array.isArray(plugins)) return [];
  return plugins.filter(isDecodedStruct).map((p) => {
    const name = typeof p['name'] === 'string' ? p['name'] : '';
    const path = typeof p['path'] === 'string' && p['path'] !== '' ? resolve(baseDir, p['path']) : undefined;
    const conf = p['configuration'];
    const configuration = conf instanceof RawJson ? conf.node : undefined;
    return { name, ...(path ? { path } : {}), ...(configuration ? { configuration } : {}) };
  });
}

/**
 * ReadAdmissionConfiguration's fallback for files written before AdmissionConfiguration existed: a file with a
 * top-level `imagePolicy` or `podNodeSelectorPluginConfig` is the whole configuration of ImagePolicyWebhook and
 * PodNodeSelector. Those plugins do nothing here, so the file is accepted and kept for them, as kube does.
 */
function legacyPluginEntries(text: string, configPath: string, enabled: (name: string) => boolean): PluginEntry[] | undefined {
  const parsed = parseConfigText(text);
  if (!parsed.ok || parsed.node.type !== 'object') return undefined;
  const keys = new Set(parsed.node.members.map((m) => m.key));
  if (!keys.has('imagePolicy') && !keys.has('podNodeSelectorPluginConfig')) return undefined;
  return ['ImagePolicyWebhook', 'PodNodeSelector'].filter(enabled).map((name) => ({ name, path: configPath }));
}

/**
 * Reads --admission-control-config-file as kube-apiserver does at startup and validates the dynamic plugins'
 * configurations. Every problem is one line: the file it is in, then kube's text ("couldn't init admission
 * plugin \"ValidatingAdmissionWebhook\": staticManifestsDir: Invalid value: \"rel\": must be an absolute file path").
 */
export async function loadAdmissionConfiguration(path: string, gates: FeatureGates, options: LoadAdmissionConfigurationOptions = {}): Promise<AdmissionConfigResult> {
  const enabledSet = options.enabledPlugins ? new Set(options.enabledPlugins) : undefined;
  const enabled = (name: string): boolean => enabledSet === undefined || enabledSet.has(name);
  // ReadAdmissionConfiguration: no file, no configuration.
  if (path === '') return { ok: true, config: deepFreeze({ path: '', plugins: {}, other: {}, entryNames: [] }) };
  const configPath = resolve(path);

  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { ok: false, errors: [`unable to read admission control configuration from ${goQuote(path)} [${goPathErrorMessage(err, path)}]`] };
  }

  let entries: PluginEntry[];
  const decoded = decodeConfig(text, admissionConfigScheme);
  if (decoded.ok) {
    // Relative plugin paths are relative to the configuration file's directory (admission.makeAbs).
    entries = pluginEntries(decoded.object, dirname(configPath));
  } else {
    const legacy = decoded.missingKindOrNotRegistered ? legacyPluginEntries(text, configPath, enabled) : undefined;
    if (!legacy) return { ok: false, errors: [`${path}: ${decoded.error}`] };
    entries = legacy;
  }

  const errors: string[] = [];
  const plugins: { -readonly [K in keyof AdmissionConfig['plugins']]: AdmissionConfig['plugins'][K] } = {};
  const other = new Map<string, OtherAdmissionPluginConfig>();
  const done = new Set<string>();
  for (const entry of entries) {
    // configProvider.ConfigFor uses the first entry with the plugin's name; no plugin is named "".
    if (entry.name === '' || done.has(entry.name)) continue;
    done.add(entry.name);
    if (!isDecodedPlugin(entry.name)) {
      other.set(entry.name, { ...(entry.path ? { path: entry.path } : {}), ...(entry.configuration ? { configuration: entry.configuration.value } : {}) });
      continue;
    }
    // A disabled plugin's configuration is never read.
    if (!enabled(entry.name)) continue;

    // GetAdmissionPluginConfigurationFor: the inline configuration wins over path.
    let configText: string | undefined;
    let source = path;
    if (entry.configuration) configText = entry.configuration.raw;
    else if (entry.path) {
      source = entry.path;
      try {
        configText = await readFile(entry.path, 'utf8');
      } catch (err) {
        errors.push(`${path}: Couldn't open admission plugin configuration ${entry.path}: ${goPathErrorMessage(err, entry.path)}`);
        continue;
      }
    }

    const name = entry.name;
    const result = name === 'ValidatingAdmissionWebhook' || name === 'MutatingAdmissionWebhook' ? await loadWebhookConfig(configText, gates) : await loadPolicyConfig(name, configText, gates);
    if (!result.ok) {
      for (const e of result.errors) errors.push(`${source}: couldn't init admission plugin ${goQuote(name)}: ${e}`);
      continue;
    }
    plugins[name] = result.config;
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, config: deepFreeze({ path: configPath, plugins, other: Object.fromEntries(other), entryNames: entries.map((e) => e.name) }) };
}
