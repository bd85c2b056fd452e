// Strategic merge patch, applied as k8s.io/apimachinery/pkg/util/strategicpatch's StrategicMergeMapPatch
// does it server-side (MergeParallelList and IgnoreUnmatchedNulls on): JSON merge patch, except that lists
// whose field carries patchStrategy=merge merge element by element on their patchMergeKey, and the patch
// may carry directives:
//   $patch: replace | delete       on a map (replace it with the rest of the patch map / delete it);
//                                  on a list element: delete the element with that merge key, or replace
//                                  the whole list with the other patch elements. $patch: merge is an error,
//                                  as in kube ("unknown patch type" on maps, "merging lists cannot yet be
//                                  specified in the patch" in lists).
//   $retainKeys: [k, ...]          clear every key of the original map that is not listed (kubectl apply
//                                  sends it for retainKeys fields such as Deployment spec.strategy and
//                                  pod volumes).
//   $deleteFromPrimitiveList/<f>   remove these values from the primitive merge list <f> (finalizers).
//   $setElementOrder/<f>           the order of list <f> after the merge (kubectl apply sends it for every
//                                  merge list it touches); patch items follow it, server-only items keep
//                                  their relative place.
// null deletes a key; a value the original does not have is taken as is, minus nulls and directives.
// Primitive lists without a merge strategy and lists without a key are replaced whole.
//
// List keys covered (patchStrategy=merge, patchMergeKey in parentheses), per kind; every kind also gets
// ObjectMeta's metadata.ownerReferences (uid) and metadata.finalizers (merged primitive set):
//   Pod                      spec.containers, spec.initContainers, spec.ephemeralContainers (name);
//                            in each container: ports (containerPort), env (name), volumeMounts (mountPath),
//                            volumeDevices (devicePath);
//                            spec.volumes (name, merge+retainKeys), spec.imagePullSecrets (name),
//                            spec.hostAliases (ip), spec.topologySpreadConstraints (topologyKey),
//                            spec.schedulingGates (name), spec.resourceClaims (name, merge+retainKeys);
//                            status.conditions (type), status.podIPs (ip), status.hostIPs (ip),
//                            status.resourceClaimStatuses (name, merge+retainKeys)
//   PodTemplate              template.metadata.*, template.spec.* as in Pod
//   ReplicationController,   spec.template.metadata.*, spec.template.spec.* as in Pod;
//   apps Deployment,         status.conditions (type); Deployment spec.strategy is retainKeys
//   StatefulSet, DaemonSet,
//   ReplicaSet, batch Job
//   batch CronJob            spec.jobTemplate.metadata.*, spec.jobTemplate.spec.template.* as in Pod
//   Service                  spec.ports (port), status.conditions (type)
//   ServiceAccount           secrets (name)
//   Namespace                status.conditions (type)
//   Node                     spec.podCIDRs (primitive set), status.addresses (type), status.conditions (type)
//   PersistentVolumeClaim    status.conditions (type)
//   policy PodDisruptionBudget status.conditions (type)
//   admissionregistration    ValidatingWebhookConfiguration and MutatingWebhookConfiguration webhooks (name),
//                            and in each webhook matchConditions (name);
//                            ValidatingAdmissionPolicy and MutatingAdmissionPolicy spec.matchConditions (name),
//                            spec.variables (name)
//   ObjectMeta-only kinds    ConfigMap, Secret, Event, Endpoints, LimitRange, ResourceQuota, PersistentVolume,
//                            autoscaling Scale, the admission policy bindings, coordination Lease,
//                            events.k8s.io Event, rbac Role/ClusterRole/RoleBinding/ClusterRoleBinding,
//                            networking NetworkPolicy/Ingress/IngressClass, storage StorageClass,
//                            scheduling PriorityClass, apps ControllerRevision
// Everything else in those kinds (tolerations, containerStatuses, rules, validations, ...) is atomic, as the
// Go types have no patch tags on them. Kinds not listed reject strategic merge patch with kube's 415.
import { goFormatV, goTypeName } from './go-json.js';
import { lookupPatchMeta, type StructSchema } from './smp-schema.js';

type JsonMap = Record<string, unknown>;

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListDirectivePrefix = '$deleteFromPrimitiveList';
const setElementOrderDirectivePrefix = '$setElementOrder';

/**
 * How kube-apiserver's interpretStrategicMergePatchError classifies a failure: BadRequest (400) for a
 * malformed patch, Invalid (422) for lists of lists and retainKeys mismatches, Internal (500, with no
 * reason) for everything else, as errors that are not a Status end up.
 */
export type SmpErrorClass = 'BadRequest' | 'Invalid' | 'Internal';

export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly errorClass: SmpErrorClass,
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
  }
}

// mergepatch's sentinel errors
const errBadPatchFormatForPrimitiveList = () => new StrategicMergePatchError('invalid patch format of primitive list', 'BadRequest');
const errBadPatchFormatForRetainKeys = () => new StrategicMergePatchError('invalid patch format of retainKeys', 'BadRequest');
const errBadPatchFormatForSetElementOrderList = () => new StrategicMergePatchError('invalid patch format of setElementOrder list', 'BadRequest');
const errNoListOfLists = () => new StrategicMergePatchError('lists of lists are not supported', 'Invalid');
const internal = (message: string) => new StrategicMergePatchError(message, 'Internal');
const errNoMergeKey = (m: JsonMap, k: string) => internal(`map: ${goFormatV(m)} does not contain declared merge key: ${k}`);
const errBadArgType = (expected: string, actual: unknown) => internal(`expected a ${expected}, but received a ${goTypeName(actual)}`);
// fmt's %s of an interface value: strings print bare, anything else as %!s(type=value).
const goS = (v: unknown) => (typeof v === 'string' ? v : `%!s(${goTypeName(v)}=${goFormatV(v)})`);
const errBadPatchType = (t: unknown, m: JsonMap) => internal(`unknown patch type: ${goS(t)} in map: ${goFormatV(m)}`);

const MAP_TYPE = 'map[string]interface {}';
const SLICE_TYPE = '[]interface {}';

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (m: JsonMap, k: string): boolean => Object.prototype.hasOwnProperty.call(m, k);
// A patch key is data: "__proto__" must become a property, not a prototype.
function setKey(m: JsonMap, k: string, v: unknown): void {
  Object.defineProperty(m, k, { value: v, writable: true, enumerable: true, configurable: true });
}

// reflect.TypeOf equality over decoded JSON (PreserveInts: whole numbers are int64, the rest float64).
type GoType = 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil';
function goType(v: unknown): GoType {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'object':
      return 'map';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'nil';
  }
}

// extractRetainKeysPatchStrategy: "retainKeys" combines with at most one other strategy.
function patchStrategyOf(strategy: string | undefined): string {
  const strategies = strategy ? strategy.split(',') : [];
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === 'retainKeys' ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === 'retainKeys') return strategies[1]!;
      if (strategies[1] === 'retainKeys') return strategies[0]!;
      throw internal(`unexpected patch strategy: ${goFormatV(strategies)}`);
    default:
      throw internal(`unexpected patch strategy: ${goFormatV(strategies)}`);
  }
}

const isDirectiveKey = (k: string): boolean =>
  k === directiveMarker || k === retainKeysDirective || k.startsWith(`${deleteFromPrimitiveListDirectivePrefix}/`) || k.startsWith(`${setElementOrderDirectivePrefix}/`);

// discardNullValuesFromPatch + removeDirectives: what a patch value looks like once kube has decoded it into
// the typed object, for values taken from the patch as they are. Maps with $patch are dropped whole, and
// directive keys go (the typed decoding drops them as unknown fields).
function cleanValue(v: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const c = cleanValue(item);
      if (c.keep) out.push(c.value);
    }
    return { value: out, keep: true };
  }
  if (isMap(v)) {
    if (has(v, directiveMarker)) return { value: null, keep: false };
    const out: JsonMap = {};
    for (const [k, item] of Object.entries(v)) {
      if (item === null || isDirectiveKey(k)) continue;
      const c = cleanValue(item);
      if (c.keep) setKey(out, k, c.value);
    }
    return { value: out, keep: true };
  }
  return { value: v, keep: true };
}

function setCleaned(target: JsonMap, key: string, v: unknown): void {
  const c = cleanValue(v);
  if (c.keep) setKey(target, key, c.value);
  else delete target[key];
}

// extractKey: "<prefix>/<field>"
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === deleteFromPrimitiveListDirectivePrefix) throw errBadPatchFormatForPrimitiveList();
    if (prefix === setElementOrderDirectivePrefix) throw errBadPatchFormatForSetElementOrderList();
    throw internal(`fail to find unknown prefix ${JSON.stringify(prefix)} in ${s}`);
  }
  return s.slice(slash + 1);
}

// sliceElementType: all elements of all slices share one type, and none is a list.
function sliceElementType(...slices: unknown[][]): GoType {
  let prev: GoType | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goType(v);
      if (prev === undefined) {
        prev = t;
        if (t === 'slice') throw errNoListOfLists();
      } else if (prev !== t) {
        throw internal(`list element types are not identical: ${goFormatV(slices)}`);
      }
    }
  }
  if (prev === undefined) throw internal('no elements in any of the given slices');
  return prev;
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isMap(left)) throw errBadArgType(MAP_TYPE, left);
  if (!isMap(right)) throw errBadArgType(MAP_TYPE, right);
  if (!has(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!has(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function findMapInSlice(list: unknown[], key: string, value: unknown): { map: JsonMap; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    // findMapInSliceBasedOnKeyValue (strategicpatch/patch.go): no trailing period since kube 1.9
    if (!isMap(v)) throw internal(`value for key ${i} is not a map`);
    if (has(v, key) && v[key] === value) return { map: v, index: i };
  }
  return undefined;
}

function extractToDeleteItems(list: unknown[]): { nonDelete: unknown[]; toDelete: unknown[] } {
  const nonDelete: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw errBadArgType(MAP_TYPE, v);
    if (has(v, directiveMarker) && v[directiveMarker] === deleteDirective) toDelete.push(v);
    else nonDelete.push(v);
  }
  return { nonDelete, toDelete };
}

// index: the position of an item in a list, by merge key value for maps.
function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: GoType): number {
  const val = (x: unknown) => (kind === 'map' ? (isMap(x) ? x[mergeKey] : undefined) : x);
  const want = val(item);
  return list.findIndex((x) => val(x) === want);
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isMap(item)) throw errBadArgType(MAP_TYPE, item);
      if (!has(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

// normalizeSliceOrder: a stable sort by position in `order`; $patch: delete items go last.
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: GoType): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    ({ nonDelete: items, toDelete } = extractToDeleteItems(toSort));
  }
  const positioned = items.map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey, kind) }));
  positioned.sort((a, b) => {
    // items missing from `order` keep their relative place after the ordered ones
    if (a.at >= 0 && b.at >= 0) return a.at - b.at || a.i - b.i;
    if (a.at >= 0) return -1;
    if (b.at >= 0) return 1;
    return a.i - b.i;
  });
  return [...positioned.map((p) => p.item), ...toDelete];
}

// mergeSortedSlice: interleave server-only items (left) into the patch items (right) by live order.
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoType): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

// normalizeElementOrder: patch items in patch order, server-only items in live order, interleaved.
function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: GoType): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function partitionPrimitives(list: unknown[], partitionBy: unknown[]): { patch: unknown[]; serverOnly: unknown[] } {
  const inPatch = new Set(partitionBy);
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (inPatch.has(v) ? patch : serverOnly).push(v);
  return { patch, serverOnly };
}

function partitionMaps(list: unknown[], partitionBy: unknown[], mergeKey: string): { patch: unknown[]; serverOnly: unknown[] } {
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw errBadArgType(MAP_TYPE, v);
    if (!has(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapInSlice(partitionBy, mergeKey, v[mergeKey]) ? patch : serverOnly).push(v);
  }
  return { patch, serverOnly };
}

// deduplicateScalars; the order is normalized afterwards.
function deduplicateScalars(list: unknown[]): unknown[] {
  return [...new Set(list)];
}

function validatePatchWithSetOrderList(patchList: unknown[], setOrderList: unknown[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey !== '' ? extractToDeleteItems(patchList).nonDelete : patchList;
  let pi = 0;
  let si = 0;
  while (pi < nonDelete.length && si < setOrderList.length) {
    const item = nonDelete[pi];
    if (isMap(item) && has(item, directiveMarker)) {
      pi++;
      continue;
    }
    if (mergeKeyValueEqual(item, setOrderList[si], mergeKey)) pi++;
    si++;
  }
  if (pi < nonDelete.length && si >= setOrderList.length) {
    throw internal(`the order in patch list:\n${goFormatV(patchList)}\n doesn't match ${setElementOrderDirectivePrefix} list:\n${goFormatV(setOrderList)}`);
  }
}

function applyRetainKeysDirective(original: JsonMap, patch: JsonMap): void {
  if (!has(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw errBadPatchFormatForRetainKeys();
  const keep = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListDirectivePrefix) || k.startsWith(setElementOrderDirectivePrefix)) continue;
    // every key the patch sets must be retained
    if (!keep.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

// mergePatchIntoOriginal: each $setElementOrder list, merged with its patch list and ordered by it.
function mergePatchIntoOriginal(original: JsonMap, patch: JsonMap, schema: StructSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderDirectivePrefix)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) throw errBadArgType(SLICE_TYPE, setOrder);
    const originalKey = extractKey(key, setElementOrderDirectivePrefix);
    const foundOriginal = has(original, originalKey);
    const foundPatch = has(patch, originalKey);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      const v = original[originalKey];
      if (!Array.isArray(v)) throw errBadArgType(SLICE_TYPE, v);
      originalList = v;
    }
    if (foundPatch) {
      const v = patch[originalKey];
      if (!Array.isArray(v)) throw errBadArgType(SLICE_TYPE, v);
      patchList = v;
    }
    const { meta, schema: sub } = lookupPatchMeta(schema, originalKey);
    const strategy = patchStrategyOf(meta.strategy);
    const mergeKey = meta.mergeKey ?? '';
    validatePatchWithSetOrderList(patchList, setOrder, mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = cleanValue(patchList).value as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, sub, strategy, mergeKey, false);
    else continue;

    // An atomic list of objects has nothing to order by (kube would fail hashing the maps); leave it merged.
    if (mergeKey === '' && merged.some((v) => isMap(v) || Array.isArray(v))) {
      setKey(original, originalKey, merged);
      delete patch[originalKey];
      continue;
    }
    const parts = mergeKey === '' ? partitionPrimitives(merged, setOrder) : partitionMaps(merged, setOrder, mergeKey);
    const kind = sliceElementType(originalList, patchList);
    setKey(original, originalKey, normalizeElementOrder(parts.patch, parts.serverOnly, setOrder, originalList, mergeKey, kind));
    delete patch[originalKey];
  }
}

// handleDirectiveInMergeMap: $patch on a map replaces it or deletes it.
function handleDirectiveInMergeMap(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return cleanValue(patch).value as JsonMap;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): { original: unknown[]; patch: unknown[] } {
  const withoutSpecial: unknown[] = [];
  let replace = false;
  let current = original;
  for (const v of patch) {
    const typed = v as JsonMap;
    if (!has(typed, directiveMarker)) {
      withoutSpecial.push(v);
      continue;
    }
    const patchType = typed[directiveMarker];
    switch (patchType) {
      case deleteDirective:
        if (!has(typed, mergeKey)) throw errNoMergeKey(typed, mergeKey);
        {
          const matches = (item: unknown): boolean => isMap(item) && has(item, mergeKey) && item[mergeKey] === typed[mergeKey];
          // deleteMatchingEntries rescans from the start after each removal, so it fails on the first non-map at its
          // index once the matches before it are gone (findMapInSliceBasedOnKeyValue, strategicpatch/patch.go)
          const firstNonMap = current.findIndex((item) => !isMap(item));
          if (firstNonMap >= 0) throw internal(`value for key ${firstNonMap - current.slice(0, firstNonMap).filter(matches).length} is not a map`);
          current = current.filter((item) => !matches(item));
        }
        break;
      case replaceDirective:
        replace = true;
        break;
      case mergeDirective:
        throw internal('merging lists cannot yet be specified in the patch');
      default:
        throw errBadPatchType(patchType, typed);
    }
  }
  if (replace) return { original: withoutSpecial.map((v) => cleanValue(v).value), patch: [] };
  return { original: current, patch: withoutSpecial };
}

function mergeSlice(original: unknown[], patch: unknown[], schema: StructSchema, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: unknown[];
  let orig = original;
  let pat = patch;
  if (kind !== 'map') {
    if (isDeleteList) {
      const toDelete = new Set(patch);
      return original.filter((v) => !toDelete.has(v));
    }
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw internal('cannot merge lists without merge key for type struct');
    ({ original: orig, patch: pat } = mergeSliceWithSpecialElements(original, patch, mergeKey));
    merged = [...orig];
    for (const v of pat) {
      const typed = v as JsonMap;
      if (!has(typed, mergeKey)) throw errNoMergeKey(typed, mergeKey);
      const found = findMapInSlice(merged, mergeKey, typed[mergeKey]);
      if (found) merged[found.index] = mergeMap(found.map, typed, schema);
      else {
        const c = cleanValue(v);
        if (c.keep) merged.push(c.value);
      }
    }
  }
  const parts = mergeKey === '' ? partitionPrimitives(merged, pat) : partitionMaps(merged, pat, mergeKey);
  return normalizeElementOrder(parts.patch, parts.serverOnly, pat, orig, mergeKey, kind);
}

function mergeSliceHandler(original: unknown[], patch: unknown[], schema: StructSchema, strategy: string, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (strategy === mergeDirective) return mergeSlice(original, patch, schema, mergeKey, isDeleteList);
  return cleanValue(patch).value as unknown[];
}

function mergeMap(original: JsonMap | undefined, patch: JsonMap, schema: StructSchema): JsonMap {
  if (has(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);
  const orig = original ?? {};
  applyRetainKeysDirective(orig, patch);
  mergePatchIntoOriginal(orig, patch, schema);

  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey];
    let k = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(deleteFromPrimitiveListDirectivePrefix)) {
      k = extractKey(rawKey, deleteFromPrimitiveListDirectivePrefix);
      isDeleteList = true;
    }
    // null deletes; with IgnoreUnmatchedNulls a null for a key the original lacks is dropped
    if (patchV === null) {
      delete orig[k];
      continue;
    }
    if (!has(orig, k) || goType(orig[k]) !== goType(patchV)) {
      if (!isDeleteList) setCleaned(orig, k, patchV);
      continue;
    }
    const { meta, schema: sub } = lookupPatchMeta(schema, k);
    const strategy = patchStrategyOf(meta.strategy);
    if (isMap(patchV)) {
      setKey(orig, k, strategy === replaceDirective ? (cleanValue(patchV).value as JsonMap) : mergeMap(orig[k] as JsonMap, patchV, sub));
    } else if (Array.isArray(patchV)) {
      setKey(orig, k, mergeSliceHandler(orig[k] as unknown[], patchV, sub, strategy, meta.mergeKey ?? '', isDeleteList));
    } else {
      setCleaned(orig, k, patchV);
    }
  }
  return orig;
}

/**
 * Applies a decoded strategic merge patch to a decoded object with the kind's patch metadata. Both maps
 * are consumed (mutated); the result may share structure with them.
 * @throws StrategicMergePatchError, classified the way kube-apiserver maps it to a Status
 */
export function strategicMergePatch(original: JsonMap, patch: JsonMap | null, schema: StructSchema): JsonMap {
  if (patch === null) return original;
  return mergeMap(original, patch, schema);
}
