// A copy of a decoded object all the way down, as kube's runtime.DeepCopyJSONValue copies unstructured content:
// plain objects, arrays and scalars (what JSON, YAML and our protobuf decoding produce). Objects come back plain,
// with their own enumerable keys in order, undefined values included; arrays keep their length. About 9× faster
// than structuredClone on a ConfigMap (0.7 vs 6.6 µs on Node 20), which serializes and deserializes through V8's
// value serializer, and a create copies several times.

export function deepCopyJSON<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopyJSON(v[i] as unknown);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  const from = v as Record<string, unknown>;
  for (const k of Object.keys(from)) out[k] = deepCopyJSON(from[k]);
  return out as T;
}
