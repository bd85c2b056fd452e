import { createRequire } from 'node:module';
import path from 'node:path';
import { compileEtcdProtos, etcdPackageDefinition, type MethodDefinition } from './etcd-package-definition.js';

// The bundle hands etcd3 this definition instead of proto-loader's: it must encode and decode exactly as that does.
const require = createRequire(path.join(process.cwd(), 'package.json'));
const loaderRequire = createRequire(require.resolve('@grpc/proto-loader'));
const { loadSync } = loaderRequire('@grpc/proto-loader') as typeof import('@grpc/proto-loader');
const { loadProtosWithOptionsSync } = loaderRequire('./util.js') as { loadProtosWithOptionsSync: (file: string, options: object) => import('protobufjs').Root };
const camelCase = loaderRequire('lodash.camelcase') as (s: string) => string;
const protoFile = path.join(path.dirname(require.resolve('etcd3/lib/connection-pool.js')), '..', 'proto', 'rpc.proto');
// etcd3's options (node_modules/etcd3/lib/connection-pool.js)
const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

type ProtoLoaderMethod = MethodDefinition & { requestType: unknown; responseType: unknown };
const reference = loadSync(protoFile, options) as unknown as Record<string, Record<string, ProtoLoaderMethod>>;
const compiled = compileEtcdProtos(loadProtosWithOptionsSync(protoFile, options), (s, m) => reference[s]![m]!.options as Record<string, unknown>, camelCase);
// through JSON, as the bundle embeds it
const ours = etcdPackageDefinition(JSON.parse(JSON.stringify(compiled)), options);

const services = Object.keys(reference).filter((k) => !('format' in reference[k]!));

describe('etcdPackageDefinition', () => {
  it('describes the same services and methods as proto-loader', () => {
    expect(Object.keys(ours).sort()).toEqual([...services].sort());
    for (const s of services) {
      expect(Object.keys(ours[s]!).sort()).toEqual(Object.keys(reference[s]!).sort());
      for (const [name, ref] of Object.entries(reference[s]!)) {
        const m = ours[s]![name]!;
        expect({ path: m.path, requestStream: m.requestStream, responseStream: m.responseStream, originalName: m.originalName, options: m.options }).toEqual({
          path: ref.path,
          requestStream: ref.requestStream,
          responseStream: ref.responseStream,
          originalName: ref.originalName,
          options: ref.options,
        });
      }
    }
  });

  // Messages the storage layer sends and receives: strings and buffers for bytes, int64 as strings, enums, oneofs,
  // nested and repeated messages, defaults.
  const samples: Array<[string, string, 'request' | 'response', object]> = [
    ['etcdserverpb.KV', 'Range', 'request', { key: Buffer.from('/registry/ns/'), range_end: Buffer.from('/registry/ns0'), limit: '500', revision: '12', count_only: true }],
    ['etcdserverpb.KV', 'Range', 'response', { header: { revision: '42', cluster_id: '18446744073709551615', member_id: '7', raft_term: '3' }, kvs: [{ key: Buffer.from('k'), value: Buffer.from('{"a":1}'), mod_revision: '40', create_revision: '2', version: '5' }], more: true, count: '9' }],
    ['etcdserverpb.KV', 'Txn', 'request', {
      compare: [{ key: Buffer.from('k'), target: 'MOD', result: 'EQUAL', mod_revision: '40' }, { key: Buffer.from('k'), target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
      success: [{ request_put: { key: Buffer.from('k'), value: Buffer.from('v') } }],
      failure: [{ request_range: { key: Buffer.from('k') } }, { request_delete_range: { key: Buffer.from('k'), prev_kv: true } }],
    }],
    ['etcdserverpb.KV', 'Txn', 'response', { header: { revision: '43' }, succeeded: false, responses: [{ response_range: { header: { revision: '43' }, kvs: [], count: '0' } }] }],
    ['etcdserverpb.KV', 'Compact', 'request', { revision: '100', physical: true }],
    ['etcdserverpb.Watch', 'Watch', 'request', { create_request: { key: Buffer.from('/registry/'), range_end: Buffer.from('/registry0'), start_revision: '13', prev_kv: true, progress_notify: true } }],
    ['etcdserverpb.Watch', 'Watch', 'request', { progress_request: {} }],
    ['etcdserverpb.Watch', 'Watch', 'response', {
      header: { revision: '50' }, watch_id: '1', created: false, canceled: false, compact_revision: '0', cancel_reason: '',
      events: [{ type: 'DELETE', kv: { key: Buffer.from('k'), mod_revision: '50' }, prev_kv: { key: Buffer.from('k'), value: Buffer.from('v'), mod_revision: '49' } }, { type: 'PUT', kv: { key: Buffer.from('j'), value: Buffer.from('w'), mod_revision: '50', create_revision: '50' } }],
    }],
    ['etcdserverpb.Lease', 'LeaseGrant', 'request', { TTL: '30', ID: '0' }],
    ['etcdserverpb.Maintenance', 'Status', 'response', { header: { revision: '1' }, version: '3.4.23', dbSize: '4096', leader: '1', raftIndex: '7', raftTerm: '2', errors: ['x'] }],
  ];

  it.each(samples)('encodes and decodes %s/%s %s messages byte for byte as proto-loader', (service, method, side, message) => {
    const ref = reference[service]![method]!;
    const m = ours[service]![method]!;
    const [serialize, deserialize, refSerialize, refDeserialize] =
      side === 'request' ? [m.requestSerialize, m.requestDeserialize, ref.requestSerialize, ref.requestDeserialize] : [m.responseSerialize, m.responseDeserialize, ref.responseSerialize, ref.responseDeserialize];
    const bytes = Buffer.from(serialize(message));
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).toEqual(Buffer.from(refSerialize(message)));
    expect(deserialize(bytes)).toEqual(refDeserialize(bytes));
  });

  it('gives every service a root of only the types its methods reach, in which all of them resolve', () => {
    const declarations = (ns: import('protobufjs').INamespace, prefix = ''): string[] =>
      Object.entries(ns.nested ?? {}).flatMap(([k, v]) => {
        const name = prefix ? `${prefix}.${k}` : k;
        const own = 'fields' in v || 'values' in v ? [name] : [];
        return [...own, ...declarations(v as import('protobufjs').INamespace, name)];
      });
    const kv = declarations(compiled.services['etcdserverpb.KV']!.json);
    const watch = declarations(compiled.services['etcdserverpb.Watch']!.json);
    expect(kv).toEqual(expect.arrayContaining(['etcdserverpb.RangeRequest', 'etcdserverpb.TxnResponse', 'etcdserverpb.Compare.CompareTarget', 'mvccpb.KeyValue']));
    expect(kv).not.toContain('etcdserverpb.WatchRequest');
    expect(watch).toEqual(expect.arrayContaining(['etcdserverpb.WatchRequest', 'etcdserverpb.WatchCreateRequest.FilterType', 'mvccpb.Event.EventType']));
    expect(watch).not.toContain('etcdserverpb.RangeRequest');
    expect(JSON.stringify(compiled.services['etcdserverpb.KV']!.json)).not.toContain('"methods"');
    // every request and response type of every method is found in its service's root
    for (const s of services) for (const m of Object.values(ours[s]!)) expect(() => (m.requestDeserialize(Buffer.alloc(0)), m.responseDeserialize(Buffer.alloc(0)))).not.toThrow();
  });

  it('rejects an array as proto-loader does', () => {
    expect(() => ours['etcdserverpb.KV']!.Range!.requestSerialize([] as unknown as object)).toThrow(
      'Failed to serialize message: expected object with RangeRequest structure, got array instead',
    );
  });

  it('refuses loader options that would need other field names', () => {
    expect(() => etcdPackageDefinition(compiled, { ...options, keepCase: false })).toThrow(/keepCase/);
  });
});
