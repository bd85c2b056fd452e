// Loading one plugin's staticManifestsDir (KEP-5793), as kube-apiserver's manifest loaders do: the directory's
// direct .yaml/.yml/.json files in name order, each split into documents and strictly decoded; only that plugin's
// admissionregistration.k8s.io/v1 kinds, alone, in their typed lists or in a v1 List; the REST API's defaulting
// and validation; then the static rules (reserved suffix, unique names, URL-only webhooks, no params, bindings
// to policies of the same directory). kube stops at the first problem; this loader reports every one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fieldErrorBody } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { goPathErrorMessage } from '../../options/go-fs-errors.js';
import { goQuote } from '../../options/go-strconv.js';
import { staticConfigSuffix } from '../webhook/validation.js';
import { decodeNode, parseDocument, splitYamlDocuments, type DecodedObject, type JsonNode } from './decode.js';
import { compareFileNames, hashManifestFiles } from './hash.js';
import type { ManifestError } from './manifest-error.js';
import { defaultKindHandlers, manifestPlugins, type ManifestKindHandlers, type ManifestPlugin, type ManifestPluginSpec } from './plugins.js';
import type { ManifestKind } from './schema.js';

// ---- reading the directory --------------------------------------------------------------------------------

export interface ManifestFile {
  /** the name in the directory */
  readonly name: string;
  /** the directory joined with the name */
  readonly path: string;
  readonly data: Buffer;
}

export type ReadManifestDirResult = { ok: true; files: ManifestFile[] } | { ok: false; error: ManifestError };

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

/** Go's filepath.Ext: from the last dot of the name, so ".yaml" alone has the extension ".yaml". */
function goExt(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
}

/**
 * manifest.LoadFiles' reading part: direct children that are not directories, with a .yaml, .yml or .json
 * extension (any case), in name order; empty files are left out. Symbolic links are followed when read.
 */
export async function readManifestDir(dir: string): Promise<ReadManifestDirResult> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    return { ok: false, error: { file: dir, reason: `failed to read manifest directory ${goQuote(dir)}: ${goPathErrorMessage(err, dir)}` } };
  }
  const names = entries
    .filter((e) => !e.isDirectory() && manifestExtensions.has(goExt(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort(compareFileNames);
  // All files are read at once (a directory of 100 manifests is 100 sequential thread-pool round trips
  // otherwise); the outcome is still taken in name order, so the first unreadable file is the one reported.
  const reads = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      try {
        return { ok: true as const, file: { name, path, data: await readFile(path) } };
      } catch (err) {
        return { ok: false as const, error: { file: path, reason: `failed to read file ${goQuote(path)}: ${goPathErrorMessage(err, path)}` } };
      }
    }),
  );
  const files: ManifestFile[] = [];
  for (const r of reads) {
    if (!r.ok) return { ok: false, error: r.error };
    if (r.file.data.length > 0) files.push(r.file);
  }
  return { ok: true, files };
}

/** One document of a manifest file: its parse tree, or why it could not be read. */
export type ManifestDocument = { ok: true; node: JsonNode; yamlStrictError: string | undefined } | { ok: false; error: ManifestError };

/**
 * A file's YAML documents in order, each parsed; a file that cannot be split is one error. Documents that are empty
 * or only comments are left out (kube would fail to find their kind).
 */
export function manifestDocuments(f: ManifestFile): ManifestDocument[] {
  const split = splitYamlDocuments(f.data.toString('utf8'));
  if (!split.ok) return [{ ok: false, error: { file: f.path, reason: `failed to split YAML documents in file ${goQuote(f.path)}: ${split.error}` } }];
  const out: ManifestDocument[] = [];
  for (const doc of split.docs) {
    const parsed = parseDocument(doc);
    if (!parsed.ok) out.push({ ok: false, error: { file: f.path, reason: parsed.error } });
    else if (parsed.node.type !== 'null') out.push({ ok: true, node: parsed.node, yamlStrictError: parsed.yamlStrictError });
  }
  return out;
}

// ---- loading ---------------------------------------------------------------------------------------------

export interface LoadManifestOptions {
  /** defaulting and REST validation per kind; default: the shared webhook and policy validators, without CEL */
  handlers?: ManifestKindHandlers;
}

export type ManifestLoadResult =
  | {
      ok: true;
      /** deep-frozen; for webhook plugins the configurations, for policy plugins the policies then the bindings, each sorted by name */
      objects: readonly KubeObject[];
      /** hashManifestFiles of the files read */
      hash: string;
    }
  | { ok: false; errors: ManifestError[] };

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

function nameOf(obj: Obj | undefined): string {
  return isObj(obj) && isObj(obj['metadata']) ? str(obj['metadata']['name']) : '';
}

/** schema.GroupVersionKind.String() */
function gvkString(d: DecodedObject): string {
  return `${d.group}/${d.version}, Kind=${d.kind}`;
}

/** The Go type kube's webhook loader prints with %T. */
function goTypeOf(d: DecodedObject): string {
  if (d.entry.form === 'registered') return d.entry.goType;
  return `*v1.${d.kind}`;
}

interface LoadedObject {
  kind: ManifestKind;
  name: string;
  file: string;
  object: KubeObject;
}

/** One load: the files of one directory for one plugin. */
class ManifestLoad {
  readonly errors: ManifestError[] = [];
  readonly objects: LoadedObject[] = [];
  /** per kind: name → the file it was first seen in */
  private readonly seen = new Map<ManifestKind, Map<string, string>>();
  private readonly spec: ManifestPluginSpec;
  private readonly handlers: ManifestKindHandlers;

  constructor(private readonly plugin: ManifestPlugin, handlers: ManifestKindHandlers | undefined) {
    this.spec = manifestPlugins[plugin];
    this.handlers = handlers ?? defaultKindHandlers(plugin);
  }

  file(f: ManifestFile): void {
    for (const doc of manifestDocuments(f)) {
      if (doc.ok) this.document(f.path, doc.node, doc.yamlStrictError, undefined);
      else this.errors.push(doc.error);
    }
  }

  /** A top-level document (listItem undefined) or an item of a v1 List. */
  private document(file: string, node: JsonNode, yamlStrictError: string | undefined, listItem: number | undefined): void {
    const field = listItem === undefined ? undefined : `items[${listItem}]`;
    const prefix = listItem === undefined ? '' : 'failed to decode list item: ';
    const result = decodeNode(node, yamlStrictError);
    if (!result.ok) {
      this.errors.push({ file, ...(field ? { field } : {}), reason: `${prefix}${result.error}` });
      return;
    }
    const d = result.decoded;
    const name = node.type === 'object' && isObj(node.value['metadata']) ? str(node.value['metadata']['name']) : '';
    const where = { file, kind: d.kind, ...(name ? { name } : {}), ...(field ? { field } : {}) };
    if (d.error) this.errors.push({ ...where, reason: `${prefix}${d.error}` });

    if (d.entry.form === 'list') {
      // kube's policy loaders unwrap one level of v1 List; the webhook loaders recurse.
      if (listItem !== undefined && this.spec.family === 'policy') {
        this.errors.push({ ...where, reason: `unsupported resource type ${gvkString(d)} in List` });
        return;
      }
      (d.items ?? []).forEach((item, i) => this.document(file, item, undefined, i));
      return;
    }
    const kind = d.entry.form === 'registered' ? undefined : d.entry.kind;
    if (kind === undefined || !this.spec.kinds.includes(kind) || d.group !== 'admissionregistration.k8s.io' || d.version !== 'v1') {
      const reason =
        this.spec.family === 'webhook'
          ? `unsupported resource type ${goTypeOf(d)}`
          : `unsupported resource type ${gvkString(d)}${listItem === undefined ? '' : ' in List'}`;
      this.errors.push({ ...where, reason });
      return;
    }
    // A type error ended decoding: there is no object to go on with.
    if (!d.object) return;
    if (d.entry.form === 'typedList') {
      const items = Array.isArray(d.object['items']) ? d.object['items'] : [];
      for (const item of items) this.object(file, kind, isObj(item) ? item : {});
      return;
    }
    this.object(file, kind, d.object);
  }

  /** One object of an accepted kind: defaults, REST validation, then the static rules. */
  private object(file: string, kind: ManifestKind, obj: Obj): void {
    // typed list items may leave out their type; the loaded objects always carry it
    const object = Object.assign(obj, { apiVersion: 'admissionregistration.k8s.io/v1', kind }) as KubeObject;
    const name = nameOf(obj);
    const at = { file, kind, ...(name ? { name } : {}) };
    const handler = this.handlers[kind];
    handler?.setDefaults?.(object);
    for (const fe of handler?.validate(object) ?? []) this.errors.push({ ...at, field: fe.field, reason: fieldErrorBody(fe) });
    this.validateName(at, kind, name, file);
    if (this.spec.family === 'webhook') this.validateWebhooks(at, obj, name, file);
    else if (kind === this.spec.policyKind) this.validatePolicy(at, kind, obj, name);
    else this.validateBinding(at, obj, name);
    this.objects.push({ kind, name, file, object });
  }

  // manifest.ValidateManifestName
  private validateName(at: Omit<ManifestError, 'reason'>, kind: ManifestKind, name: string, file: string): void {
    const field = 'metadata.name';
    if (name === '') {
      this.errors.push({ ...at, field, reason: `resource in file ${goQuote(file)} must have a name` });
      return;
    }
    if (!name.endsWith(staticConfigSuffix)) {
      this.errors.push({ ...at, field, reason: `${goQuote(name)} in file ${goQuote(file)} must have a name ending with ${goQuote(staticConfigSuffix)}` });
    }
    let names = this.seen.get(kind);
    if (!names) this.seen.set(kind, (names = new Map()));
    const previous = names.get(name);
    if (previous !== undefined) {
      this.errors.push({ ...at, field, reason: `duplicate name ${goQuote(name)} found in file ${goQuote(file)} (previously seen in ${goQuote(previous)})` });
    } else names.set(name, file);
  }

  // ValidateWebhookClientConfig: URL-only webhooks, since the service network may not be up at startup.
  private validateWebhooks(at: Omit<ManifestError, 'reason'>, obj: Obj, name: string, file: string): void {
    const hooks = Array.isArray(obj['webhooks']) ? obj['webhooks'] : [];
    hooks.forEach((raw, i) => {
      const hook = isObj(raw) ? raw : {};
      const cc = isObj(hook['clientConfig']) ? hook['clientConfig'] : {};
      const path = `webhooks[${i}].clientConfig`;
      const intro = `webhook ${goQuote(str(hook['name']))} in ${goQuote(name)} (file ${goQuote(file)})`;
      if (isSet(cc['service'])) {
        this.errors.push({ ...at, field: `${path}.service`, reason: `${intro}: clientConfig.service is not supported for static manifests; use clientConfig.url instead` });
      } else if (str(cc['url']) === '') {
        this.errors.push({ ...at, field: `${path}.url`, reason: `${intro}: clientConfig.url is required for static manifests` });
      }
    });
  }

  // validatePolicyManifestConstraints: no params, nothing in a manifest may refer to API objects.
  private validatePolicy(at: Omit<ManifestError, 'reason'>, kind: ManifestKind, obj: Obj, name: string): void {
    const spec = isObj(obj['spec']) ? obj['spec'] : {};
    if (isSet(spec['paramKind'])) {
      this.errors.push({ ...at, field: 'spec.paramKind', reason: `${kind} ${goQuote(name)}: spec.paramKind is not supported for static manifests` });
    }
  }

  // validateBindingConstraints; the reference itself is checked once every file is read.
  private validateBinding(at: Omit<ManifestError, 'reason'>, obj: Obj, name: string): void {
    const spec = isObj(obj['spec']) ? obj['spec'] : {};
    const policyName = str(spec['policyName']);
    if (policyName === '') {
      this.errors.push({ ...at, field: 'spec.policyName', reason: `binding ${goQuote(name)} must reference a policy (spec.policyName)` });
    } else if (!policyName.endsWith(staticConfigSuffix)) {
      this.errors.push({ ...at, field: 'spec.policyName', reason: `binding ${goQuote(name)}: spec.policyName ${goQuote(policyName)} must end with ${goQuote(staticConfigSuffix)}` });
    }
    if (isSet(spec['paramRef'])) {
      this.errors.push({ ...at, field: 'spec.paramRef', reason: `binding ${goQuote(name)}: spec.paramRef is not supported for static manifests` });
    }
  }

  // ValidateBindingReferences: a binding's policy must come from the same directory. Policies that failed
  // validation still count, so that one mistake is not reported twice.
  validateBindingReferences(): void {
    if (this.spec.family !== 'policy') return;
    const { policyKind, bindingKind } = this.spec;
    const policies = new Set(this.objects.filter((o) => o.kind === policyKind).map((o) => o.name));
    for (const b of this.objects) {
      if (b.kind !== bindingKind) continue;
      const spec = b.object['spec'];
      const policyName = isObj(spec) ? str(spec['policyName']) : '';
      if (policyName === '' || policies.has(policyName)) continue;
      this.errors.push({
        file: b.file,
        kind: b.kind,
        ...(b.name ? { name: b.name } : {}),
        field: 'spec.policyName',
        reason: `binding ${goQuote(b.name)} references policy ${goQuote(policyName)} which does not exist in the manifest directory`,
      });
    }
  }

  /** kube sorts each kind by name; a plugin's kinds keep their order (policies before bindings). */
  sortedObjects(): KubeObject[] {
    const order = (k: ManifestKind): number => this.spec.kinds.indexOf(k);
    return [...this.objects]
      .sort((a, b) => order(a.kind) - order(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((o) => o.object);
  }
}

/** Loads already read files (pure): the objects and their hash, or every problem found. */
export function loadManifestFiles(files: readonly ManifestFile[], plugin: ManifestPlugin, opts: LoadManifestOptions = {}): ManifestLoadResult {
  const load = new ManifestLoad(plugin, opts.handlers);
  const sorted = [...files].sort((a, b) => compareFileNames(a.name, b.name));
  for (const f of sorted) if (f.data.length > 0) load.file(f);
  load.validateBindingReferences();
  if (load.errors.length > 0) return { ok: false, errors: load.errors };
  return { ok: true, objects: deepFreeze(load.sortedObjects()), hash: hashManifestFiles(sorted) };
}

/** Reads and loads one plugin's manifest directory. */
export async function loadManifestDir(dir: string, plugin: ManifestPlugin, opts: LoadManifestOptions = {}): Promise<ManifestLoadResult> {
  const read = await readManifestDir(dir);
  if (!read.ok) return { ok: false, errors: [read.error] };
  return loadManifestFiles(read.files, plugin, opts);
}
