// matchPolicy Equivalent for policies: a policy whose rules select another version of the request's resource sees
// the request's objects converted to that version (kube's admission.VersionedAttributes, built per matched kind by
// the policy dispatchers' versionedAttributeAccessor). Only custom resources have converters here; for anything
// else, and for the request's own kind, the objects are the request's.
//
// Where this differs from kube: kube's MutatingAdmissionPolicy dispatcher converts the request's objects once per
// matched kind before any mutation and writes back only the last invocation's object, so with policies matched
// through two different versions one's mutations are lost. Here the object is carried from invocation to
// invocation (converted when the next one matched another version), as kube's mutating webhook dispatcher does.
import { errors } from '../../../api/errors.js';
import type { GroupVersionKind, KubeObject } from '../../../api/types.js';
import type { AdmissionAttributes } from '../../attributes.js';
import type { ObjectConverter } from '../../webhook/dispatch.js';

/** The request's objects in one version. */
export interface VersionedObjects {
  readonly kind: GroupVersionKind;
  readonly object: KubeObject | undefined;
  readonly oldObject: KubeObject | undefined;
  /** converted from the request's version (false: the request's own objects) */
  readonly converted: boolean;
}

export type VersionedObjectsResult = { ok: true; objects: VersionedObjects } | { ok: false; error: string };

const sameKind = (a: GroupVersionKind, b: GroupVersionKind): boolean => a.group === b.group && a.version === b.version && a.kind === b.kind;
const kindKey = (k: GroupVersionKind): string => `${k.group}/${k.version}/${k.kind}`;
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * versionedAttributeAccessor.VersionedAttribute: the request's objects (as they were when the dispatch started)
 * converted to `kind`, once per kind. A failed conversion is a value: the dispatchers turn it into the policy's
 * configuration error, subject to its failurePolicy.
 */
export class VersionedObjectsByKind {
  private readonly byKind = new Map<string, Promise<VersionedObjectsResult>>();
  private readonly own: VersionedObjects;
  private readonly ownResult: VersionedObjectsResult;

  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly convert: ObjectConverter | undefined,
  ) {
    this.own = Object.freeze({ kind: attrs.kind, object: attrs.object, oldObject: attrs.oldObject, converted: false });
    this.ownResult = Object.freeze({ ok: true, objects: this.own });
  }

  /** whether objects of `kind` are converted ones (not the request's own) */
  converts(kind: GroupVersionKind): boolean {
    return this.convert !== undefined && !sameKind(kind, this.attrs.kind);
  }

  /** The objects in `kind`: the request's own synchronously, converted ones once their conversion answered. */
  objectsFor(kind: GroupVersionKind): VersionedObjectsResult | Promise<VersionedObjectsResult> {
    const convert = this.convert;
    if (!convert || !this.converts(kind)) return this.ownResult;
    const key = kindKey(kind);
    let got = this.byKind.get(key);
    if (!got) {
      const { object, oldObject } = this.own;
      got = Promise.all([object && convert(object, kind), oldObject && convert(oldObject, kind)]).then(
        ([o, old]): VersionedObjectsResult => ({ ok: true, objects: Object.freeze({ kind, object: o, oldObject: old, converted: true }) }),
        (err: unknown): VersionedObjectsResult => ({ ok: false, error: messageOf(err) }),
      );
      this.byKind.set(key, got);
    }
    return got;
  }
}

/**
 * The MutatingAdmissionPolicy dispatcher's objects: each invocation sees the object as the previous ones left it,
 * in the version it matched; a mutated object held in another version is converted back into the request's
 * attributes when the dispatch ends (kube's write-back of a Dirty VersionedAttributes) or when an invocation for
 * the request's own version comes next.
 */
export class MutatingVersionedObjects {
  /** the objects while they are held in a version other than the request's */
  private held: { kind: GroupVersionKind; object: KubeObject | undefined; oldObject: KubeObject | undefined; dirty: boolean } | undefined;
  /** the request's object was mutated: the conversions of the original object are stale */
  private mutated = false;

  constructor(
    private readonly attrs: AdmissionAttributes,
    private readonly original: VersionedObjectsByKind,
    private readonly convert: ObjectConverter | undefined,
  ) {}

  /**
   * The objects the next invocation, matched as `kind`, sees. Throws kube's internal error when a conversion fails
   * here (the matched kinds were converted once before any invocation ran, so only a mutated object can fail).
   */
  async objectsFor(kind: GroupVersionKind): Promise<VersionedObjects> {
    const convert = this.convert;
    if (!convert || !this.original.converts(kind)) {
      await this.writeBack();
      return { kind: this.attrs.kind, object: this.attrs.object, oldObject: this.attrs.oldObject, converted: false };
    }
    const held = this.held;
    if (held && sameKind(held.kind, kind)) return { kind, object: held.object, oldObject: held.oldObject, converted: true };
    const fromOriginal = await this.original.objectsFor(kind);
    if (!fromOriginal.ok) throw errors.internal(new Error(fromOriginal.error));
    let object = fromOriginal.objects.object;
    let dirty = false;
    if (held?.dirty || this.mutated) {
      // the old object never changes; the object does, so it is converted from its current version
      const current = held?.dirty ? held.object : this.attrs.object;
      try {
        object = current && (await convert(current, kind));
      } catch (err) {
        throw errors.internal(err);
      }
      dirty = held?.dirty ?? false;
    }
    this.held = { kind, object, oldObject: fromOriginal.objects.oldObject, dirty };
    return { kind, object, oldObject: fromOriginal.objects.oldObject, converted: true };
  }

  /** An invocation's mutated object, in the kind the last objectsFor asked for. */
  setObject(object: KubeObject): void {
    if (this.held) {
      this.held.object = object;
      this.held.dirty = true;
    } else {
      this.attrs.object = object;
      this.mutated = true;
    }
  }

  /** Converts a mutated object held in another version back into the request's; kube: "failed to convert object". */
  async writeBack(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (!held || !held.dirty || !held.object || !this.convert) return;
    try {
      this.attrs.object = await this.convert(held.object, this.attrs.kind);
    } catch (err) {
      throw errors.internal(new Error(`failed to convert object: ${messageOf(err)}`));
    }
    this.mutated = true;
  }
}
