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
  /**
   * A write by this server's own controllers (kube-controller-manager's work, done in process): registry checks
   * that kube's controllers pass through their bootstrap controller roles (RBAC escalation) do not apply.
   */
  internal?: boolean;
}

export function newRequestContext(user: UserInfo, namespace: string, dryRun = false): RequestContext {
  return { user, namespace, dryRun, warnings: [], auditAnnotations: {} };
}
