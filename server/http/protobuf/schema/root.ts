// The resolved protobufjs Root holding every descriptor of the subset, and the kinds it can decode.
import protobuf from 'protobufjs';
import type { Field, IType, Namespace, ReflectionObject, Type } from 'protobufjs';
import {
  intstrPackage,
  intstrTypes,
  metaV1Package,
  metaV1Types,
  resourcePackage,
  resourceTypes,
  runtimePackage,
  runtimeTypes,
} from './apimachinery.js';
import { appsV1Package, appsV1Types } from './apps-v1.js';
import { coreV1Package, coreV1Types } from './core-v1.js';
import { goJSONOption, type GoJSON } from './descriptor.js';

/** The kinds whose protobuf bodies this server decodes, with their message. Everything else must be sent as JSON. */
export const protobufKinds: ReadonlyArray<Readonly<{ apiVersion: string; kind: string; message: string }>> = Object.freeze(
  [
    { apiVersion: 'v1', kind: 'ConfigMap', message: `${coreV1Package}.ConfigMap` },
    { apiVersion: 'v1', kind: 'Namespace', message: `${coreV1Package}.Namespace` },
    { apiVersion: 'v1', kind: 'Pod', message: `${coreV1Package}.Pod` },
    { apiVersion: 'v1', kind: 'Secret', message: `${coreV1Package}.Secret` },
    { apiVersion: 'v1', kind: 'Service', message: `${coreV1Package}.Service` },
    { apiVersion: 'v1', kind: 'ServiceAccount', message: `${coreV1Package}.ServiceAccount` },
    { apiVersion: 'apps/v1', kind: 'Deployment', message: `${appsV1Package}.Deployment` },
  ].map((k) => Object.freeze(k)),
);

/** Scalar proto types the subset uses; the wire decoder handles exactly these. */
export const scalarTypes = new Set(['string', 'bytes', 'bool', 'int32', 'int64']);

const packages: Array<[string, Record<string, IType>]> = [
  [runtimePackage, runtimeTypes],
  [intstrPackage, intstrTypes],
  [resourcePackage, resourceTypes],
  [metaV1Package, metaV1Types],
  [coreV1Package, coreV1Types],
  [appsV1Package, appsV1Types],
];

export function goJSONOf(field: Field): GoJSON {
  return field.options?.[goJSONOption] as GoJSON;
}

function allTypes(ns: Namespace): Type[] {
  const out: Type[] = [];
  for (const child of ns.nestedArray as ReflectionObject[]) {
    if (child instanceof protobuf.Type) out.push(child);
    if (child instanceof protobuf.Namespace) out.push(...allTypes(child));
  }
  return out;
}

/** A descriptor whose GoJSON rule cannot apply to its field is a bug in this file set; fail at load, not per request. */
function checkGoJSONRules(root: protobuf.Root): void {
  const problems: string[] = [];
  for (const type of allTypes(root)) {
    for (const field of type.fieldsArray) {
      const where = `${type.fullName}.${field.name}`;
      const rule = goJSONOf(field);
      const isMessage = field.resolvedType instanceof protobuf.Type;
      if (!isMessage && !field.resolvedType && !scalarTypes.has(field.type)) problems.push(`${where}: unsupported scalar type ${field.type}`);
      if (field.repeated || field.map) {
        if (rule !== 'optional') problems.push(`${where}: repeated and map fields are always omitempty`);
      } else if (isMessage) {
        if (rule === 'optional') problems.push(`${where}: encoding/json never omits a struct; use struct or pointer`);
      } else if (rule === 'struct' || rule === 'inline') {
        problems.push(`${where}: ${rule} applies only to messages`);
      }
    }
  }
  if (problems.length) throw new Error(`kubernetes protobuf schema is inconsistent:\n${problems.join('\n')}`);
}

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const [pkg, types] of packages) root.define(pkg, types);
  root.resolveAll();
  checkGoJSONRules(root);
  for (const { message } of protobufKinds) root.lookupType(message);
  return root;
}

export const kubernetesProtoRoot: protobuf.Root = buildRoot();
