// Content negotiation of response bodies as kube-apiserver does it (apiserver endpoints/handlers/negotiation):
// the Accept header parsed by goautoneg, clauses tried best first, each against the serializers in their order
// (JSON, YAML, protobuf), the first match wins; no Accept means JSON. Cheap and free of protobufjs: it runs for
// every response.

export const jsonMediaType = 'application/json';
export const yamlMediaType = 'application/yaml';
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

interface Clause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** github.com/munnerz/goautoneg ParseAccept: by quality, then specific types before wildcards. */
export function parseAccept(header: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';');
    let mediaRange = (range ?? '').trim();
    if (mediaRange === '*') mediaRange = '*/*';
    const slash = mediaRange.indexOf('/');
    if (slash < 0) continue;
    const clause: Clause = { type: mediaRange.slice(0, slash), subType: mediaRange.slice(slash + 1), q: 1, params: {} };
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim();
      const v = p.slice(eq + 1).trim();
      if (k === 'q') clause.q = Number.parseFloat(v) || 0;
      else clause.params[k] = v;
    }
    clauses.push(clause);
  }
  // Array.prototype.sort is stable, as Go's sort.Sort is on the few clauses an Accept header has (insertion sort)
  return clauses.sort((a, b) => {
    if (a.q !== b.q) return b.q - a.q;
    if ((a.type === '*') !== (b.type === '*')) return a.type === '*' ? 1 : -1;
    if ((a.subType === '*') !== (b.subType === '*')) return a.subType === '*' ? 1 : -1;
    return 0;
  });
}

interface Serializer {
  mediaType: string;
  type: string;
  subType: string;
  /** has a stream serializer (watch): JSON and protobuf do, YAML does not */
  streams: boolean;
}

const serializers: readonly Serializer[] = [
  { mediaType: jsonMediaType, type: 'application', subType: 'json', streams: true },
  { mediaType: yamlMediaType, type: 'application', subType: 'yaml', streams: false },
  { mediaType: protobufMediaType, type: 'application', subType: 'vnd.kubernetes.protobuf', streams: true },
];

export interface NegotiationOptions {
  /**
   * Whether this response may be protobuf. kube's custom resource handlers list protobuf among their serializers
   * (for Status) but restrict object responses to JSON and YAML (RequestScope.StandardSerializers).
   */
  protobufObjects: boolean;
  /** a watch: the chosen serializer must stream, and a stream=watch parameter is accepted */
  watch?: boolean;
}

export type Negotiated = { ok: true; mediaType: string } | { ok: false; message: string };

/** The media types a 406 lists: every serializer of the scope (negotiation.MediaTypesForSerializer). */
function notAcceptable(watch: boolean): Negotiated {
  const types = watch ? serializers.filter((s) => s.streams).map((s) => `${s.mediaType};stream=watch`) : serializers.map((s) => s.mediaType);
  return { ok: false, message: `only the following media types are accepted: ${types.join(', ')}` };
}

/** acceptMediaTypeOptions: a clause whose parameters the endpoint cannot honour is skipped. */
function acceptsParams(params: Record<string, string>, s: Serializer, opts: NegotiationOptions): boolean {
  for (const [k, v] of Object.entries(params)) {
    // conversions are not answered here: as=Table by table.ts before any object is written, as=PartialObjectMetadata not at all
    if (k === 'as' || k === 'g' || k === 'v') return false;
    if (k === 'stream' && v !== '' && (!s.streams || v !== 'watch')) return false;
    if (k === 'sv' && v !== '') return false;
  }
  if (s.mediaType === protobufMediaType && !opts.protobufObjects) return false;
  return true;
}

/** NegotiateOutputMediaType (NegotiateOutputMediaTypeStream for a watch). */
export function negotiateOutput(accept: string | undefined, opts: NegotiationOptions): Negotiated {
  if (accept === undefined || accept === '') return { ok: true, mediaType: jsonMediaType };
  // the common case, answered without parsing
  if (accept === jsonMediaType || accept === '*/*') return { ok: true, mediaType: jsonMediaType };
  for (const clause of parseAccept(accept)) {
    for (const s of serializers) {
      const matches = (clause.type === s.type && (clause.subType === s.subType || clause.subType === '*')) || (clause.type === '*' && clause.subType === '*');
      if (!matches || !acceptsParams(clause.params, s, opts)) continue;
      // the stream negotiation takes the first match and fails when it cannot stream
      if (opts.watch && !s.streams) return notAcceptable(true);
      return { ok: true, mediaType: s.mediaType };
    }
  }
  return notAcceptable(opts.watch === true);
}

/** Whether a Content-Type names kube's protobuf (parameters aside). */
export function isProtobufMediaType(contentType: string): boolean {
  return contentType.split(';')[0]!.trim().toLowerCase() === protobufMediaType;
}
