// Audit: one audit.k8s.io/v1 Event per request at stage ResponseComplete, level Metadata, written as JSON lines to
// --audit-log-path. Admission annotations (res.locals.auditAnnotations) land in the event's annotations.
// As in kube, the filter runs before impersonation: `user` is who authenticated, taken when the event is
// created, and `impersonatedUser` is filled in by the impersonation filter (audit.LogImpersonatedUser).
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import type { UserInfo } from '../api/types.js';
import { impersonatedUserLocal } from './impersonation.js';
import type { RequestInfo } from './request-info.js';

export class AuditLog {
  private readonly out: WriteStream;
  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'a' });
  }
  write(event: object): void {
    this.out.write(JSON.stringify(event) + '\n');
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}

function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** authenticationv1.UserInfo as the event serializes it: every field omitempty. */
function auditUserInfo(u: UserInfo): UserInfo {
  const out: UserInfo = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

export function auditFilter(log: AuditLog) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const received = new Date();
    const auditID = (req.headers['audit-id'] as string | undefined) ?? randomUUID();
    res.setHeader('Audit-Id', auditID);
    res.locals['auditAnnotations'] = {} as Record<string, string>;
    const user = res.locals['user'] as UserInfo | undefined;
    res.on('finish', () => {
      const ri = res.locals['requestInfo'] as RequestInfo;
      const impersonated = res.locals[impersonatedUserLocal] as UserInfo | undefined;
      const event: Record<string, unknown> = {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID,
        stage: 'ResponseComplete',
        requestURI: req.originalUrl,
        verb: ri.verb,
        user: user ?? {},
        ...(impersonated ? { impersonatedUser: auditUserInfo(impersonated) } : {}),
        sourceIPs: [req.socket.remoteAddress ?? ''],
        userAgent: req.headers['user-agent'] ?? '',
        responseStatus: { metadata: {}, code: res.statusCode },
        requestReceivedTimestamp: microTime(received),
        stageTimestamp: microTime(new Date()),
      };
      if (ri.isResourceRequest) {
        const ref: Record<string, string> = { resource: ri.resource, apiVersion: ri.apiVersion };
        if (ri.namespace) ref['namespace'] = ri.namespace;
        if (ri.name) ref['name'] = ri.name;
        if (ri.apiGroup) ref['apiGroup'] = ri.apiGroup;
        if (ri.subresource) ref['subresource'] = ri.subresource;
        event['objectRef'] = ref;
      }
      const annotations = res.locals['auditAnnotations'] as Record<string, string>;
      if (Object.keys(annotations).length) event['annotations'] = annotations;
      log.write(event);
    });
    next();
  };
}
