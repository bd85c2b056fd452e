// What the REST handlers need from the server, passed in so each handler stays a function of its inputs.
import type { AdmissionChain } from '../admission/chain.js';
import type { KubeObject, UserInfo } from '../api/types.js';
import type { RequestInfo } from '../http/request-info.js';
import type { ResourceIndex } from '../registry/resource-index.js';
import type { ResourceInfo } from '../registry/resource.js';
import type { ResourceStore } from '../registry/store.js';
import type { Logger } from '../log.js';
import type { WatchMetrics } from '../metrics/watch.js';
import type { ServiceAccountTokenIssuer } from './subresources/token-request.js';
import type { Authorizer } from '../authz/index.js';

/** Answers a create on a virtual resource (TokenReview, SubjectAccessReview, …). */
export type VirtualResourceHandler = (info: ResourceInfo, body: KubeObject, req: { user: UserInfo; requestInfo: RequestInfo }) => Promise<KubeObject>;

export interface ApiContext {
  index: ResourceIndex;
  storeFor(info: ResourceInfo): ResourceStore;
  virtual: VirtualResourceHandler;
  /** the chain virtual resources' creates pass through (stored resources reach it through their store) */
  admission: AdmissionChain;
  /** ends every open watch (shutdown) */
  watchRegistry: Set<() => void>;
  /** counts watchers terminated for not keeping up (apiserver_terminated_watchers_total) */
  watchMetrics: WatchMetrics;
  log: Logger;
  /** signs serviceaccounts/token (TokenRequest) answers; absent, TokenRequests fail with a 500 */
  serviceAccountTokens?: ServiceAccountTokenIssuer;
  /** the server's authorizer, for the checks kube's storages make themselves (pods/exec's create check) */
  authz?: Authorizer;
}
