// kube's URLs library (staging/src/k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL(), getScheme, getHost,
// getHostname, getPort, getEscapedPath, getQuery. A URL must be an absolute URI or an absolute path: kube checks
// with url.ParseRequestURI and then builds the value with url.Parse (which splits off the fragment properly).
import { CelError, CelMap, CelOpaque, type CelValue } from '../engine/values.js';
import { T, type CallEstimateInput, type LibraryRegistration, type OverloadDecl } from '../engine/functions.js';
import { NOMINAL, STRING_TRAVERSAL_COST_FACTOR, byFactor, equalityCost, EQUALITY_COST_FUNCTIONS, sizeOf, stringTraversal } from './cost.js';
import { escapedPath, hostname, parseRequestURI, parseURL, port, query, urlEquals, urlString, type GoURL } from './go-url.js';

export const URL_TYPE = 'kubernetes.URL';

export class URLValue extends CelOpaque {
  readonly typeName = URL_TYPE;
  constructor(readonly url: GoURL) {
    super();
  }
  override equals(other: CelOpaque): boolean {
    return other instanceof URLValue && urlEquals(this.url, other.url);
  }
  override toString(): string {
    return urlString(this.url);
  }
  override toJSON(): unknown {
    return this.toString();
  }
}

const ERR = 'URL parse error during conversion from string: ';

export function stringToURL(s: string): URLValue | CelError {
  const checked = parseRequestURI(s);
  if (typeof checked === 'string') return new CelError(ERR + checked);
  const u = parseURL(s);
  return typeof u === 'string' ? new CelError(ERR + u) : new URLValue(u);
}

const U = T.opaque(URL_TYPE);
const url = (v: CelValue): GoURL => (v as URLValue).url;
const nominal = { cost: () => 1, estimate: () => NOMINAL };

function accessor(id: string, name: string, get: (u: GoURL) => string): OverloadDecl {
  return { id, name, receiver: U, args: [], result: T.string, impl: (v) => get(url(v)), ...nominal };
}

const overloads: OverloadDecl[] = [
  {
    id: 'string_to_url',
    name: 'url',
    args: [T.string],
    result: U,
    impl: (s) => stringToURL(s as string),
    cost: (args) => stringTraversal(args[0]!),
    estimate: (i: CallEstimateInput) => {
      const sz = sizeOf(i.args[0]);
      return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
    },
  },
  accessor('url_get_scheme', 'getScheme', (u) => u.scheme),
  accessor('url_get_host', 'getHost', (u) => u.host),
  accessor('url_get_hostname', 'getHostname', hostname),
  accessor('url_get_port', 'getPort', port),
  accessor('url_get_escaped_path', 'getEscapedPath', escapedPath),
  {
    id: 'url_get_query',
    name: 'getQuery',
    receiver: U,
    args: [],
    result: T.map(T.string, T.list(T.string)),
    impl: (v) => new CelMap(query(url(v)).entries()),
    ...nominal,
  },
  // isURL is not in cost.go's list: cel-go's default of 1
  { id: 'is_url_string', name: 'isURL', args: [T.string], result: T.bool, impl: (s) => typeof parseRequestURI(s as string) !== 'string' },
];

export const urlsLibrary: LibraryRegistration = {
  name: 'kubernetes.urls',
  types: [{ name: URL_TYPE }],
  functions: overloads,
  callCost: equalityCost((v) => v instanceof URLValue),
  callCostFunctions: EQUALITY_COST_FUNCTIONS,
  callCostOpaqueOnly: true,
};
