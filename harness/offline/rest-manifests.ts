// `kah admit --manifests PATH`: objects as they would have been created through the REST API — webhook
// configurations, policies and bindings (admissionregistration.k8s.io/v1), and parameter objects of any kind — read
// from directories or files (multi-document YAML, JSON, v1 List and typed lists). Served kinds get the REST API's
// create handling: the admissionregistration kinds are strictly decoded as the manifest loader does, every served
// kind is defaulted and validated by its registry strategy (metadata included). Kinds this server does not serve
// are kept as they are: they can only be parameters.
import { readFile, stat } from 'node:fs/promises';
import { qualifiedResource } from '../../server/api/errors.js';
import { fieldErrorBody, type FieldError } from '../../server/api/field.js';
import { parseJsonOrYamlDocument, type JsonNode } from '../../server/api/go-json-document.js';
import type { KubeObject } from '../../server/api/types.js';
import { decodeNode, goJsonMarshal } from '../../server/admission/manifest/decode.js';
import { manifestDocuments, readManifestDir, type ManifestFile } from '../../server/admission/manifest/load.js';
import { admissionRegistrationGroup, isManifestKind } from '../../server/admission/manifest/schema.js';
import type { ManifestError } from '../../server/admission/manifest/manifest-error.js';
import { goPathErrorMessage } from '../../server/options/go-fs-errors.js';
import { goQuote } from '../../server/options/go-strconv.js';
import { deepCopy } from '../../server/registry/object-fields.js';
import type { ResourceIndex } from '../../server/registry/resource-index.js';
import { validateObjectMetaCreate } from '../../server/registry/validation/object-meta.js';

/** One object read from --manifests, after the REST API's defaulting. */
export interface RestObject {
  readonly file: string;
  readonly object: KubeObject;
}

export type RestManifestsResult = { ok: true; objects: RestObject[] } | { ok: false; errors: ManifestError[] };

const admissionApiVersion = `${admissionRegistrationGroup}/v1`;

type Obj = { [key: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Reads a directory's manifest files (the static loader's rules: .yaml/.yml/.json, name order) or one file. */
async function readPath(path: string): Promise<{ ok: true; files: ManifestFile[] } | { ok: false; error: ManifestError }> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (err) {
    return { ok: false, error: { file: path, reason: `unable to read ${goQuote(path)}: ${goPathErrorMessage(err, path)}` } };
  }
  if (isDir) return readManifestDir(path);
  try {
    return { ok: true, files: [{ name: path, path, data: await readFile(path) }] };
  } catch (err) {
    return { ok: false, error: { file: path, reason: `failed to read file ${goQuote(path)}: ${goPathErrorMessage(err, path)}` } };
  }
}

class RestManifestLoad {
  readonly errors: ManifestError[] = [];
  readonly objects: RestObject[] = [];
  private readonly seen = new Map<string, string>();

  constructor(private readonly index: ResourceIndex) {}

  file(f: ManifestFile): void {
    for (const doc of manifestDocuments(f)) {
      // kubectl skips documents of only comments (they parse to null); the static loader keeps them, as kube does
      if (doc.ok && doc.node.type === 'null') continue;
      if (doc.ok) this.document(f.path, doc.node, doc.yamlStrictError, undefined);
      else this.errors.push(doc.error);
    }
  }

  private document(file: string, node: JsonNode, yamlStrictError: string | undefined, item: string | undefined): void {
    const at = item === undefined ? {} : { field: item };
    const value = node.value;
    if (!isObj(value)) {
      this.errors.push({ file, ...at, reason: `couldn't get version/kind; json parse error: json: cannot unmarshal ${node.type} into an object` });
      return;
    }
    const apiVersion = str(value['apiVersion']);
    const kind = str(value['kind']);
    if (kind === '') return void this.errors.push({ file, ...at, reason: `Object 'Kind' is missing in '${goJsonMarshal(value)}'` });
    if (apiVersion === '') return void this.errors.push({ file, ...at, reason: `Object 'apiVersion' is missing in '${goJsonMarshal(value)}'` });

    // v1 List, or a typed list (kubectl get -o yaml): each item on its own; typed list items may leave out their type.
    const items = node.type === 'object' ? [...node.members].reverse().find((m) => m.key === 'items')?.node : undefined;
    if (kind.endsWith('List') && items?.type === 'array') {
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
      items.items.forEach((child, i) => {
        const field = `${item ? `${item}.` : ''}items[${i}]`;
        if (itemKind && isObj(child.value) && (!child.value['kind'] || !child.value['apiVersion'])) {
          const typed = parseJsonOrYamlDocument(JSON.stringify({ apiVersion, kind: itemKind, ...child.value }));
          if (typed.ok) return this.document(file, typed.node, undefined, field);
        }
        this.document(file, child, undefined, field);
      });
      return;
    }

    let object: KubeObject;
    if (apiVersion === admissionApiVersion && isManifestKind(kind)) {
      const decoded = decodeNode(node, yamlStrictError);
      if (!decoded.ok) return void this.errors.push({ file, ...at, reason: decoded.error });
      const name = isObj(value['metadata']) ? str(value['metadata']['name']) : '';
      if (decoded.decoded.error || !decoded.decoded.object) {
        return void this.errors.push({ file, kind, ...(name ? { name } : {}), ...at, reason: decoded.decoded.error ?? 'decoding failed' });
      }
      object = { ...decoded.decoded.object, apiVersion, kind } as KubeObject;
    } else {
      object = deepCopy(value) as KubeObject;
    }
    this.object(file, object, at);
  }

  /** The REST create handling of a served kind (PrepareForCreate's defaults, then ValidateObjectMeta + Validate). */
  private object(file: string, object: KubeObject, at: { field?: string }): void {
    const kind = object.kind ?? '';
    const info = this.index.lookupKind(object.apiVersion ?? '', kind);
    const meta = (object.metadata ??= {});
    if (info?.namespaced && !meta.namespace) meta.namespace = 'default';
    const name = meta.name ?? '';
    const where = { file, kind, ...(name ? { name } : {}) };
    let errs: FieldError[];
    if (info && !info.virtual) {
      info.strategy.applyDefaults?.(object);
      errs = validateObjectMetaCreate(meta, { namespaced: info.namespaced, nameRule: info.nameRule }).concat(info.strategy.validate?.(object) ?? []);
    } else {
      // not served here: nothing to validate it with but its name, which a parameter reference needs
      errs = name === '' ? [{ type: 'Required', field: 'metadata.name', detail: 'name or generateName is required' }] : [];
    }
    for (const fe of errs) this.errors.push({ ...where, field: at.field ? `${at.field}.${fe.field}` : fe.field, reason: fieldErrorBody(fe) });
    if (errs.length > 0) return;
    // The second create of the same object fails as the REST API's would.
    const key = `${object.apiVersion}/${kind}/${meta.namespace ?? ''}/${name}`;
    const previous = this.seen.get(key);
    if (previous !== undefined) {
      const resource = info ? qualifiedResource({ group: info.group, resource: info.resource }) : kind.toLowerCase();
      this.errors.push({ ...where, ...at, reason: `${resource} ${goQuote(name)} already exists (first in ${previous})` });
      return;
    }
    this.seen.set(key, file);
    this.objects.push({ file, object });
  }
}

/** Loads every --manifests path; all problems are reported, one line each (formatManifestError). */
export async function loadRestManifests(paths: readonly string[], index: ResourceIndex): Promise<RestManifestsResult> {
  const load = new RestManifestLoad(index);
  for (const path of paths) {
    const read = await readPath(path);
    if (!read.ok) {
      load.errors.push(read.error);
      continue;
    }
    for (const f of read.files) if (f.data.length > 0) load.file(f);
  }
  if (load.errors.length > 0) return { ok: false, errors: load.errors };
  return { ok: true, objects: load.objects };
}

/** The objects of one kind, sorted by name as an informer-fed source hands them out. */
export function objectsOfKind(objects: readonly RestObject[], kind: string): KubeObject[] {
  return objects
    .filter((o) => o.object.apiVersion === admissionApiVersion && o.object.kind === kind)
    .map((o) => o.object)
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0));
}
