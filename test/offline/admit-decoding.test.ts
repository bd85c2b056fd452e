// `kah admit` decodes --object as the API decodes a create or update body, with the server's own strict decoder
// (server/endpoints/field-validation.ts): for each body below, the warnings and the refusal must be exactly what a
// real server answers to the same bytes (the same cases as test/api/field-validation.test.ts and kube's
// test/integration/apiserver/field_validation_test.go: unknown fields at any depth, duplicate fields in JSON,
// yaml.v2's duplicate keys in YAML, a value of the wrong type, fieldValidation=Strict).
import { readFileSync } from 'node:fs';
import { runCli } from '../../harness/cli.js';
import { useApiServer } from '../../harness/jest.js';
import { captureCliIO as capture } from '../support/cli.js';
import { maxReplicasPolicy, TempDir } from './support.js';

const env = useApiServer({ storage: 'memory' });

let tmp: TempDir;
let manifests: string;
beforeAll(() => {
  tmp = new TempDir();
  // something to admit with: a policy on Deployments
  manifests = tmp.write('policy.yaml', maxReplicasPolicy('max-replicas', 10));
});
afterAll(() => tmp.cleanup());

interface AdmitJson {
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  decidedBy?: { plugin: string; description: string };
  warnings: string[];
  object: Record<string, unknown> | null;
}

async function admit(file: string, ...args: string[]): Promise<{ code: number | 'serving'; json: AdmitJson; err: string }> {
  const io = capture();
  const code = await runCli(['admit', `--manifests=${manifests}`, `--object=${file}`, '-o', 'json', ...args], io);
  if (io.out() === '') throw new Error(`no output; stderr: ${io.err()}`);
  return { code, json: JSON.parse(io.out()) as AdmitJson, err: io.err() };
}

/** The texts of `Warning: 299 - "…"` headers (node joins repeated headers with ", "). */
function warningTexts(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(', ') : (header ?? '');
  return [...joined.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

/** The same bytes POSTed to the real server, as dry run (nothing is stored, every check runs). */
async function serverAnswer(path: string, file: string, contentType: string, fieldValidation?: string) {
  const query = `?dryRun=All${fieldValidation ? `&fieldValidation=${fieldValidation}` : ''}`;
  const res = await env.server.request(`${path}${query}`, { method: 'POST', body: readFileSync(file, 'utf8'), headers: { 'Content-Type': contentType } });
  const body = res.json<{ kind?: string; code?: number; reason?: string; message?: string }>();
  return { status: res.status, warnings: warningTexts(res.headers['warning']), ...(body.kind === 'Status' ? { error: { code: body.code, reason: body.reason, message: body.message } } : {}) };
}

const pods = '/api/v1/namespaces/default/pods';
const deployments = '/apis/apps/v1/namespaces/default/deployments';

describe('kah admit decodes --object as the API does', () => {
  it('warns about a misspelled field as the server does, besides the validation error it causes', async () => {
    const file = tmp.write('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containerz:\n  - name: app\n    image: nginx\n');
    const r = await admit(file);
    const server = await serverAnswer(pods, file, 'application/yaml');
    expect(r.code).toBe(1);
    expect(r.json.warnings).toEqual(['unknown field "spec.containerz"']);
    expect(r.json.warnings).toEqual(server.warnings);
    expect(r.json.status).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(r.json.status!.message).toContain('spec.containers: Required value');
    expect(r.json.status!.message).toBe(server.error?.message);
    // the default flags: no AnonymousAuth warning, which says nothing about an offline run
    expect(r.err).toBe('');
  });

  it('reports unknown fields at any depth and duplicate fields of a JSON body in the server’s order and texts', async () => {
    const body =
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dups","labels":{"app":"a"}},' +
      '"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},' +
      '"spec":{"containers":[{"name":"c","image":"nginx","imagee":"x"}],"unknownSpec":true}}}}';
    const file = tmp.write('deployment.json', body);
    const r = await admit(file);
    const server = await serverAnswer(deployments, file, 'application/json');
    expect(server.status).toBe(201);
    expect(r.code).toBe(0);
    expect(r.json.allowed).toBe(true);
    expect(r.json.warnings).toEqual(server.warnings);
    expect(r.json.warnings).toEqual(
      expect.arrayContaining(['duplicate field "spec.replicas"', 'unknown field "spec.template.spec.containers[0].imagee"', 'unknown field "spec.template.spec.unknownSpec"']),
    );
  });

  it('reports yaml duplicate keys one warning per line, as the server splits yaml.v2’s error', async () => {
    const file = tmp.write('dup.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n  name: dup\ndata:\n  a: "1"\n  a: "2"\n');
    const r = await admit(file);
    const server = await serverAnswer('/api/v1/namespaces/default/configmaps', file, 'application/yaml');
    expect(r.code).toBe(0);
    expect(r.json.warnings.length).toBeGreaterThan(0);
    expect(r.json.warnings).toEqual(server.warnings);
  });

  it('refuses a value of the wrong type with the server’s 400, before admission, whatever --field-validation says', async () => {
    const file = tmp.write('bad-type.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: "three"\n');
    const r = await admit(file);
    const server = await serverAnswer(deployments, file, 'application/yaml');
    expect(r.code).toBe(1);
    expect(r.json.allowed).toBe(false);
    expect(r.json.status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(r.json.status!.message).toBe(server.error?.message);
    expect(r.json.decidedBy?.plugin).toBe('decoding');
  });

  it('with --field-validation=Strict refuses unknown fields with the server’s 400 text', async () => {
    const file = tmp.write('strict.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\ndataa:\n  a: "1"\n');
    const r = await admit(file, '--field-validation=Strict');
    const server = await serverAnswer('/api/v1/namespaces/default/configmaps', file, 'application/yaml', 'Strict');
    expect(r.code).toBe(1);
    expect(r.json.status).toMatchObject({ code: 400, reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dataa"' });
    expect(r.json.status!.message).toBe(server.error?.message);
  });

  it('with --field-validation=Ignore reports nothing and admits the object without the unknown field', async () => {
    const file = tmp.write('ignore.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignore\ndataa:\n  a: "1"\n');
    const r = await admit(file, '--field-validation=Ignore');
    expect(r.code).toBe(0);
    expect(r.json.warnings).toEqual([]);
    expect(r.json.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'ignore' } });
    expect(r.json.object).not.toHaveProperty('dataa');
  });

  it('refuses a --field-validation value the API does not know, with the API’s text', async () => {
    const file = tmp.write('any.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: any\n');
    const io = capture();
    const code = await runCli(['admit', `--manifests=${manifests}`, `--object=${file}`, '--field-validation=Sometimes'], io);
    expect(code).toBe(2);
    expect(io.err().split('\n')[0]).toBe('kah admit: --field-validation: CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Sometimes": supported values: "", "Ignore", "Strict", "Warn"');
  });
});
