// The shape of the generated descriptor (scripts/gen-protobuf-descriptor.mjs): kube's generated.proto messages with,
// per field, how Go's encoding/json writes the Go field the message decodes into.
//
// The .proto files say nothing about JSON: every field is proto2 `optional` and gogo-protobuf writes non-pointer
// fields even when zero. What decides the JSON is the Go struct field (pointer or not, `omitempty` or not,
// `json:",inline"`, `json:"-"`), read from the json tags of types.go.

/**
 * How encoding/json writes the Go field:
 * - `o` `json:"x,omitempty"` on a non-pointer: scalars, slices, maps and []byte are left out when zero or empty;
 *   a struct is always written (encoding/json never omits a struct).
 * - `r` `json:"x"` on a non-pointer: always written; a nil slice, map or []byte as null.
 * - `p` a `*T` with omitempty: written exactly when set, whatever its value (`replicas: 0`, `immutable: false`).
 * - `P` a `*T` without omitempty: null when unset.
 * - `i` an embedded struct tagged `json:",inline"`: its fields are written into the parent object.
 * - `x` `json:"-"`: not in the JSON (the raw bytes of RawExtension, JSON and FieldsV1, which have their own JSON form).
 */
export type GoJSONRule = 'o' | 'r' | 'p' | 'P' | 'i' | 'x';

/** [proto name, number, proto type, label ('' | 'r' repeated | 'm' map<string, T>), Go JSON rule, JSON name when not the proto name]. */
export type FieldDescriptor = [string, number, string, '' | 'r' | 'm', GoJSONRule, string?];

export interface KubeTypes {
  /** Messages by full name without the leading dot (k8s.io.api.core.v1.Pod). */
  messages: Record<string, FieldDescriptor[]>;
  /** Messages of Go slice types (`type ExtraValue []string`): `{repeated items = 1}` on the wire, the array in JSON. */
  wrappers: string[];
}

export interface KubeKinds {
  /** apiVersion ("v1", "apps/v1") → kind → message full name, as each group version's register.go registers them. */
  groupVersions: Record<string, Record<string, string>>;
  /** What metav1.AddToGroupVersion adds to every group version (WatchEvent, DeleteOptions, …). */
  everyGroupVersion: Record<string, string>;
  /** metav1's unversioned kinds (Status, …), registered under apiVersion v1 only. */
  unversioned: Record<string, string>;
}
