// HTTPS requests to a harness apiserver with a bearer token and no client certificate, and a kubeconfig that
// holds only a token, so that kubectl authenticates with the token (a client certificate would win).
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { ApiServerHandle } from '../../harness/apiserver-process.js';

export interface BearerReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

export function bearerRequest(server: ApiServerHandle, reqPath: string, token: string | undefined, method = 'GET', body?: unknown): Promise<BearerReply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: reqPath,
        method,
        agent: false,
        ca: server.caPem,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(data ? { 'Content-Type': 'application/json', 'Content-Length': String(data.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: <T>() => JSON.parse(text) as T });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export async function writeTokenKubeconfig(file: string, server: ApiServerHandle, token: string): Promise<void> {
  const kc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kah', cluster: { server: `https://127.0.0.1:${server.port}`, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') } }],
    users: [{ name: 'token', user: { token } }],
    contexts: [{ name: 'token', context: { cluster: 'kah', user: 'token' } }],
    'current-context': 'token',
  };
  await writeFile(file, JSON.stringify(kc));
}
