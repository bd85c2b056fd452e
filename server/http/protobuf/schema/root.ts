// The protobufjs Root of kube's built-in messages, built from the generated descriptor on first use (the first
// protobuf body), never at startup.
import protobuf from 'protobufjs';
import type { Field, IField, IMapField, INamespace, Type } from 'protobufjs';
import type { FieldDescriptor, GoJSONRule } from './descriptor.js';
import { kubeTypes } from './kube-types.generated.js';

const ruleOption = 'goJSON';
const jsonOption = 'json';

let root: protobuf.Root | undefined;
let wrappers: ReadonlySet<string> | undefined;

function toJSONDescriptor(): INamespace {
  const top: INamespace = { nested: {} };
  for (const [full, fields] of Object.entries(kubeTypes.messages)) {
    const dot = full.lastIndexOf('.');
    let ns = top;
    for (const part of full.slice(0, dot).split('.')) {
      ns.nested ??= {};
      ns = (ns.nested[part] ??= { nested: {} }) as INamespace;
    }
    ns.nested ??= {};
    ns.nested[full.slice(dot + 1)] = { fields: Object.fromEntries(fields.map(fieldJSON)) };
  }
  return top;
}

function fieldJSON([name, id, type, label, rule, json]: FieldDescriptor): [string, IField | IMapField] {
  const options = { [ruleOption]: rule, [jsonOption]: json ?? name };
  if (label === 'm') return [name, { id, type, keyType: 'string', options }];
  return [name, label === 'r' ? { id, type, rule: 'repeated', options } : { id, type, options }];
}

/** Every message of the descriptor, resolved. */
export function kubernetesProtoRoot(): protobuf.Root {
  if (!root) {
    const r = protobuf.Root.fromJSON(toJSONDescriptor());
    r.resolveAll();
    wrappers = new Set(kubeTypes.wrappers.map((w) => `.${w}`));
    root = r;
  }
  return root;
}

/** A message by full name ("k8s.io.api.core.v1.Pod"). */
export function lookupMessage(fullName: string): Type {
  return kubernetesProtoRoot().lookupType(fullName);
}

export function goJSONOf(field: Field): GoJSONRule {
  return field.options?.[ruleOption] as GoJSONRule;
}

export function jsonNameOf(field: Field): string {
  return field.options?.[jsonOption] as string;
}

/** Whether the message is a Go slice type (`type Verbs []string`) whose JSON is its items. */
export function isWrapper(type: Type): boolean {
  kubernetesProtoRoot();
  return wrappers!.has(type.fullName);
}
