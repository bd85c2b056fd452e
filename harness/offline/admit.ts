// `kah admit`: one request through the admission chain, without storage or a server. Configurations come from an
// AdmissionConfiguration's staticManifestsDirs (loaded exactly as at startup) and from --manifests (REST-style
// objects); webhooks are called for real. Exit 0 allowed, 1 denied, 2 usage or load errors.
import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import type { AdmissionOperation } from '../../server/admission/attributes.js';
import { kubernetesCelEnvironment } from '../../server/admission/cel/kubernetes.js';
import { parseDocument, splitYamlDocuments } from '../../server/admission/manifest/decode.js';
import { formatManifestError } from '../../server/admission/manifest/manifest-error.js';
import { compileWebhookMatchCondition } from '../../server/admission/webhook/match-conditions.js';
import { toStatusError } from '../../server/api/errors.js';
import type { KubeObject } from '../../server/api/types.js';
import { checkResourceFields, parseFieldValidation, type FieldValidation } from '../../server/endpoints/field-validation.js';
import { goPathErrorMessage } from '../../server/options/go-fs-errors.js';
import { goQuote } from '../../server/options/go-strconv.js';
import { parseServerOptions } from '../../server/options/index.js';
import { builtinResourcesFor } from '../../server/registry/catalogue/index.js';
import { ResourceIndex } from '../../server/registry/resource-index.js';
import { buildOfflineChain, type OfflineChain } from './admission-chain.js';
import { admitOnce, requestNamespace, type AdmitOutcome } from './admit-request.js';
import { lastValue, listValues, splitOwnFlags, type OwnFlag } from './args.js';
import { loadRestManifests } from './rest-manifests.js';
import { checkAdmissionStartup, startupProblemLine } from './startup-check.js';
import type { OfflineIO } from './io.js';
import { offlineFlagWarnings } from './offline-flag-warnings.js';

export const admitUsage =
  'kah admit (--admission-control-config-file=FILE | --manifests=PATH…) --object=FILE [--old-object=FILE] [--operation=CREATE|UPDATE|DELETE|CONNECT]\n' +
  '          [--subresource=NAME] [--dry-run] [--user=NAME] [--groups=a,b] [--namespace-labels=k=v,…] [-o text|json]\n' +
  '          [--field-validation=Warn|Strict|Ignore]\n' +
  '          [--feature-gates=…] [--webhook-service-resolver=ns/name[:port]=host:port,…] [other kube-apiserver flags…]\n' +
  '  Runs the admission chain once (mutating policies and webhooks, object validation, validating policies and\n' +
  '  webhooks) without storage, and prints the decision, the deciding configuration, warnings, audit annotations,\n' +
  '  and on mutation the final object and the JSON patch from the object admission received (the input with the\n' +
  '  API\'s defaults) to it.\n' +
  '  --admission-control-config-file: loaded and validated exactly as `kah serve` does at startup (static manifests\n' +
  '    need --feature-gates=ManifestBasedAdmissionControlConfig=true).\n' +
  '  --manifests: directories or files of REST-style objects (webhook configurations, policies, bindings, and\n' +
  '    parameter objects of any kind; multi-document YAML, JSON, v1 List), validated as the REST API validates them.\n' +
  '  --operation: CREATE (default); UPDATE needs --old-object; DELETE deletes --object; CONNECT.\n' +
  '  --object is decoded as the API decodes a create or update body: a value of the wrong type is the API\'s 400,\n' +
  '    unknown and duplicate fields are dropped and reported as --field-validation says: Warn (the API\'s default:\n' +
  '    `unknown field "spec.containerz"` among the warnings), Strict (the 400 kubectl\'s default --validate=strict\n' +
  '    gets) or Ignore.\n' +
  '  The namespace is the object\'s metadata.namespace (default "default"); --namespace-labels are its labels for\n' +
  '    namespaceSelector and namespaceObject (kubernetes.io/metadata.name is always set). Every namespace exists.\n' +
  '  --user/--groups: the requester (default kubernetes-admin in system:masters,system:authenticated).\n' +
  '  authorizer.* in CEL answers with AlwaysAllow. Webhooks are called for real, with their caBundle;\n' +
  '    clientConfig.service is reached through --webhook-service-resolver, as with `kah serve`.\n' +
  '  Exit 0: allowed; 1: denied; 2: usage or load errors.';

const ownFlags: OwnFlag[] = [
  { name: 'manifests', takesValue: true },
  { name: 'object', takesValue: true },
  { name: 'old-object', takesValue: true },
  { name: 'operation', takesValue: true },
  { name: 'subresource', takesValue: true },
  { name: 'dry-run', takesValue: false },
  { name: 'user', takesValue: true },
  { name: 'groups', takesValue: true },
  { name: 'namespace-labels', takesValue: true },
  { name: 'output', short: 'o', takesValue: true },
  { name: 'field-validation', takesValue: true },
];

const operations: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

const write = (stream: NodeJS.WritableStream, lines: readonly string[]): void => {
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
};

/** A usage or load problem: the command stops with exit 2. */
class OfflineInputError extends Error {
  constructor(
    readonly lines: string[],
    readonly showUsage = false,
  ) {
    super(lines.join('\n'));
  }
}

/** --object / --old-object: exactly one object, JSON or YAML, and the file's bytes (the request body). */
async function readObjectFile(flag: string, path: string): Promise<{ object: KubeObject; raw: Buffer }> {
  const fail = (why: string): never => {
    throw new OfflineInputError([startupProblemLine(`${flag} ${path}: ${why}`)]);
  };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return fail(goPathErrorMessage(err, path));
  }
  const split = splitYamlDocuments(text);
  if (!split.ok) return fail(split.error);
  if (split.docs.length !== 1) return fail(`want exactly one object, found ${split.docs.length}`);
  const parsed = parseDocument(split.docs[0]!);
  if (!parsed.ok) return fail(parsed.error);
  const value = parsed.node.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not an object');
  const obj = value as KubeObject;
  if (typeof obj.kind !== 'string' || obj.kind === '') return fail("Object 'Kind' is missing");
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') return fail("Object 'apiVersion' is missing");
  return { object: obj, raw: Buffer.from(text, 'utf8') };
}

/**
 * The body as create.go/update.go decode it before admission (server/endpoints/field-validation.ts, the server's
 * own code): the object with unknown fields dropped and the strict decoder's warnings, or the Status of a body the
 * API refuses (a value of the wrong type; any strictness error under Strict).
 */
async function decodeRequestBody(info: Parameters<typeof checkResourceFields>[0], body: { object: KubeObject; raw: Buffer }, mode: FieldValidation) {
  const warnings: string[] = [];
  try {
    const object = await checkResourceFields(info, body.object, mode, warnings, { raw: body.raw, mediaType: body.raw.subarray(0, 1).toString() === '{' ? 'application/json' : 'application/yaml' });
    return { ok: true as const, object, warnings };
  } catch (err) {
    return { ok: false as const, status: toStatusError(err).status };
  }
}

function parseNamespaceLabels(entries: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const e of entries) {
    const eq = e.indexOf('=');
    if (eq <= 0) throw new OfflineInputError([`kah admit: --namespace-labels: ${goQuote(e)} is not key=value`], true);
    labels[e.slice(0, eq)] = e.slice(eq + 1);
  }
  return labels;
}

export function formatAdmitText(o: AdmitOutcome): string[] {
  const lines: string[] = [];
  if (o.allowed) lines.push('ALLOWED');
  else {
    const s = o.status!;
    lines.push(`DENIED (${[s.code, s.reason].filter((p) => p !== undefined && p !== '').join(' ')}): ${s.message ?? ''}`);
  }
  if (o.decidedBy) lines.push(`decided by: ${o.decidedBy.description}`);
  if (o.warnings.length > 0) lines.push('warnings:', ...o.warnings.map((w) => `  ${w}`));
  const annotations = Object.entries(o.auditAnnotations);
  if (annotations.length > 0) lines.push('audit annotations:', ...annotations.map(([k, v]) => `  ${k}: ${v}`));
  if (o.patch.length > 0 && o.object) {
    // YAML 1.1 quoting, as kubectl reads it: "yes", "on" and the like stay strings
    lines.push('final object:', ...YAML.stringify(o.object, { version: '1.1' }).trimEnd().split('\n').map((l) => `  ${l}`));
    lines.push('patch:', ...o.patch.map((op) => `  ${JSON.stringify(op)}`));
  }
  return lines;
}

export async function runAdmit(args: string[], io: OfflineIO): Promise<number> {
  let offline: OfflineChain | undefined;
  if (args.includes('--help') || args.includes('-h')) {
    write(io.stdout, [`usage: ${admitUsage}`]);
    return 0;
  }
  try {
    const split = splitOwnFlags(args, ownFlags);
    const usageErrors = split.errors.map((e) => `kah admit: ${e}`);
    const output = lastValue(split, 'output') ?? 'text';
    if (output !== 'text' && output !== 'json') usageErrors.push(`kah admit: -o must be text or json, not ${goQuote(output)}`);
    const operation = (lastValue(split, 'operation') ?? 'CREATE').toUpperCase() as AdmissionOperation;
    if (!operations.includes(operation)) usageErrors.push(`kah admit: --operation must be one of ${operations.join(', ')}, not ${goQuote(lastValue(split, 'operation')!)}`);
    const objectPath = lastValue(split, 'object');
    const oldObjectPath = lastValue(split, 'old-object');
    if (!objectPath) usageErrors.push('kah admit: --object is required');
    if (operation === 'UPDATE' && !oldObjectPath) usageErrors.push('kah admit: --operation=UPDATE needs --old-object');
    if (operation !== 'UPDATE' && oldObjectPath) usageErrors.push(`kah admit: --old-object is only for --operation=UPDATE`);
    let fieldValidation: FieldValidation = 'Warn';
    try {
      // the fieldValidation query parameter's values and error ("" is Warn)
      fieldValidation = parseFieldValidation([lastValue(split, 'field-validation') ?? ''], 'CreateOptions');
    } catch (err) {
      usageErrors.push(`kah admit: --field-validation: ${toStatusError(err).status.message ?? ''}`);
    }
    if (usageErrors.length > 0) throw new OfflineInputError(usageErrors, true);

    // Everything else is kube-apiserver's flags, parsed with its rules and texts.
    const parsed = parseServerOptions(split.rest, 'kah admit');
    if (!parsed.ok) throw new OfflineInputError(parsed.errors.map(startupProblemLine), true);
    write(io.stderr, offlineFlagWarnings(parsed.warnings).map((w) => `Warning: ${w}`));
    const options = parsed.options;
    const manifestsPaths = listValues(split, 'manifests');
    if (!options.admission.configFile && manifestsPaths.length === 0) {
      throw new OfflineInputError(['kah admit: nothing to admit with: give --admission-control-config-file or --manifests'], true);
    }
    const namespaceLabels = parseNamespaceLabels(listValues(split, 'namespace-labels'));

    const cel = kubernetesCelEnvironment();
    const gates = options.featureGates;
    const index = new ResourceIndex(
      builtinResourcesFor({
        excludeVirtualResources: gates.enabled('ExcludeAdmissionWebhookVirtualResources'),
        manifestBasedAdmissionControlConfig: gates.enabled('ManifestBasedAdmissionControlConfig'),
        cel,
        compileMatchCondition: compileWebhookMatchCondition(cel),
      }),
    );
    const startup = await checkAdmissionStartup(options, cel);
    if (!startup.ok) throw new OfflineInputError(startup.problems.map(startupProblemLine));
    const manifests = await loadRestManifests(manifestsPaths, index);
    if (!manifests.ok) throw new OfflineInputError(manifests.errors.map((e) => startupProblemLine(formatManifestError(e))));

    const body = await readObjectFile('--object', objectPath!);
    const object = body.object;
    const oldObject = oldObjectPath ? (await readObjectFile('--old-object', oldObjectPath)).object : undefined;
    const info = index.lookupKind(object.apiVersion!, object.kind!);
    // kubectl's RESTMapper text for a kind the server does not serve
    if (!info) throw new OfflineInputError([startupProblemLine(`--object ${objectPath}: no matches for kind ${goQuote(object.kind!)} in version ${goQuote(object.apiVersion!)}`)]);
    if (oldObject && (oldObject.apiVersion !== object.apiVersion || oldObject.kind !== object.kind)) {
      throw new OfflineInputError([startupProblemLine(`--old-object ${oldObjectPath}: is a ${oldObject.apiVersion} ${oldObject.kind}, --object a ${object.apiVersion} ${object.kind}`)]);
    }
    // Only create and update have a body of the resource's kind to decode (a DELETE's object is the stored one).
    const decodedBody = operation === 'CREATE' || operation === 'UPDATE' ? await decodeRequestBody(info, body, fieldValidation) : undefined;
    if (decodedBody && !decodedBody.ok) {
      const refused = {
        allowed: false,
        status: decodedBody.status,
        decidedBy: { plugin: 'decoding', description: `the API's decoding of the ${object.apiVersion} ${object.kind} body, before admission` },
        warnings: [],
        auditAnnotations: {},
        object: null,
        patch: [],
      } satisfies AdmitOutcome;
      write(io.stdout, output === 'json' ? [JSON.stringify(refused, null, 2)] : formatAdmitText(refused));
      return 1;
    }
    const namespace = requestNamespace(info, object);
    try {
      offline = buildOfflineChain({
        plugins: options.admission.plugins,
        gates,
        admissionConfig: startup.config,
        staticDirs: startup.staticDirs,
        manifests: manifests.objects,
        serviceResolver: options.admission.serviceResolver,
        cel,
        index,
        namespace: { name: namespace, labels: namespaceLabels },
      });
    } catch (err) {
      // the webhook clients read the kubeConfigFile now, as the server does when it starts
      throw new OfflineInputError([startupProblemLine((err as Error).message)]);
    }
    const groups = listValues(split, 'groups');
    const outcome = await admitOnce(
      offline,
      { staticDirs: startup.staticDirs, manifests: manifests.objects },
      {
        operation,
        info,
        object: decodedBody?.object ?? object,
        ...(oldObject ? { oldObject } : {}),
        decodeWarnings: decodedBody?.warnings ?? [],
        subresource: lastValue(split, 'subresource') ?? '',
        dryRun: lastValue(split, 'dry-run') === 'true',
        user: { username: lastValue(split, 'user') ?? 'kubernetes-admin', groups: split.own.has('groups') ? groups : ['system:masters', 'system:authenticated'] },
        namespace,
      },
    );
    if (output === 'json') write(io.stdout, [JSON.stringify(outcome, null, 2)]);
    else write(io.stdout, formatAdmitText(outcome));
    return outcome.allowed ? 0 : 1;
  } catch (err) {
    if (!(err instanceof OfflineInputError)) throw err;
    write(io.stderr, [...err.lines, ...(err.showUsage ? [`usage: ${admitUsage}`] : [])]);
    return 2;
  } finally {
    offline?.close();
  }
}
