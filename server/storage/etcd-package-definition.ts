// The gRPC package definition of etcd's v3 API, from protos compiled at build time. The etcd3 package builds it at
// load with @grpc/proto-loader's loadSync: parsing rpc.proto, resolving every type and encoding descriptor protos
// for reflection costs ≈ 40 ms of every etcd-backed start. The bundle (scripts/esbuild-etcd-protos.mjs) compiles
// the protos to protobufjs JSON once and hands etcd3 this definition instead. It carries what a grpc-js client
// reads (path, streaming, serializers, originalName, options) with proto-loader's serializers, and leaves out the
// requestType/responseType descriptors, which only a reflection server reads.
import protobuf from 'protobufjs/light.js';
import type { IConversionOptions, INamespace, Root, Service, Type } from 'protobufjs';

/** One RPC as proto-loader describes it, minus the descriptors. */
export interface CompiledMethod {
  name: string;
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestType: string;
  responseType: string;
  originalName: string;
  options: Record<string, unknown>;
}

/**
 * What the build embeds, per service: its methods, and as protobufjs JSON (field names as in the .proto) only the
 * messages and enums those methods reach. Building a root of all 101 etcd types cost ≈ 10 ms of every etcd-backed
 * start; KV's and Watch's, the only services the storage calls, ≈ 2 ms together.
 */
export interface CompiledProtos {
  services: Record<string, { json: INamespace; methods: CompiledMethod[] }>;
}

/** The options etcd3 passes to loadSync; `keepCase` is fixed at compile time, the rest shape decoding. */
export interface LoaderOptions extends IConversionOptions {
  keepCase?: boolean;
}

/** A grpc-js ServiceDefinition's method, as makeClientConstructor reads it. */
export interface MethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize(value: object): Buffer;
  requestDeserialize(bytes: Buffer): object;
  responseSerialize(value: object): Buffer;
  responseDeserialize(bytes: Buffer): object;
  originalName: string;
  options: Record<string, unknown>;
}

export type PackageDefinition = Record<string, Record<string, MethodDefinition>>;

function servicesOf(ns: { nestedArray: ReadonlyArray<unknown> }, out: Service[]): Service[] {
  for (const child of ns.nestedArray) {
    if (child instanceof protobuf.Service) out.push(child);
    else if (child instanceof protobuf.Namespace) servicesOf(child, out);
  }
  return out;
}

const fullName = (o: { fullName: string }): string => o.fullName.replace(/^\./, '');

/**
 * Build time: the root proto-loader loaded (with keepCase) to embeddable data. camelCase is proto-loader's own
 * (lodash.camelcase), passed in so that originalName is computed exactly as it computes it.
 */
export function compileEtcdProtos(root: Root, methodOptions: (service: string, method: string) => Record<string, unknown>, camelCase: (s: string) => string): CompiledProtos {
  root.resolveAll();
  const all = root.toJSON();
  const services: CompiledProtos['services'] = {};
  for (const service of servicesOf(root, [])) {
    const name = fullName(service);
    const reached = new Set<string>();
    for (const m of service.methodsArray) {
      reach(m.resolvedRequestType!, reached);
      reach(m.resolvedResponseType!, reached);
    }
    services[name] = {
      json: onlyTypes(all, reached),
      methods: service.methodsArray.map((m) => ({
        name: m.name,
        path: `/${name}/${m.name}`,
        requestStream: !!m.requestStream,
        responseStream: !!m.responseStream,
        requestType: fullName(m.resolvedRequestType!),
        responseType: fullName(m.resolvedResponseType!),
        originalName: camelCase(m.name),
        options: methodOptions(name, m.name),
      })),
    };
  }
  return { services };
}

/** The full names of a message and of every message and enum its fields reach. */
function reach(type: Type | protobuf.Enum, out: Set<string>): void {
  const name = fullName(type);
  if (out.has(name)) return;
  out.add(name);
  if (type instanceof protobuf.Type) for (const f of type.fieldsArray) if (f.resolvedType) reach(f.resolvedType, out);
}

/**
 * A copy of a root's JSON with only the named messages and enums (each whole, nested declarations included), the
 * namespaces leading to them, and no services.
 */
function onlyTypes(ns: INamespace, keep: ReadonlySet<string>, prefix = ''): INamespace {
  const nested: NonNullable<INamespace['nested']> = {};
  for (const [key, child] of Object.entries(ns.nested ?? {})) {
    const name = prefix ? `${prefix}.${key}` : key;
    const isDeclaration = 'fields' in child || 'values' in child;
    if ('methods' in child) continue;
    if (isDeclaration) {
      if (keep.has(name) || [...keep].some((k) => k.startsWith(`${name}.`))) nested[key] = child;
      continue;
    }
    const inner = onlyTypes(child as INamespace, keep, name);
    if (Object.keys(inner.nested ?? {}).length > 0) nested[key] = { ...child, nested: inner.nested };
  }
  return { ...ns, nested };
}

/**
 * Run time: the package definition, with proto-loader's serializers. Each service's types are built on its first
 * message, so a start pays only for the services it calls.
 */
export function etcdPackageDefinition(compiled: CompiledProtos, options: LoaderOptions): PackageDefinition {
  if (options.keepCase !== true) throw new Error('etcd protos were compiled with keepCase: true; the loader asked for other field names');
  const definition: PackageDefinition = {};
  for (const [service, { json, methods }] of Object.entries(compiled.services)) {
    // the service's types, built on its first message: a start pays only for the services it calls
    let root: Root | undefined;
    const typeNamed = (name: string): (() => Type) => {
      let type: Type | undefined;
      return () => {
        // resolveAll once, as proto-loader does before building any serializer (it also settles field features)
        if (!root) {
          root = protobuf.Root.fromJSON(json);
          root.resolveAll();
        }
        return (type ??= root.lookupType(name));
      };
    };
    const def: Record<string, MethodDefinition> = {};
    for (const m of methods) {
      const request = typeNamed(m.requestType);
      const response = typeNamed(m.responseType);
      def[m.name] = {
        path: m.path,
        requestStream: m.requestStream,
        responseStream: m.responseStream,
        requestSerialize: serializer(request),
        requestDeserialize: deserializer(request, options),
        responseSerialize: serializer(response),
        responseDeserialize: deserializer(response, options),
        originalName: m.originalName,
        options: m.options,
      };
    }
    definition[service] = def;
  }
  return definition;
}

function serializer(type: () => Type) {
  return (value: object): Buffer => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type().name} structure, got array instead`);
    const t = type();
    // proto-loader returns the writer's Uint8Array (a Buffer under node); grpc-js treats it as one
    return t.encode(t.fromObject(value)).finish() as Buffer;
  };
}

function deserializer(type: () => Type, options: LoaderOptions) {
  return (bytes: Buffer): object => {
    const t = type();
    return t.toObject(t.decode(bytes), options);
  };
}
