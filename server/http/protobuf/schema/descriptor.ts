// Builders for protobufjs JSON descriptors of the Kubernetes generated.proto subset this server decodes.
//
// The .proto files say nothing about how a field appears in the v1 JSON: every field is proto2 `optional`, and
// gogo-protobuf writes non-pointer fields even when they are zero. What decides the JSON is the Go struct the
// message decodes into (pointer or not, `omitempty` or not, `json:",inline"`), so each field carries that as
// the `goJSON` option, taken from the json tag in k8s.io/api types.go.
import type { IField, IMapField, IType } from 'protobufjs';

/** How Go's encoding/json writes the field of the typed object that kube-apiserver decodes the message into. */
export type GoJSON =
  /** `json:"x,omitempty"` on a non-pointer scalar, slice or map: left out when zero/empty. */
  | 'optional'
  /** `json:"x"` on a non-pointer scalar: always written, as its zero value when absent from the wire. */
  | 'required'
  /** A `*T` field: written exactly when present on the wire, whatever its value (`replicas: 0`, `immutable: false`). */
  | 'pointer'
  /** A non-pointer struct: always written, since encoding/json never omits a struct (`status: {}`). */
  | 'struct'
  /** An embedded struct tagged `json:",inline"`: its fields are written into the parent object. */
  | 'inline';

/** The field option that carries the GoJSON rule. */
export const goJSONOption = 'goJSON';

export type MessageFields = Record<string, IField | IMapField>;

function field(id: number, type: string, goJSON: GoJSON): IField {
  return { id, type, options: { [goJSONOption]: goJSON } };
}

export const optional = (id: number, type: string): IField => field(id, type, 'optional');
export const required = (id: number, type: string): IField => field(id, type, 'required');
export const pointer = (id: number, type: string): IField => field(id, type, 'pointer');
export const struct = (id: number, type: string): IField => field(id, type, 'struct');
export const inline = (id: number, type: string): IField => field(id, type, 'inline');

/** `repeated T`: a Go slice tagged omitempty, left out when empty. */
export const repeated = (id: number, type: string): IField => ({ ...field(id, type, 'optional'), rule: 'repeated' });

/** `map<string, V>`: a Go map tagged omitempty, left out when empty. */
export const map = (id: number, valueType: string): IMapField => ({ ...field(id, valueType, 'optional'), keyType: 'string' });

export const message = (fields: MessageFields): IType => ({ fields });

/** Fully qualified names of the apimachinery types other packages refer to. */
export const apimachinery = {
  ObjectMeta: '.k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  Time: '.k8s.io.apimachinery.pkg.apis.meta.v1.Time',
  MicroTime: '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime',
  LabelSelector: '.k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector',
  Condition: '.k8s.io.apimachinery.pkg.apis.meta.v1.Condition',
  FieldsV1: '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1',
  Quantity: '.k8s.io.apimachinery.pkg.api.resource.Quantity',
  IntOrString: '.k8s.io.apimachinery.pkg.util.intstr.IntOrString',
} as const;
