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

/** What the build embeds: the protos as protobufjs JSON (field names as in the .proto) and every service's methods. */
export interface CompiledProtos {
  json: INamespace;
  services: Record<string, CompiledMethod[]>;
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
  const services: Record<string, CompiledMethod[]> = {};
  for (const service of servicesOf(root, [])) {
    const name = fullName(service);
    services[name] = service.methodsArray.map((m) => ({
      name: m.name,
      path: `/${name}/${m.name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestType: fullName(m.resolvedRequestType!),
      responseType: fullName(m.resolvedResponseType!),
      originalName: camelCase(m.name),
      options: methodOptions(name, m.name),
    }));
  }
  return { json: root.toJSON(), services };
}

/**
 * Run time: the package definition, with proto-loader's serializers. Types resolve on their first message, so a
 * start pays only for the RPCs it makes.
 */
export function etcdPackageDefinition(compiled: CompiledProtos, options: LoaderOptions): PackageDefinition {
  if (options.keepCase !== true) throw new Error('etcd protos were compiled with keepCase: true; the loader asked for other field names');
  let root: Root | undefined;
  const typeNamed = (name: string): (() => Type) => {
    let type: Type | undefined;
    return () => {
      // resolveAll once, as proto-loader does before building any serializer (it also settles field features)
      if (!root) {
        root = protobuf.Root.fromJSON(compiled.json);
        root.resolveAll();
      }
      return (type ??= root.lookupType(name));
    };
  };
  const serializer = (type: () => Type) => (value: object): Buffer => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type().name} structure, got array instead`);
    const t = type();
    // proto-loader returns the writer's Uint8Array (a Buffer under node); grpc-js treats it as one
    return t.encode(t.fromObject(value)).finish() as Buffer;
  };
  const deserializer = (type: () => Type) => (bytes: Buffer): object => {
    const t = type();
    return t.toObject(t.decode(bytes), options);
  };
  const definition: PackageDefinition = {};
  for (const [service, methods] of Object.entries(compiled.services)) {
    const def: Record<string, MethodDefinition> = {};
    for (const m of methods) {
      const request = typeNamed(m.requestType);
      const response = typeNamed(m.responseType);
      def[m.name] = {
        path: m.path,
        requestStream: m.requestStream,
        responseStream: m.responseStream,
        requestSerialize: serializer(request),
        requestDeserialize: deserializer(request),
        responseSerialize: serializer(response),
        responseDeserialize: deserializer(response),
        originalName: m.originalName,
        options: m.options,
      };
    }
    definition[service] = def;
  }
  return definition;
}
