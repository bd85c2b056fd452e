// PATCH with application/apply-patch+yaml: kube-apiserver's applyPatcher (endpoints/handlers/patch.go) over its
// field manager. The body is a partial object (an apply configuration) that is merged into the live object, or
// creates it (apply is an upsert); the fields it sets become the field manager's, what the manager applied before
// and no longer applies is removed, and changing a field another manager owns is a 409 conflict unless force=true.
import { deepCopyJSON } from '../../api/deep-copy.js';
import { errors, StatusError } from '../../api/errors.js';
import { fieldErrors, type FieldError } from '../../api/field.js';
import { apiVersionOf, type KubeObject } from '../../api/types.js';
import { mergeAppliedConfiguration } from '../../admission/policy/mutating/apply-configuration.js';
import { yamlAliasingError, yamlDocumentToJS, yamlNestingError } from '../../api/yaml-limits.js';
import { metaOf } from '../../registry/object-fields.js';
import type { RequestContext } from '../../registry/request-context.js';
import type { ResourceInfo } from '../../registry/resource.js';
import type { ResourceStore } from '../../registry/store.js';
import { decodeManagedFields, encodeManagedFields, recordApply } from './managed-fields.js';
import { resourceApplySchema, type ResourceApplySchema } from './ownership-schema.js';

export const ApplyYAMLPatchType = 'application/apply-patch+yaml';
export const ApplyCBORPatchType = 'application/apply-patch+cbor';

type JsonMap = Record<string, unknown>;
const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface ApplyPatchOptions {
  fieldManager: string | undefined;
  force: boolean | undefined;
}

/** validation.ValidatePatchOptions for an apply patch: 422 on PatchOptions.meta.k8s.io. */
export function validateApplyPatchOptions(opts: ApplyPatchOptions): StatusError | undefined {
  const errs: FieldError[] = [];
  if (!opts.fieldManager) errs.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
  errs.push(...validateFieldManager(opts.fieldManager));
  return errs.length ? errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs) : undefined;
}

/** validation.ValidatePatchOptions for any other patch: force belongs to apply. */
export function validateNonApplyPatchOptions(opts: ApplyPatchOptions): StatusError | undefined {
  const errs: FieldError[] = [];
  if (opts.force !== undefined) errs.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
  errs.push(...validateFieldManager(opts.fieldManager));
  return errs.length ? errors.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', errs) : undefined;
}

/** ValidateFieldManager: at most 128 bytes of printable characters. */
function validateFieldManager(manager: string | undefined): FieldError[] {
  if (!manager) return [];
  if (Buffer.byteLength(manager, 'utf8') > 128) return [fieldErrors.tooLong('fieldManager', manager, 128)];
  for (const ch of manager) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) return [fieldErrors.invalid('fieldManager', manager, 'FieldManager must only contain printable characters')];
  }
  return [];
}

/** managerOrUserAgent: the fieldManager parameter, else the client's User-Agent up to its first "/". */
export function managerOrUserAgent(manager: string | undefined, userAgent: string | undefined): string {
  if (manager) return manager;
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) continue;
    if (Buffer.byteLength(out, 'utf8') >= 128) break;
    out += ch;
  }
  return out;
}

/** GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap". */
function gvkString(apiVersion: string, kind: string): string {
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${kind}`;
}

/** Decodes the apply body as kube does: YAML (JSON is YAML) into a map. */
export async function decodeApplyConfiguration(body: Buffer): Promise<JsonMap> {
  const text = body.toString('utf8');
  // sigs.k8s.io/yaml's limits (nesting, aliases) before anything recursive runs; its Unmarshal wraps them.
  const tooDeep = yamlNestingError(text);
  if (tooDeep !== undefined) throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: ${tooDeep}`);
  const { parseDocument } = await import('yaml');
  // Merge keys (`<<: *anchor`) are merged, as yaml.v2 (sigs.k8s.io/yaml) does.
  const doc = parseDocument(text, { uniqueKeys: false, merge: true });
  if (doc.errors.length) throw errors.badRequest(`error decoding YAML: ${doc.errors[0]!.message}`);
  const aliasing = yamlAliasingError(doc);
  if (aliasing !== undefined) throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: ${aliasing}`);
  const decoded = yamlDocumentToJS(doc);
  if (!decoded.ok) throw errors.badRequest(`error decoding YAML: error converting YAML to JSON: ${decoded.error}`);
  const value: unknown = decoded.value;
  if (value === null || value === undefined) return {};
  if (!isMap(value)) throw errors.badRequest(`error decoding YAML: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : 'number'} into Go value of type map[string]interface {}`);
  return value;
}

export interface ApplyRequest {
  info: ResourceInfo;
  store: ResourceStore;
  ctx: RequestContext;
  /** the name on the URL */
  name: string;
  config: JsonMap;
  manager: string;
  force: boolean;
  now: () => string;
  /** the admission options of the update, and of the create an apply turns into when there is nothing to update */
  updateOptions: KubeObject;
  createOptions: KubeObject;
}

export interface ApplyResult {
  object: KubeObject;
  created: boolean;
}

/** The apply itself against one live object (undefined: the apply creates the object). */
function applyTo(req: ApplyRequest, schema: ResourceApplySchema, live: KubeObject | undefined): KubeObject {
  const { info, config } = req;
  const want = { apiVersion: apiVersionOf(info.group, info.version), kind: info.kind };
  // versionCheckManager, then the structured merge manager's checks on the configuration
  const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  const kind = typeof config['kind'] === 'string' ? config['kind'] : '';
  if (apiVersion !== want.apiVersion || kind !== want.kind) throw errors.badRequest(`invalid object type: ${gvkString(apiVersion, kind)}`);
  const configMeta = isMap(config['metadata']) ? config['metadata'] : {};
  if (configMeta['managedFields'] !== undefined && configMeta['managedFields'] !== null) throw errors.badRequest('metadata.managedFields must be nil');

  const liveObject: KubeObject = live ? deepCopyJSON(live) : {};
  const entries = decodeManagedFields(live ? metaOf(live).managedFields : undefined);
  if (live) delete (metaOf(liveObject) as JsonMap)['managedFields'];
  const merged = mergeAppliedConfiguration(liveObject, config, schema.apply);
  if (!merged.ok) {
    const ns = typeof configMeta['namespace'] === 'string' ? configMeta['namespace'] : req.ctx.namespace;
    const name = typeof configMeta['name'] === 'string' ? configMeta['name'] : req.name;
    // a plain error in kube: 500 with its text and no reason
    throw errors.withCode(500, '', `failed to create typed ${merged.object} object (${ns}/${name}; ${gvkString(want.apiVersion, want.kind)}): ${merged.error}`);
  }
  const outcome = recordApply({
    live: live ? liveObject : undefined,
    merged: merged.object,
    config,
    entries,
    manager: req.manager,
    apiVersion: want.apiVersion,
    force: req.force,
    now: req.now(),
    schema: schema.ownership,
  });
  if (!outcome.ok) throw outcome.error;
  const object = outcome.object as KubeObject;
  const meta = metaOf(object) as JsonMap;
  if (outcome.entries.length > 0) meta['managedFields'] = encodeManagedFields(outcome.entries);
  else delete meta['managedFields'];
  object.metadata = meta;
  return object;
}

const isNotFoundOf = (err: unknown, info: ResourceInfo, name: string): boolean =>
  err instanceof StatusError && err.code === 404 && err.status.details?.name === name && err.status.details?.kind === info.resource;

/** Applies the configuration: an update of the live object, or its creation when there is none (kube's forceAllowCreate). */
export async function serverSideApply(req: ApplyRequest): Promise<ApplyResult> {
  const schema = await resourceApplySchema(req.info);
  for (let attempt = 0; ; attempt++) {
    try {
      const object = await req.store.update(req.ctx, req.name, '', (current) => applyTo(req, schema, current), req.updateOptions, true);
      return { object, created: false };
    } catch (err) {
      if (!isNotFoundOf(err, req.info, req.name)) throw err;
    }
    const obj = applyTo(req, schema, undefined);
    const meta = metaOf(obj);
    // checkName of kube's patcher: the configuration names the object on the URL
    if (meta.name !== undefined && meta.name !== req.name) throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${req.name})`);
    meta.name = req.name;
    try {
      return { object: await req.store.create(req.ctx, obj, req.createOptions, { bodyIsOwned: true }), created: true };
    } catch (err) {
      // created by someone else meanwhile: apply to it
      if (!(err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists') || attempt > 0) throw err;
    }
  }
}
