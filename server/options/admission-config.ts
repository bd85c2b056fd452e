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
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
import { fieldErrors, formatFieldError, type FieldError } from '../api/field.js';
import type { FeatureGates } from './feature-gates.js';
import { goPathErrorMessage } from './go-fs-errors.js';
import { goQuote } from './go-strconv.js';

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
}

export type AdmissionConfigResult = { ok: true; config: AdmissionConfig } | { ok: false; errors: string[] };

export interface LoadAdmissionConfigurationOptions {
  /**
   * The enabled admission plugins (ServerOptions.admission.plugins). kube-apiserver reads a plugin's configuration
   * only when the plugin is enabled, and the legacy file format only applies to enabled plugins. Default: all.
   */
  enabledPlugins?: readonly string[];
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const webhookPlugins = ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'] as const;
const policyPlugins = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const;
type WebhookPluginName = (typeof webhookPlugins)[number];
type PolicyPluginName = (typeof policyPlugins)[number];
type DecodedPluginName = WebhookPluginName | PolicyPluginName;

function isDecodedPlugin(name: string): name is DecodedPluginName {
  return (webhookPlugins as readonly string[]).includes(name) || (policyPlugins as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------------------------------------------
// JSON values as apimachinery's decoder sees them

/**
 * A JSON value with what kube's strict decoder needs: object members in decode order (duplicates kept, for JSON
 * input), and `raw`, the JSON text a runtime.Unknown field (`configuration`) would hold.
 */
type JsonNode =
  | { type: 'object'; members: Array<{ key: string; node: JsonNode }>; value: { [key: string]: JsonValue }; raw: string }
  | { type: 'array'; items: JsonNode[]; value: JsonValue[]; raw: string }
  | { type: 'string'; value: string; raw: string }
  | { type: 'number'; value: number; raw: string }
  | { type: 'bool'; value: boolean; raw: string }
  | { type: 'null'; value: null; raw: string };

/** Sets a member without the `__proto__` setter getting in the way: config keys are data. */
function setMember(obj: { [key: string]: JsonValue }, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Go's encoding/json Marshal: compact, map keys sorted, <, > and & escaped. */
function goJsonMarshal(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${goJsonMarshal(k)}:${goJsonMarshal(v[k]!)}`).join(',')}}`;
}

/**
 * The JSON that sigs.k8s.io/yaml's YAMLToJSON makes of a YAML value: goyaml decodes mappings into Go maps, so
 * members come out sorted by key, duplicates already resolved.
 */
function nodeFromYamlValue(v: JsonValue): JsonNode {
  const raw = goJsonMarshal(v);
  if (v === null) return { type: 'null', value: null, raw };
  if (typeof v === 'string') return { type: 'string', value: v, raw };
  if (typeof v === 'number') return { type: 'number', value: v, raw };
  if (typeof v === 'boolean') return { type: 'bool', value: v, raw };
  if (Array.isArray(v)) return { type: 'array', items: v.map(nodeFromYamlValue), value: v, raw };
  const members = Object.keys(v)
    .sort()
    .map((key) => ({ key, node: nodeFromYamlValue(v[key]!) }));
  return { type: 'object', members, value: v, raw };
}

/** Plain JS (from the yaml package's toJS) to a JSON value, as goyaml → JSON conversion would see it. */
function toJsonValue(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (v instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, val] of v) setMember(out, String(k), toJsonValue(val));
    return out;
  }
  if (typeof v === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, val] of Object.entries(v)) setMember(out, k, toJsonValue(val));
    return out;
  }
  return String(v);
}

/**
 * A small JSON reader over text that JSON.parse already accepted: keeps duplicate members in order and each value's
 * source text, which JSON.parse loses and Go's decoder uses (duplicate detection, runtime.Unknown raw bytes).
 */
class JsonReader {
  private pos = 0;
  constructor(private readonly text: string) {}

  read(): JsonNode {
    const node = this.value();
    this.ws();
    return node;
  }

  private ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  private value(): JsonNode {
    this.ws();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') {
      this.pos++;
      const members: Array<{ key: string; node: JsonNode }> = [];
      const value: { [key: string]: JsonValue } = {};
      this.ws();
      if (this.text[this.pos] === '}') this.pos++;
      else {
        for (;;) {
          this.ws();
          const key = this.string();
          this.ws();
          this.pos++; // ':'
          const node = this.value();
          members.push({ key, node });
          // Go's decoder: the last duplicate wins.
          setMember(value, key, node.value);
          this.ws();
          if (this.text[this.pos++] === '}') break;
        }
      }
      return { type: 'object', members, value, raw: this.text.slice(start, this.pos) };
    }
    if (c === '[') {
      this.pos++;
      const items: JsonNode[] = [];
      this.ws();
      if (this.text[this.pos] === ']') this.pos++;
      else {
        for (;;) {
          items.push(this.value());
          this.ws();
          if (this.text[this.pos++] === ']') break;
        }
      }
      return { type: 'array', items, value: items.map((i) => i.value), raw: this.text.slice(start, this.pos) };
    }
    if (c === '"') {
      const s = this.string();
      return { type: 'string', value: s, raw: this.text.slice(start, this.pos) };
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.pos))!;
    this.pos += m[0].length;
    const raw = m[0];
    if (raw === 'true' || raw === 'false') return { type: 'bool', value: raw === 'true', raw };
    if (raw === 'null') return { type: 'null', value: null, raw };
    return { type: 'number', value: Number(raw), raw };
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    while (this.text[this.pos] !== '"') this.pos += this.text[this.pos] === '\\' ? 2 : 1;
    this.pos++;
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing a config text as runtime.Decode does (json serializer, strict)

/** yaml.v2's %#v of a map key in "key %#v already set in map". */
function goyamlKeyText(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return '<nil>';
  return String(v);
}

/**
 * yaml.v2 UnmarshalStrict's duplicate-key errors ("line 5: key \"name\" already set in map"), which
 * YAMLToJSONStrict reports for every mapping in the document, the line being the value's.
 */
function goyamlDuplicateKeys(root: YamlNode | null, lc: LineCounter): string[] {
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) visit(item);
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const pair of node.items) {
      // yaml.v2 decodes the value before it sets the key, so nested duplicates are reported first.
      visit(pair.value);
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (key !== undefined && (key === null || typeof key !== 'object')) {
        const id = `${typeof key}:${String(key)}`;
        if (seen.has(id)) {
          const at = (pair.value as YamlNode | null)?.range?.[0] ?? (pair.key as YamlNode).range?.[0] ?? 0;
          out.push(`line ${lc.linePos(at).line}: key ${goyamlKeyText(key)} already set in map`);
        }
        seen.add(id);
      }
    }
  };
  visit(root);
  return out;
}

/** One config text as the json serializer reads it before typing: the JSON tree and the YAML strictness errors. */
type ParsedConfigText = { ok: true; node: JsonNode; yamlStrictError?: string } | { ok: false; error: string };

const interpretStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** encoding/json's name for a JSON value in "cannot unmarshal <name> into …": object, array, string, number, bool, null. */
function jsonTypeName(n: JsonNode): string {
  return n.type;
}

function parseConfigText(text: string): ParsedConfigText {
  // json.Serializer.RecognizesData: JSON is text whose first non-space character is '{'; anything else is YAML.
  if (/^\s*\{/u.test(text)) {
    try {
      JSON.parse(text);
    } catch (err) {
      // meta.Interpret is the first to unmarshal JSON input; Node's syntax error text differs from Go's.
      return { ok: false, error: `couldn't get version/kind; json parse error: ${(err as Error).message}` };
    }
    return { ok: true, node: new JsonReader(text).read() };
  }
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, {
    // sigs.k8s.io/yaml uses yaml.v2: YAML 1.1 scalars (yes/no booleans, 0777 octals) but timestamps stay strings.
    version: '1.1',
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || t.tag !== 'tag:yaml.org,2002:timestamp'),
    // Duplicate keys are not a parse error here: goyamlDuplicateKeys finds them all, with yaml.v2's text and lines,
    // and the values are read last-wins as the non-strict YAMLToJSON pass does.
    uniqueKeys: false,
    lineCounter: lc,
  });
  // yaml.v2 Unmarshal reads the first document only.
  const doc: Document.Parsed | undefined = Array.isArray(docs) ? docs[0] : undefined;
  if (doc && doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line ?? 1;
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/u, '');
    return { ok: false, error: `yaml: line ${line}: ${message}` };
  }
  const root = (doc?.contents ?? null) as YamlNode | null;
  const value = toJsonValue(doc ? doc.toJS({ maxAliasCount: -1 }) : null);
  const dups = goyamlDuplicateKeys(root, lc);
  const yamlStrictError = dups.length > 0 ? `yaml: unmarshal errors:\n  ${dups.join('\n  ')}` : undefined;
  return { ok: true, node: nodeFromYamlValue(value), ...(yamlStrictError ? { yamlStrictError } : {}) };
}

// Go types of the configuration structs, enough to reproduce encoding/json's strict and type errors.
interface GoStruct {
  kind: 'struct';
  /** reflect.Type.Name(), for "Go struct field <Name>.<field>" */
  name: string;
  /** reflect.Type.String(), for "of type <pkg.Name>" */
  qualified: string;
  fields: Readonly<Record<string, GoType>>;
}
type GoType = { kind: 'string' } | { kind: 'raw' } | { kind: 'slice'; elem: GoStruct } | GoStruct;

const goString: GoType = { kind: 'string' };
const typeMeta = { apiVersion: goString, kind: goString };

function goTypeString(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return 'string';
    case 'raw':
      return '*runtime.Unknown';
    case 'slice':
      return `[]${t.elem.qualified}`;
    case 'struct':
      return t.qualified;
  }
}

/** A runtime.Unknown field's value: the JSON it held. */
class RawValue {
  constructor(readonly node: JsonNode) {}
}

/** A decoded struct: only the members present in the input, by JSON field name. */
interface DecodedStruct {
  [field: string]: DecodedValue;
}
type DecodedValue = string | RawValue | DecodedStruct | DecodedStruct[];

function isDecodedStruct(v: DecodedValue | undefined): v is DecodedStruct {
  return typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawValue);
}

/** encoding/json (sigs.k8s.io/json UnmarshalStrict) over a JsonNode: the first type error is fatal, strict errors accumulate. */
class StrictDecodeState {
  fatal?: string;
  readonly strict: string[] = [];

  strictError(msg: string): void {
    if (!this.strict.includes(msg)) this.strict.push(msg);
  }

  typeError(value: JsonNode, type: GoType, struct: string, field: readonly string[]): void {
    this.fatal ??= `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${struct}.${field.join('.')} of type ${goTypeString(type)}`;
  }

  decode(node: JsonNode, type: GoType, strictPath: string, field: readonly string[], struct: string): DecodedValue | undefined {
    switch (type.kind) {
      case 'raw':
        // runtime.Unknown keeps any JSON value as raw bytes; null leaves the pointer nil.
        return node.type === 'null' ? undefined : new RawValue(node);
      case 'string':
        if (node.type === 'string') return node.value;
        // null is ignored for Go strings.
        if (node.type !== 'null') this.typeError(node, type, struct, field);
        return undefined;
      case 'slice': {
        if (node.type === 'null') return undefined;
        if (node.type !== 'array') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        return node.items.map((item, i) => {
          const d = this.decode(item, type.elem, `${strictPath}[${i}]`, field, struct);
          return isDecodedStruct(d) ? d : {};
        });
      }
      case 'struct': {
        if (node.type === 'null') return undefined;
        if (node.type !== 'object') {
          this.typeError(node, type, struct, field);
          return undefined;
        }
        const out: DecodedStruct = {};
        const seen = new Set<string>();
        for (const { key, node: child } of node.members) {
          const childPath = strictPath === '' ? key : `${strictPath}.${key}`;
          const childType = Object.prototype.hasOwnProperty.call(type.fields, key) ? type.fields[key] : undefined;
          if (!childType) {
            this.strictError(`unknown field ${goQuote(childPath)}`);
            continue;
          }
          if (seen.has(key)) this.strictError(`duplicate field ${goQuote(childPath)}`);
          seen.add(key);
          const d = this.decode(child, childType, childPath, [...field, key], type.name);
          if (d !== undefined) out[key] = d;
        }
        return out;
      }
    }
  }
}

/** A runtime.Scheme's worth of config types: GroupVersion → kind → struct. */
interface ConfigScheme {
  /** the name kube's scheme carries in "not registered" errors */
  name: string;
  types: Readonly<Record<string, Readonly<Record<string, GoStruct>>>>;
}

type DecodeResult =
  | { ok: true; groupVersion: string; kind: string; object: DecodedStruct }
  | { ok: false; error: string; missingKindOrNotRegistered: boolean };

/** schema.ParseGroupVersion */
function parseGroupVersion(apiVersion: string): { ok: true; group: string; version: string } | { ok: false; error: string } {
  if (apiVersion === '' || apiVersion === '/') return { ok: true, group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { ok: true, group: '', version: parts[0]! };
  if (parts.length === 2) return { ok: true, group: parts[0]!, version: parts[1]! };
  return { ok: false, error: `unexpected GroupVersion string: ${apiVersion}` };
}

/**
 * runtime.Decode(codecs.UniversalDecoder(), data) with a strict codec factory: meta.Interpret, the missing kind and
 * version errors, the scheme lookup, then the strict unmarshal (YAML duplicate keys, unknown and duplicate fields).
 */
function decodeConfig(text: string, scheme: ConfigScheme): DecodeResult {
  const parsed = parseConfigText(text);
  if (!parsed.ok) return { ok: false, error: parsed.error, missingKindOrNotRegistered: false };
  const root = parsed.node;
  // meta.Interpret: json.Unmarshal into struct{APIVersion, Kind}.
  if (root.type !== 'object' && root.type !== 'null') {
    return { ok: false, error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(root)} into Go value of type ${interpretStruct}`, missingKindOrNotRegistered: false };
  }
  let apiVersion = '';
  let kind = '';
  if (root.type === 'object') {
    for (const { key, node } of root.members) {
      if (key !== 'apiVersion' && key !== 'kind') continue;
      if (node.type === 'string') {
        if (key === 'kind') kind = node.value;
        else apiVersion = node.value;
      } else if (node.type !== 'null') {
        return { ok: false, error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(node)} into Go struct field .${key} of type string`, missingKindOrNotRegistered: false };
      }
    }
  }
  const gv = parseGroupVersion(apiVersion);
  if (!gv.ok) return { ok: false, error: gv.error, missingKindOrNotRegistered: false };
  if (kind === '') return { ok: false, error: `Object 'Kind' is missing in '${text}'`, missingKindOrNotRegistered: true };
  if (gv.version === '') return { ok: false, error: `Object 'apiVersion' is missing in '${text}'`, missingKindOrNotRegistered: true };
  const groupVersion = gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
  const kinds = Object.prototype.hasOwnProperty.call(scheme.types, groupVersion) ? scheme.types[groupVersion] : undefined;
  const type = kinds && Object.prototype.hasOwnProperty.call(kinds, kind) ? kinds[kind] : undefined;
  if (!type) {
    return { ok: false, error: `no kind ${goQuote(kind)} is registered for version ${goQuote(groupVersion)} in scheme ${goQuote(scheme.name)}`, missingKindOrNotRegistered: true };
  }
  const st = new StrictDecodeState();
  const object = st.decode(root, type, '', [], type.name);
  // A type error ends the decode; the strictness errors of that decode are dropped with it, as in the serializer.
  if (st.fatal) return { ok: false, error: st.fatal, missingKindOrNotRegistered: false };
  const strict = [...(parsed.yamlStrictError ? [parsed.yamlStrictError] : []), ...st.strict];
  if (strict.length > 0) return { ok: false, error: `strict decoding error: ${strict.join(', ')}`, missingKindOrNotRegistered: false };
  return { ok: true, groupVersion, kind, object: isDecodedStruct(object) ? object : {} };
}

// ---------------------------------------------------------------------------------------------------------------
// The schemes kube-apiserver decodes these files with

function admissionConfigurationType(pkg: string): GoStruct {
  const plugin: GoStruct = {
    kind: 'struct',
    name: 'AdmissionPluginConfiguration',
    qualified: `${pkg}.AdmissionPluginConfiguration`,
    fields: { name: goString, path: goString, configuration: { kind: 'raw' } },
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
  return plugins.map((p) => {
    const name = typeof p['name'] === 'string' ? p['name'] : '';
    const path = typeof p['path'] === 'string' && p['path'] !== '' ? resolve(baseDir, p['path']) : undefined;
    const conf = p['configuration'];
    const configuration = conf instanceof RawValue ? conf.node : undefined;
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

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
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
  if (path === '') return { ok: true, config: deepFreeze({ path: '', plugins: {}, other: {} }) };
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
  return { ok: true, config: deepFreeze({ path: configPath, plugins, other: Object.fromEntries(other) }) };
}
