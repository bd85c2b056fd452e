// The subresources kube-apiserver serves beyond status and scale, as its REST storages register them
// (pkg/registry/core/pod/storage/storage.go, pkg/registry/core/rest/storage_core.go): the verbs each storage
// implements (rest.NamedCreater → create; Getter+Updater → get, update, patch; rest.Connecter → the verbs of its
// ConnectMethods) and the kind it answers with (discovery's responseKind; admission's kind for CONNECT).
import type { Verb } from '../../registry/resource.js';

export interface ConnectSubresource {
  /** the HTTP methods the Connecter's ConnectMethods lists (HEAD and OPTIONS route as GET and OPTIONS) */
  methods: readonly string[];
  /** the options object's kind (core/v1): PodExecOptions, PodProxyOptions, … */
  optionsKind: string;
  /** NewConnectOptions' subpath: the rest of the path after the subresource becomes the options' `path` */
  subpath: boolean;
}

export interface ExtraSubresource {
  group: string;
  resource: string;
  subresource: string;
  /** what discovery lists, in kube's verb names */
  verbs: readonly Verb[];
  kind: { group: string; version: string; kind: string };
  connect?: ConnectSubresource;
}

// kube's ProxyREST ConnectMethods (pod, service and node proxies alike).
const proxyMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
// "Support both GET and POST methods. We must support GET for browsers that want to use WebSockets."
const upgradeableMethods = ['GET', 'POST'];
// Discovery's verbs for a connecter: each method's action verb (GET get, POST create, PUT update, PATCH patch, DELETE delete).
const proxyVerbs: Verb[] = ['create', 'delete', 'get', 'patch', 'update'];
const upgradeVerbs: Verb[] = ['create', 'get'];
const core = (kind: string) => ({ group: '', version: 'v1', kind });

export const extraSubresources: readonly ExtraSubresource[] = [
  { group: '', resource: 'pods', subresource: 'attach', verbs: upgradeVerbs, kind: core('PodAttachOptions'), connect: { methods: upgradeableMethods, optionsKind: 'PodAttachOptions', subpath: false } },
  { group: '', resource: 'pods', subresource: 'binding', verbs: ['create'], kind: core('Binding') },
  { group: '', resource: 'pods', subresource: 'ephemeralcontainers', verbs: ['get', 'patch', 'update'], kind: core('Pod') },
  { group: '', resource: 'pods', subresource: 'eviction', verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' } },
  { group: '', resource: 'pods', subresource: 'exec', verbs: upgradeVerbs, kind: core('PodExecOptions'), connect: { methods: upgradeableMethods, optionsKind: 'PodExecOptions', subpath: false } },
  { group: '', resource: 'pods', subresource: 'portforward', verbs: upgradeVerbs, kind: core('PodPortForwardOptions'), connect: { methods: upgradeableMethods, optionsKind: 'PodPortForwardOptions', subpath: false } },
  { group: '', resource: 'pods', subresource: 'proxy', verbs: proxyVerbs, kind: core('PodProxyOptions'), connect: { methods: proxyMethods, optionsKind: 'PodProxyOptions', subpath: true } },
  { group: '', resource: 'pods', subresource: 'resize', verbs: ['get', 'patch', 'update'], kind: core('Pod') },
  { group: '', resource: 'services', subresource: 'proxy', verbs: proxyVerbs, kind: core('ServiceProxyOptions'), connect: { methods: proxyMethods, optionsKind: 'ServiceProxyOptions', subpath: true } },
  { group: '', resource: 'nodes', subresource: 'proxy', verbs: proxyVerbs, kind: core('NodeProxyOptions'), connect: { methods: proxyMethods, optionsKind: 'NodeProxyOptions', subpath: true } },
  { group: '', resource: 'serviceaccounts', subresource: 'token', verbs: ['create'], kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } },
];

/** The extra subresources of one resource (core/v1 only in kube). */
export function extraSubresourcesOf(group: string, version: string, resource: string): readonly ExtraSubresource[] {
  if (group !== '' || version !== 'v1') return [];
  return extraSubresources.filter((s) => s.resource === resource);
}

export function extraSubresource(group: string, version: string, resource: string, subresource: string): ExtraSubresource | undefined {
  return extraSubresourcesOf(group, version, resource).find((s) => s.subresource === subresource);
}
