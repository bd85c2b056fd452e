// --authorization-mode=ABAC (pkg/auth/authorizer/abac): one Policy per line of --authorization-policy-file,
// abac.authorization.kubernetes.io/v1beta1 or the unversioned v0 form, converted and matched exactly as kube
// does, including its quirks (an empty namespace matches only cluster-scoped requests, subresources are not
// looked at, readonly means get/list/watch).
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../api/types.js';
import { goPathErrorMessage } from '../options/go-fs-errors.js';
import { allAuthenticated } from '../authn/types.js';
import { isReadOnly, type AuthorizationAttributes, type AuthorizationDecision, type Authorizer, type NonResourceRule, type ResourceRule, type RuleResolver, type RulesResult } from './types.js';

export const abacGroup = 'abac.authorization.kubernetes.io';

/** The internal abac.PolicySpec every version converts to. */
export interface AbacPolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

export interface AbacPolicy {
  spec: AbacPolicySpec;
  /** the file line, for logs */
  line: number;
}

export type AbacPolicyFileResult = { ok: true; policies: AbacPolicy[]; warnings: string[] } | { ok: false; error: string };

class LineError {
  constructor(readonly message: string) {}
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null';
  return typeof v;
}

function field(obj: Record<string, unknown>, name: string, struct: string, path: string, type: 'string', zero: string): string;
function field(obj: Record<string, unknown>, name: string, struct: string, path: string, type: 'bool', zero: boolean): boolean;
function field(obj: Record<string, unknown>, name: string, struct: string, path: string, type: 'string' | 'bool', zero: string | boolean): string | boolean {
  const v = obj[name];
  if (v === undefined || v === null) return zero;
  if ((type === 'string' && typeof v !== 'string') || (type === 'bool' && typeof v !== 'boolean')) {
    throw new LineError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${path} of type ${type}`);
  }
  return v as string | boolean;
}

/** v0 → internal: empty user and group mean every authenticated user, empty namespace/resource mean all. */
function fromV0(obj: Record<string, unknown>): AbacPolicySpec {
  const user = field(obj, 'user', 'Policy', 'user', 'string', '');
  const group = field(obj, 'group', 'Policy', 'group', 'string', '');
  const namespace = field(obj, 'namespace', 'Policy', 'namespace', 'string', '');
  const resource = field(obj, 'resource', 'Policy', 'resource', 'string', '');
  const spec: AbacPolicySpec = {
    user,
    group,
    readonly: field(obj, 'readonly', 'Policy', 'readonly', 'bool', false),
    namespace: namespace === '' ? '*' : namespace,
    resource: resource === '' ? '*' : resource,
    apiGroup: '*',
    nonResourcePath: namespace === '' && resource === '' ? '*' : '',
  };
  if (user === '' && group === '') spec.group = allAuthenticated;
  if (user === '*' || group === '*') {
    spec.group = allAuthenticated;
    spec.user = '';
  }
  return spec;
}

/** v1beta1 → internal: "*" as user or group means every authenticated user. */
function fromV1beta1(obj: Record<string, unknown>): AbacPolicySpec {
  const raw = obj['spec'];
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new LineError(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field Policy.spec of type v1beta1.PolicySpec`);
  }
  const s = (raw ?? {}) as Record<string, unknown>;
  const str = (name: string) => field(s, name, 'PolicySpec', `spec.${name}`, 'string', '');
  const spec: AbacPolicySpec = {
    user: str('user'),
    group: str('group'),
    readonly: field(s, 'readonly', 'PolicySpec', 'spec.readonly', 'bool', false),
    apiGroup: str('apiGroup'),
    resource: str('resource'),
    namespace: str('namespace'),
    nonResourcePath: str('nonResourcePath'),
  };
  if (spec.user === '*' || spec.group === '*') {
    spec.group = allAuthenticated;
    spec.user = '';
  }
  return spec;
}

function decodeLine(line: string): { spec: AbacPolicySpec; unversioned: boolean } {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch (err) {
    throw new LineError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new LineError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(obj)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const o = obj as Record<string, unknown>;
  const apiVersion = field(o, 'apiVersion', '', 'apiVersion', 'string', '');
  const kind = field(o, 'kind', '', 'kind', 'string', '');
  // Lines without apiVersion are the unversioned (v0) form, which kube migrates with a warning.
  if (apiVersion === '') return { spec: fromV0(o), unversioned: true };
  if (kind === '') throw new LineError(`Object 'Kind' is missing in '${line}'`);
  if (kind === 'Policy' && apiVersion === `${abacGroup}/v1beta1`) return { spec: fromV1beta1(o), unversioned: false };
  if (kind === 'Policy' && apiVersion === `${abacGroup}/v0`) return { spec: fromV0(o), unversioned: false };
  throw new LineError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/apis/abac"`);
}

/** abac.NewFromFile over the file's text: blank and # lines skipped, the first bad line fails the file. */
export function parseAbacPolicyFile(text: string, path: string): AbacPolicyFileResult {
  const policies: AbacPolicy[] = [];
  let unversioned = 0;
  const lines = text.split('\n');
  // A final newline does not make an extra line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      const d = decodeLine(raw);
      if (d.unversioned) unversioned++;
      policies.push({ spec: d.spec, line: i + 1 });
    } catch (err) {
      if (err instanceof LineError) return { ok: false, error: `error reading policy file ${path}, line ${i + 1}: ${raw}: ${err.message}` };
      throw err;
    }
  }
  const warnings =
    unversioned > 0 ? [`Policy file ${path} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.`] : [];
  return { ok: true, policies, warnings };
}

export async function loadAbacPolicyFile(path: string): Promise<AbacPolicyFileResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    return { ok: false, error: goPathErrorMessage(err, path) };
  }
  return parseAbacPolicyFile(text, path);
}

function subjectMatches(p: AbacPolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user.length > 0) {
    if (p.user === '*') matched = true;
    else {
      matched = p.user === user.username;
      if (!matched) return false;
    }
  }
  if (p.group.length > 0) {
    if (p.group === '*') matched = true;
    else {
      matched = (user.groups ?? []).includes(p.group);
      if (!matched) return false;
    }
  }
  return matched;
}

function verbMatches(p: AbacPolicySpec, a: AuthorizationAttributes): boolean {
  // All policies allow read-only requests; a readonly policy allows nothing else.
  return isReadOnly(a.verb) || !p.readonly;
}

function resourceMatches(p: AbacPolicySpec, a: AuthorizationAttributes): boolean {
  if (!a.resourceRequest) return false;
  return (
    (p.namespace === '*' || p.namespace === (a.namespace ?? '')) &&
    (p.resource === '*' || p.resource === (a.resource ?? '')) &&
    (p.apiGroup === '*' || p.apiGroup === (a.apiGroup ?? ''))
  );
}

function nonResourceMatches(p: AbacPolicySpec, a: AuthorizationAttributes): boolean {
  if (a.resourceRequest) return false;
  const path = a.path ?? '';
  if (p.nonResourcePath === '*' || p.nonResourcePath === path) return true;
  // A trailing * is a prefix match: "/apis/*" allows "/apis/apps".
  return p.nonResourcePath.endsWith('*') && path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

export function abacPolicyMatches(p: AbacPolicySpec, a: AuthorizationAttributes): boolean {
  return subjectMatches(p, a.user) && verbMatches(p, a) && (resourceMatches(p, a) || nonResourceMatches(p, a));
}

const verbsFor = (readonly: boolean): string[] => (readonly ? ['get', 'list', 'watch'] : ['*']);

export class AbacAuthorizer implements Authorizer, RuleResolver {
  private readonly policies: readonly AbacPolicy[];
  constructor(policies: readonly AbacPolicy[]) {
    this.policies = Object.freeze([...policies]);
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    for (const p of this.policies) if (abacPolicyMatches(p.spec, attrs)) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: 'No policy matched.' };
  }

  /** PolicyList.RulesFor: every policy whose subject and namespace match, as one rule each. */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const { spec: p } of this.policies) {
      if (!subjectMatches(p, user)) continue;
      if (p.namespace !== '*' && p.namespace !== namespace) continue;
      if (p.resource.length > 0) resourceRules.push({ verbs: verbsFor(p.readonly), apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath.length > 0) nonResourceRules.push({ verbs: verbsFor(p.readonly), nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
