// Loading one plugin's staticManifestsDir (KEP-5793), as kube-apiserver's manifest loaders do: the directory's
// direct .yaml/.yml/.json files in name order, each split into documents and strictly decoded; only that plugin's
// admissionregistration.k8s.io/v1 kinds, alone, in their typed lists or in a v1 List; the REST API's defaulting
// and validation; then the static rules (reserved suffix, unique names, URL-only webhooks, no params, bindings
// to policies of the same directory). Like kube it stops at the first problem and words it as kube's loader does
// (kubeError); kah validate asks it to go on and report every problem.
import { fieldErrorBody, formatFieldError, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { goQuote } from '../../options/go-strconv.js';
import { staticConfigSuffix } from '../webhook/validation.js';
import { decodeNode, goJsonMarshal, parseDocument, splitYamlDocuments, type DecodedObject, type JsonNode } from './decode.js';
import { compareFileNames, hashManifestFiles } from './hash.js';
import type { ManifestError } from './manifest-error.js';
import { takePrefetchedDocument } from './prefetch.js';
import { readManifestDir, type ManifestFile } from './read-dir.js';
import { defaultKindHandlers, manifestPlugins, type ManifestKindHandlers, type ManifestPlugin, type ManifestPluginSpec } from './plugins.js';
import type { ManifestKind } from './schema.js';
import { deepFreeze } from '../../api/deep-freeze.js';

export { readManifestDir, type ManifestFile, type ReadManifestDirResult } from './read-dir.js';

/** One document of a manifest file: its text and parse tree, or why it could not be read. */
export type ManifestDocument =
  | { ok: true; node: JsonNode; yamlStrictError: string | undefined; /** the document as split, trimmed */ text: string }
  | { ok: false; error: ManifestError };

export type SplitManifestFile = { ok: true; docs: string[] } | { ok: false; error: ManifestError };

/** manifest.LoadFiles' splitting: the file's non-empty documents, or the split error (which kube reports before decoding anything). */
export function splitManifestFile(f: ManifestFile): SplitManifestFile {
  const split = splitYamlDocuments(f.data.toString('utf8'));
  if (!split.ok) return { ok: false, error: { file: f.path, reason: `failed to split YAML documents in file ${goQuote(f.path)}: ${split.error}` } };
  return split;
}

/**
 * A file's YAML documents in order, each parsed; a file that cannot be split is one error. Documents empty between
 * separators are left out (utilyaml's reader and kube's TrimSpace); a document of only comments is kept: it parses
 * to null, and kube's decoder fails on it (no kind).
 */
export function manifestDocuments(f: ManifestFile): ManifestDocument[] {
  const split = splitManifestFile(f);
  if (!split.ok) return [split];
  return split.docs.map(parsedDocument(f.path));
}

const parsedDocument =
  (file: string) =>
  (text: string): ManifestDocument => {
    const parsed = takePrefetchedDocument(text) ?? parseDocument(text);
    if (!parsed.ok) return { ok: false, error: { file, reason: parsed.error } };
    return { ok: true, node: parsed.node, yamlStrictError: parsed.yamlStrictError, text };
  };

// ---- loading ---------------------------------------------------------------------------------------------

export interface LoadManifestOptions {
  /** defaulting and REST validation per kind; default: the shared webhook and policy validators, without CEL */
  handlers?: ManifestKindHandlers;
  /**
   * false: go on after the first problem and report every one (kah validate). Default true: stop where kube's
   * loader stops (the first failing document or object), as the server does.
   */
  stopAtFirstError?: boolean;
}

export type ManifestLoadResult =
  | {
      ok: true;
      /** deep-frozen; for webhook plugins the configurations, for policy plugins the policies then the bindings, each sorted by name */
      objects: readonly KubeObject[];
      /** hashManifestFiles of the files read */
      hash: string;
    }
  | {
      ok: false;
      /** every problem found (only those of the first failing document or object when stopping at the first error) */
      errors: ManifestError[];
      /**
       * the error kube's loader returns (LoadManifests / LoadPolicyManifests), e.g. `error loading <file>:
       * ValidatingWebhookConfiguration "x": webhooks[0].name: Required value`; the plugin wraps it (manifestLoadFailure)
       */
      kubeError: string;
      /** how many of the first `errors` kubeError covers (the rest go beyond what kube reports) */
      kubeErrorCount: number;
    };

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

function nameOf(obj: Obj | undefined): string {
  return isObj(obj) && isObj(obj['metadata']) ? str(obj['metadata']['name']) : '';
}

/** The Go type kube's loaders print with %T ("unsupported resource type %T"). */
function goTypeOf(d: DecodedObject): string {
  if (d.entry.form === 'registered') return d.entry.goType;
  return `*v1.${d.kind}`;
}

/** ErrorList.ToAggregate().Error(): field errors as "<field>: <body>", duplicates dropped, several in brackets. */
function aggregateFieldErrors(errs: readonly FieldError[]): string {
  const unique = [...new Set(errs.map(formatFieldError))];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

interface LoadedObject {
  kind: ManifestKind;
  name: string;
  file: string;
  object: KubeObject;
}

type At = Omit<ManifestError, 'reason'>;

/**
 * One load: the files of one directory for one plugin, in kube's order (LoadManifests / LoadPolicyManifests):
 * every document decoded strictly; a v1 List's items decoded and handled in turn; the accepted kind's items all
 * defaulted and validated, then each item's name and static constraints; the binding references at the end.
 */
class ManifestLoad {
  readonly errors: ManifestError[] = [];
  /** the first error, worded as kube's loader returns it */
  kubeError?: string;
  /** how many of `errors` kubeError covers */
  kubeErrorCount = 0;
  readonly objects: LoadedObject[] = [];
  /** per kind: name → the file it was first seen in */
  private readonly seen = new Map<ManifestKind, Map<string, string>>();
  private readonly spec: ManifestPluginSpec;
  private readonly handlers: ManifestKindHandlers;

  constructor(
    private readonly plugin: ManifestPlugin,
    handlers: ManifestKindHandlers | undefined,
    private readonly stopAtFirstError: boolean,
  ) {
    this.spec = manifestPlugins[plugin];
    this.handlers = handlers ?? defaultKindHandlers(plugin);
  }

  /** kube has returned: nothing after the first error is looked at */
  get stopped(): boolean {
    return this.stopAtFirstError && this.kubeError !== undefined;
  }

  /** Records problems; the first one also becomes kube's error, `kube` being its text without "error loading <file>: ". */
  private fail(errors: readonly ManifestError[], kube: string, file?: string): void {
    this.errors.push(...errors);
    if (this.kubeError !== undefined) return;
    this.kubeError = file === undefined ? kube : `error loading ${file}: ${kube}`;
    this.kubeErrorCount = this.errors.length;
  }

  splitFailed(error: ManifestError): void {
    this.fail([error], error.reason);
  }

  documents(file: string, docs: readonly string[]): void {
    for (const doc of docs.map(parsedDocument(file))) {
      if (this.stopped) return;
      if (doc.ok) this.document(file, doc.node, doc.yamlStrictError, doc.text, undefined);
      else this.fail([doc.error], doc.error.reason, file);
    }
  }

  /** A top-level document (listItem undefined) or an item of a v1 List. */
  private document(file: string, node: JsonNode, yamlStrictError: string | undefined, text: string | undefined, listItem: number | undefined): void {
    const field = listItem === undefined ? undefined : `items[${listItem}]`;
    // kube returns an item's decoding error from the innermost List that holds it, prefixed once
    const prefix = listItem === undefined ? '' : 'failed to decode list item: ';
    const result = decodeNode(node, yamlStrictError, text ?? goJsonMarshal(node.value));
    if (!result.ok) {
      this.fail([{ file, ...(field ? { field } : {}), reason: `${prefix}${result.error}` }], `${prefix}${result.error}`, file);
      return;
    }
    const d = result.decoded;
    const name = node.type === 'object' && isObj(node.value['metadata']) ? str(node.value['metadata']['name']) : '';
    const where = { file, kind: d.kind, ...(name ? { name } : {}), ...(field ? { field } : {}) };
    // a strict decoding error fails the decode in kube, although the object came back
    if (d.error) this.fail([{ ...where, reason: `${prefix}${d.error}` }], `${prefix}${d.error}`, file);
    if (this.stopped) return;

    if (d.entry.form === 'list') {
      // both loaders recurse into a v1 List's items, Lists in Lists included
      for (const [i, item] of (d.items ?? []).entries()) {
        if (this.stopped) return;
        this.document(file, item, undefined, undefined, i);
      }
      return;
    }
    const kind = d.entry.form === 'registered' ? undefined : d.entry.kind;
    if (kind === undefined || !this.spec.kinds.includes(kind) || d.group !== 'admissionregistration.k8s.io' || d.version !== 'v1') {
      const reason = `unsupported resource type ${goTypeOf(d)}`;
      this.fail([{ ...where, reason }], reason, file);
      return;
    }
    // A type error ended decoding: there is no object to go on with.
    if (!d.object) return;
    const items = d.entry.form === 'typedList' ? (Array.isArray(d.object['items']) ? d.object['items'] : []).map((i) => (isObj(i) ? i : {})) : [d.object];
    this.accept(file, kind, items);
  }

  /** An accepted kind's items: kube defaults and validates them all, then checks each one's name and static rules. */
  private accept(file: string, kind: ManifestKind, items: Obj[]): void {
    const handler = this.handlers[kind];
    const accepted = items.map((obj) => {
      // typed list items may leave out their type; the loaded objects always carry it
      const object = Object.assign(obj, { apiVersion: 'admissionregistration.k8s.io/v1', kind }) as KubeObject;
      const name = nameOf(obj);
      const at: At = { file, kind, ...(name ? { name } : {}) };
      handler?.setDefaults?.(object);
      const fieldErrs = handler?.validate(object) ?? [];
      if (fieldErrs.length > 0 && !this.stopped) {
        this.fail(
          fieldErrs.map((fe) => ({ ...at, field: fe.field, reason: fieldErrorBody(fe) })),
          `${kind} ${goQuote(name)}: ${aggregateFieldErrors(fieldErrs)}`,
          file,
        );
      }
      return { object, name, at };
    });
    for (const { object, name, at } of accepted) {
      if (this.stopped) return;
      if (!this.validateName(at, kind, name, file)) continue;
      if (this.spec.family === 'webhook') this.validateWebhooks(at, object, name, file);
      else if (kind === this.spec.policyKind) this.validatePolicy(at, kind, object, name, file);
      else this.validateBinding(at, object, name, file);
      this.objects.push({ kind, name, file, object });
    }
  }

  // manifest.ValidateManifestName; a name is remembered only once it passed
  private validateName(at: At, kind: ManifestKind, name: string, file: string): boolean {
    const field = 'metadata.name';
    let reason: string | undefined;
    let names = this.seen.get(kind);
    if (!names) this.seen.set(kind, (names = new Map()));
    const previous = names.get(name);
    if (name === '') reason = `resource in file ${goQuote(file)} must have a name`;
    else if (!name.endsWith(staticConfigSuffix)) reason = `${goQuote(name)} in file ${goQuote(file)} must have a name ending with ${goQuote(staticConfigSuffix)}`;
    else if (previous !== undefined) reason = `duplicate name ${goQuote(name)} found in file ${goQuote(file)} (previously seen in ${goQuote(previous)})`;
    if (reason === undefined) {
      names.set(name, file);
      return true;
    }
    this.fail([{ ...at, field, reason }], reason, file);
    // kah validate goes on with the object, so that its other problems are reported as well
    return !this.stopAtFirstError;
  }

  // ValidateWebhookClientConfig: URL-only webhooks, since the service network may not be up at startup.
  private validateWebhooks(at: At, obj: Obj, name: string, file: string): void {
    const hooks = Array.isArray(obj['webhooks']) ? obj['webhooks'] : [];
    for (const [i, raw] of hooks.entries()) {
      if (this.stopped) return;
      const hook = isObj(raw) ? raw : {};
      const cc = isObj(hook['clientConfig']) ? hook['clientConfig'] : {};
      const path = `webhooks[${i}].clientConfig`;
      const intro = `webhook ${goQuote(str(hook['name']))} in ${goQuote(name)} (file ${goQuote(file)})`;
      if (isSet(cc['service'])) {
        const reason = `${intro}: clientConfig.service is not supported for static manifests; use clientConfig.url instead`;
        this.fail([{ ...at, field: `${path}.service`, reason }], reason, file);
      } else if (str(cc['url']) === '') {
        const reason = `${intro}: clientConfig.url is required for static manifests`;
        this.fail([{ ...at, field: `${path}.url`, reason }], reason, file);
      }
    }
  }

  // validatePolicyManifestConstraints: no params, nothing in a manifest may refer to API objects.
  private validatePolicy(at: At, kind: ManifestKind, obj: Obj, name: string, file: string): void {
    const spec = isObj(obj['spec']) ? obj['spec'] : {};
    if (isSet(spec['paramKind'])) {
      const reason = `${kind} ${goQuote(name)}: spec.paramKind is not supported for static manifests`;
      this.fail([{ ...at, field: 'spec.paramKind', reason }], reason, file);
    }
  }

  // validateBindingConstraints; the reference itself is checked once every file is read.
  private validateBinding(at: At, obj: Obj, name: string, file: string): void {
    const spec = isObj(obj['spec']) ? obj['spec'] : {};
    const policyName = str(spec['policyName']);
    const problems: ManifestError[] = [];
    if (policyName === '') {
      problems.push({ ...at, field: 'spec.policyName', reason: `binding ${goQuote(name)} must reference a policy (spec.policyName)` });
    } else if (!policyName.endsWith(staticConfigSuffix)) {
      problems.push({ ...at, field: 'spec.policyName', reason: `binding ${goQuote(name)}: spec.policyName ${goQuote(policyName)} must end with ${goQuote(staticConfigSuffix)}` });
    }
    if (isSet(spec['paramRef'])) {
      problems.push({ ...at, field: 'spec.paramRef', reason: `binding ${goQuote(name)}: spec.paramRef is not supported for static manifests` });
    }
    // kube returns the first of them
    if (problems.length > 0) this.fail(this.stopAtFirstError ? problems.slice(0, 1) : problems, problems[0]!.reason, file);
  }

  // validateBindingReferences, after every file: a binding's policy must come from the same directory. kube returns
  // this error unwrapped (no "error loading <file>").
  validateBindingReferences(): void {
    if (this.spec.family !== 'policy' || this.stopped) return;
    const { policyKind, bindingKind } = this.spec;
    const policies = new Set(this.objects.filter((o) => o.kind === policyKind).map((o) => o.name));
    for (const b of this.objects) {
      if (this.stopped) return;
      if (b.kind !== bindingKind) continue;
      const spec = b.object['spec'];
      const policyName = isObj(spec) ? str(spec['policyName']) : '';
      // kah validate: an empty policyName is already reported
      if (policies.has(policyName) || (policyName === '' && !this.stopAtFirstError)) continue;
      const reason = `binding ${goQuote(b.name)} references policy ${goQuote(policyName)} which does not exist in the manifest directory`;
      this.fail([{ file: b.file, kind: b.kind, ...(b.name ? { name: b.name } : {}), field: 'spec.policyName', reason }], reason);
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

/**
 * Loads already read files (pure): the objects and their hash, or the problems found. As manifest.LoadFiles does,
 * every file is split before any document is decoded, so a split error comes first.
 */
export function loadManifestFiles(files: readonly ManifestFile[], plugin: ManifestPlugin, opts: LoadManifestOptions = {}): ManifestLoadResult {
  const load = new ManifestLoad(plugin, opts.handlers, opts.stopAtFirstError ?? true);
  const sorted = [...files].filter((f) => f.data.length > 0).sort((a, b) => compareFileNames(a.name, b.name));
  const splits = sorted.map((f) => ({ file: f.path, split: splitManifestFile(f) }));
  for (const { split } of splits) if (!split.ok && !load.stopped) load.splitFailed(split.error);
  for (const { file, split } of splits) {
    if (load.stopped) break;
    if (split.ok) load.documents(file, split.docs);
  }
  load.validateBindingReferences();
  if (load.kubeError !== undefined) return { ok: false, errors: load.errors, kubeError: load.kubeError, kubeErrorCount: load.kubeErrorCount };
  return { ok: true, objects: deepFreeze(load.sortedObjects()), hash: hashManifestFiles(sorted) };
}

/** Reads and loads one plugin's manifest directory. */
export async function loadManifestDir(dir: string, plugin: ManifestPlugin, opts: LoadManifestOptions = {}): Promise<ManifestLoadResult> {
  const read = await readManifestDir(dir);
  if (!read.ok) return { ok: false, errors: [read.error], kubeError: read.error.reason, kubeErrorCount: 1 };
  return loadManifestFiles(read.files, plugin, opts);
}

/**
 * The startup error kube-apiserver reports for a plugin whose directory does not load: InitPlugin's wrapping of the
 * plugin's ValidateInitialization error ("failed to load static webhook|policy manifests from <dir>: <loader error>").
 */
export function manifestLoadFailure(plugin: ManifestPlugin, dir: string, kubeError: string): string {
  const what = manifestPlugins[plugin].family === 'webhook' ? 'webhook' : 'policy';
  return `failed to initialize admission plugin ${goQuote(plugin)}: failed to load static ${what} manifests from ${goQuote(dir)}: ${kubeError}`;
}
