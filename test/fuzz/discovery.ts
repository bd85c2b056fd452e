// The served resources, read from the server's discovery documents (/api, /apis and each group version's
// APIResourceList), so the fuzz covers whatever the server serves, CRDs included.
import type { RawClient } from '../support/raw-https.js';

export interface ServedResource {
  group: string;
  version: string;
  /** plural, as in the URL */
  resource: string;
  /** status, scale, finalize, … ('' for the main resource) */
  subresource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
}

export const groupVersionPath = (group: string, version: string): string => (group === '' ? `/api/${version}` : `/apis/${group}/${version}`);
export const apiVersionOf = (r: { group: string; version: string }): string => (r.group === '' ? r.version : `${r.group}/${r.version}`);

async function getJSON<T>(client: RawClient, path: string): Promise<T> {
  const res = await client.send({ method: 'GET', path, headers: { Accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`discovery GET ${path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(res.body.toString('utf8')) as T;
}

export async function discoverResources(client: RawClient): Promise<ServedResource[]> {
  const core = await getJSON<{ versions: string[] }>(client, '/api');
  const groups = await getJSON<{ groups: Array<{ name: string; versions: Array<{ version: string }> }> }>(client, '/apis');
  const groupVersions: Array<[string, string]> = [
    ...core.versions.map((v): [string, string] => ['', v]),
    ...groups.groups.flatMap((g) => g.versions.map((v): [string, string] => [g.name, v.version])),
  ];
  const out: ServedResource[] = [];
  for (const [group, version] of groupVersions) {
    const list = await getJSON<{ resources: APIResource[] }>(client, groupVersionPath(group, version));
    for (const r of list.resources) {
      const [resource, subresource = ''] = r.name.split('/');
      out.push({ group, version, resource: resource!, subresource, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
  }
  return out;
}
