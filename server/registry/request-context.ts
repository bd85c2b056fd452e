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
  /** when the request's context expires (performance.now() ms; request-deadline.ts); undefined: no deadline */
  deadline?: number;
}

export function newRequestContext(user: UserInfo, namespace: string, dryRun = false): RequestContext {
  return { user, namespace, dryRun, warnings: [], auditAnnotations: {} };
}
