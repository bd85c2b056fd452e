import { etcdClientMaxSendBytes, etcdMaxRequestBytes, etcdTxnRequestBytes, etcdWriteSizeError } from './stored-object.js';

describe("the write size limits both backends apply (etcd's --max-request-bytes, kube's client send limit)", () => {
  const key = '/registry/configmaps/default/x';

  it('accepts a value well under 1.5 MiB', () => {
    expect(etcdWriteSizeError(key, 1024 * 1024, undefined)).toBeUndefined();
  });

  it("refuses a txn over 1.5 MiB with etcd's text, and one over 2 MiB with grpc-go's client-side text", () => {
    expect(etcdWriteSizeError(key, etcdMaxRequestBytes, undefined)).toBe('etcdserver: request is too large');
    const huge = 3 * 1024 * 1024;
    expect(etcdWriteSizeError(key, huge, 7)).toBe(
      `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${etcdTxnRequestBytes(key, huge, 7)} vs. ${etcdClientMaxSendBytes})`,
    );
  });

  it('sizes the txn as protobuf does: an update carries a revision compare and an Else range', () => {
    const k = Buffer.byteLength(key);
    // create: compare (2 + 1+1+k + 2) framed, success op (put framed twice)
    const put = 1 + 1 + k + 1 + 1 + 10;
    expect(etcdTxnRequestBytes(key, 10, undefined)).toBe(1 + 1 + (2 + 1 + 1 + k + 2) + (1 + 1 + (1 + 1 + put)));
    expect(etcdTxnRequestBytes(key, 10, 300)).toBe(1 + 1 + (2 + 1 + 1 + k + 3) + (1 + 1 + (1 + 1 + put)) + (1 + 1 + (1 + 1 + (1 + 1 + k))));
  });
});
