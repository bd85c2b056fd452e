// What a REST operation knows about the request it serves.
import type { UserInfo } from '../api/types.js';

export interface RequestContext {
  user: UserInfo;
  /** namespace from the URL ('' for cluster-scoped or all-namespaces) */
  namespace: string;
  dryRun: boolean;
  /** warnings for Warning headers, collected from every stage */
  warnings: string[];
  /** audit annotations collected from admission */
  auditAnnotations: Record<string, string>;
}

export function newRequestContext(user: UserInfo, namespace: string, dryRun = false): RequestContext {
  return { user, namespace, dryRun, warnings: [], auditAnnotations: {} };
}
