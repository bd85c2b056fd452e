// A kubeconfig for one static-token user (--token-auth-file), so kubectl runs as that user rather than the admin.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/** Writes `<dir>/<user>.kubeconfig` authenticating with the bearer token `<user>-token`; returns its path. */
export function writeTokenKubeconfig(dir: string, server: { url: string; caPem: string }, user: string): string {
  const file = path.join(dir, `${user}.kubeconfig`);
  writeFileSync(
    file,
    YAML.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'kah', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') } }],
      users: [{ name: user, user: { token: `${user}-token` } }],
      contexts: [{ name: user, context: { cluster: 'kah', user } }],
      'current-context': user,
    }),
  );
  return file;
}
