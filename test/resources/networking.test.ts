// networking.k8s.io/v1 as kube-apiserver serves it: each kind walked through the API and kubectl, with kube's
// defaults (networkpolicy policyTypes and port protocol, ingressclass parameters scope) and kube's validation texts
// (pkg/apis/networking/validation/validation.go).
import { useApiServer } from '../../harness/jest.js';
import { describeResourceWalks, type ResourceWalk } from '../support/resource-walk.js';
import { kubectl } from '../support/kubectl.js';

const env = useApiServer({ storage: (process.env['KAH_TEST_STORAGE'] as 'etcd3' | 'memory' | undefined) ?? 'memory' });
const namespace = 'networking-walk';

const backend = { service: { name: 'web', port: { number: 80 } } };
const ingressPath = (extra: Record<string, unknown>) => ({ spec: { rules: [{ host: 'example.com', http: { paths: [{ path: '/', backend, ...extra }] } }] } });

const walks: ResourceWalk[] = [
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', namespaced: true,
    object: () => ingressPath({ pathType: 'Prefix' }),
    // kube defaults nothing in networking/v1 Ingress: what is sent is what is stored
    defaulted: [{ path: 'spec.rules.0.http.paths.0.pathType', value: 'Prefix' }],
    invalid: [
      {
        name: 'pathType missing',
        object: ingressPath({}),
        causes: [{ reason: 'FieldValueRequired', field: 'spec.rules[0].http.paths[0].pathType', message: 'Required value: pathType must be specified' }],
      },
      {
        name: 'pathType not in the enum',
        object: ingressPath({ pathType: 'Regex' }),
        causes: [{ reason: 'FieldValueNotSupported', field: 'spec.rules[0].http.paths[0].pathType', message: 'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"' }],
      },
      {
        name: 'no rules and no default backend',
        object: { spec: {} },
        message: 'Ingress.networking.k8s.io "walk-ingress-invalid" is invalid: spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified',
      },
      {
        name: 'backend with both service and resource',
        object: { spec: { defaultBackend: { ...backend, resource: { kind: 'Bucket', name: 'b' } } } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.defaultBackend', message: 'Invalid value: "": cannot set both resource and service backends' }],
      },
      {
        name: 'service backend without a port',
        object: { spec: { defaultBackend: { service: { name: 'web' } } } },
        causes: [{ reason: 'FieldValueRequired', field: 'spec.defaultBackend', message: 'Required value: port name or number is required' }],
      },
      {
        name: 'an Exact path that is not absolute',
        object: ingressPath({ pathType: 'Exact', path: 'relative' }),
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.rules[0].http.paths[0].path', message: 'Invalid value: "relative": must be an absolute path' }],
      },
      {
        name: 'an IP address as host',
        object: { spec: { rules: [{ host: '10.0.0.1', http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.rules[0].host', message: 'Invalid value: "10.0.0.1": must be a DNS name, not an IP address' }],
      },
    ],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', kind: 'IngressClass', namespaced: false,
    object: () => ({ spec: { controller: 'example.com/ingress-controller', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' } } }),
    defaulted: [{ path: 'spec.parameters.scope', value: 'Cluster' }],
    invalid: [
      { name: 'controller missing', object: { spec: {} }, causes: [{ reason: 'FieldValueRequired', field: 'spec.controller', message: 'Required value' }] },
      {
        name: 'controller not a domain-prefixed path',
        object: { spec: { controller: 'nginx' } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.controller', message: 'Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")' }],
      },
      {
        name: 'namespace-scoped parameters without a namespace',
        object: { spec: { controller: 'example.com/c', parameters: { kind: 'Params', name: 'p', scope: 'Namespace' } } },
        causes: [{ reason: 'FieldValueRequired', field: 'spec.parameters.namespace', message: "Required value: `parameters.scope` is set to 'Namespace'" }],
      },
    ],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true,
    object: () => ({ spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 80 }] }], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] } }),
    defaulted: [
      { path: 'spec.policyTypes', value: ['Ingress', 'Egress'] },
      { path: 'spec.ingress.0.ports.0.protocol', value: 'TCP' },
    ],
    invalid: [
      {
        name: 'an unsupported protocol',
        object: { spec: { podSelector: {}, ingress: [{ ports: [{ protocol: 'ICMP', port: 80 }] }] } },
        causes: [{ reason: 'FieldValueNotSupported', field: 'spec.ingress[0].ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"' }],
      },
      {
        name: 'an endPort with a named port',
        object: { spec: { podSelector: {}, ingress: [{ ports: [{ port: 'http', endPort: 90 }] }] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.ingress[0].ports[0].endPort', message: 'Invalid value: 90: may not be specified when `port` is non-numeric' }],
      },
      {
        name: 'an except outside the cidr',
        object: { spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] } }] }] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.egress[0].to[0].ipBlock.except[0]', message: 'Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`' }],
      },
      {
        name: 'an unknown policy type',
        object: { spec: { podSelector: {}, policyTypes: ['Sideways'] } },
        causes: [{ reason: 'FieldValueNotSupported', field: 'spec.policyTypes[0]', message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"' }],
      },
    ],
  },
  {
    group: 'networking.k8s.io', version: 'v1', resource: 'servicecidrs', kind: 'ServiceCIDR', namespaced: false,
    object: () => ({ spec: { cidrs: ['10.200.0.0/16', 'fd00:10:200::/64'] } }),
    defaulted: [{ path: 'spec.cidrs', value: ['10.200.0.0/16', 'fd00:10:200::/64'] }],
    invalid: [
      { name: 'no cidrs', object: { spec: {} }, causes: [{ reason: 'FieldValueRequired', field: 'spec.cidrs', message: 'Required value: at least one CIDR required' }] },
      {
        name: 'host bits set',
        object: { spec: { cidrs: ['10.200.0.1/16'] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.cidrs[0]', message: 'Invalid value: "10.200.0.1/16": must not have bits set beyond the prefix length' }],
      },
      {
        name: 'two of one family',
        object: { spec: { cidrs: ['10.200.0.0/16', '10.201.0.0/16'] } },
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.cidrs', message: 'Invalid value: []string{"10.200.0.0/16", "10.201.0.0/16"}: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64' }],
      },
    ],
  },
];

describeResourceWalks(env, namespace, walks);

// IPAddresses are named by the address itself, so the walk's names cannot be used: the same steps, by hand.
describe('networking.k8s.io/v1 IPAddress', () => {
  const path = '/apis/networking.k8s.io/v1/ipaddresses';
  const ip = (name: string, parentRef?: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name }, spec: parentRef ? { parentRef } : {} });
  const parent = { group: '', resource: 'services', namespace: 'default', name: 'web' };

  it('is created, read, listed, patched, printed and deleted, and its parentRef is immutable', async () => {
    const created = await env.server.request(path, { method: 'POST', body: ip('10.96.0.77', parent) });
    expect(created.status).toBe(201);
    expect((await env.server.request(`${path}/10.96.0.77`)).status).toBe(200);
    const patched = await env.server.request(`${path}/10.96.0.77`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { metadata: { labels: { a: 'b' } } } });
    expect(patched.status).toBe(200);
    const moved = await env.server.request(`${path}/10.96.0.77`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { spec: { parentRef: { name: 'other' } } } });
    expect(moved.status).toBe(422);
    expect(moved.json<{ details: { causes: Array<{ field: string; message: string }> } }>().details.causes.map((c) => [c.field, c.message.endsWith('field is immutable')])).toEqual([['spec.parentRef', true]]);
    const table = await kubectl(env.server.kubeconfigPath, ['get', 'ipaddresses.networking.k8s.io']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    expect(table.stdout).toMatch(/^NAME\s+PARENTREF\s+AGE/);
    expect(table.stdout).toMatch(/10\.96\.0\.77\s+services\/default\/web/);
    expect((await env.server.request(`${path}/10.96.0.77`, { method: 'DELETE' })).status).toBe(200);
  });

  it.each([
    ['not an IP', 'my-address', 'metadata.name', 'Invalid value: "my-address": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['an IPv6 address not in canonical form', '2001:db8:0:0:0:0:0:1', 'metadata.name', 'Invalid value: "2001:db8:0:0:0:0:0:1": must be in canonical form ("2001:db8::1")'],
    ['leading zeros', '010.0.0.1', 'metadata.name', 'Invalid value: "010.0.0.1": must not have leading 0s'],
  ])('refuses a name that is %s with kube\'s text', async (_t, name, field, message) => {
    const res = await env.server.request(path, { method: 'POST', body: ip(name, parent) });
    expect(res.status).toBe(422);
    expect(res.json<{ details: { causes: unknown[] } }>().details.causes).toContainEqual({ reason: 'FieldValueInvalid', field, message });
  });

  it('refuses an address without parentRef', async () => {
    const res = await env.server.request(path, { method: 'POST', body: ip('10.96.0.78') });
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toBe('IPAddress.networking.k8s.io "10.96.0.78" is invalid: spec.parentRef: Required value');
  });
});

describe('networking.k8s.io/v1 NetworkPolicy peers', () => {
  // client-node's typed bodies do not carry these peers as sent, so they go through the raw API
  it.each([
    ['an empty peer', {}, 'spec.ingress[0].from[0]: Required value: must specify a peer'],
    ['a peer with an ipBlock and a selector', { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: { matchLabels: { app: 'a' } } }, 'spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer'],
  ])('refuses %s with kube\'s text', async (_t, peer, text) => {
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad-peer' }, spec: { podSelector: {}, ingress: [{ from: [peer] }] } };
    const res = await env.server.request('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', { method: 'POST', body });
    expect([res.status, res.json<{ message: string }>().message]).toEqual([422, `NetworkPolicy.networking.k8s.io "bad-peer" is invalid: ${text}`]);
  });
});

describe('networking.k8s.io through kubectl', () => {
  it('`kubectl create ingress` makes the Ingress kube makes, printed with kube\'s columns', async () => {
    const kc = env.server.kubeconfigPath;
    await kubectl(kc, ['create', 'namespace', 'ing-kubectl']);
    const create = await kubectl(kc, ['create', 'ingress', 'simple', '-n', 'ing-kubectl', '--class=default', '--rule=foo.com/bar=svc1:8080,tls=my-cert']);
    expect([create.code, create.stderr, create.stdout.trim()]).toEqual([0, '', 'ingress.networking.k8s.io/simple created']);
    const get = await kubectl(kc, ['get', 'ing', 'simple', '-n', 'ing-kubectl', '-o', 'json']);
    const ing = JSON.parse(get.stdout) as { spec: { ingressClassName: string; rules: Array<{ host: string; http: { paths: Array<{ path: string; pathType: string; backend: unknown }> } }>; tls: unknown[] } };
    expect(ing.spec.ingressClassName).toBe('default');
    expect(ing.spec.rules[0]!.http.paths[0]).toEqual({ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 8080 } } } });
    expect(ing.spec.tls).toEqual([{ hosts: ['foo.com'], secretName: 'my-cert' }]);
    const table = await kubectl(kc, ['get', 'ing', '-n', 'ing-kubectl']);
    expect(table.stdout).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n/);
    expect(table.stdout).toMatch(/simple\s+default\s+foo\.com\s+80, 443\s+/);
  });

  it('`kubectl get netpol` resolves the short name and prints the pod selector', async () => {
    const kc = env.server.kubeconfigPath;
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-all', namespace: 'default' }, spec: { podSelector: {} } };
    const create = await kubectl(kc, ['create', '-f', '-'], JSON.stringify(body));
    expect([create.code, create.stderr]).toEqual([0, '']);
    const table = await kubectl(kc, ['get', 'netpol', 'deny-all', '-n', 'default']);
    expect(table.stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\ndeny-all\s+<none>\s+/);
  });
});
