// `{{webhooks.guard.url}}`-style references in scenario strings. Parsing and substitution are pure; what a reference
// stands for (a port, a URL, a CA bundle) comes from the running scenario through a lookup function.

export type TemplateRef =
  | { kind: 'webhook'; name: string; field: 'url' | 'caBundle' | 'port' | 'host' }
  | { kind: 'dir'; name: string }
  | { kind: 'port'; name: string }
  | { kind: 'tls'; field: 'caBundle' | 'caFile' | 'certFile' | 'keyFile' }
  | { kind: 'env'; name: string }
  | { kind: 'tempDir' }
  | { kind: 'scenarioDir' }
  | { kind: 'apiserver'; name: string | undefined; field: 'url' | 'kubeconfig' | 'caBundle' | 'caFile' }
  | { kind: 'etcd'; field: 'endpoint' };

const templatePattern = /\{\{\s*([^{}]*?)\s*\}\}/g;
const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const envPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

const webhookFields = ['url', 'caBundle', 'port', 'host'] as const;
const tlsFields = ['caBundle', 'caFile', 'certFile', 'keyFile'] as const;
const apiserverFields = ['url', 'kubeconfig', 'caBundle', 'caFile'] as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[]): value is T {
  return value !== undefined && (allowed as readonly string[]).includes(value);
}

/** The reference an expression names, or why it names none. Pure. */
export function parseTemplateRef(expr: string): TemplateRef | { error: string } {
  const parts = expr.split('.');
  const [head, a, b] = parts;
  const bad = (why: string): { error: string } => ({ error: `{{${expr}}}: ${why}` });
  switch (head) {
    case 'webhooks':
      if (parts.length !== 3 || !a || !namePattern.test(a)) return bad('expected webhooks.NAME.url|caBundle|port|host');
      if (!oneOf(b, webhookFields)) return bad(`unknown field ${JSON.stringify(b)}; expected one of ${webhookFields.join(', ')}`);
      return { kind: 'webhook', name: a, field: b };
    case 'dirs':
      if (parts.length !== 2 || !a || !namePattern.test(a)) return bad('expected dirs.NAME');
      return { kind: 'dir', name: a };
    case 'ports':
      if (parts.length !== 2 || !a || !namePattern.test(a)) return bad('expected ports.NAME');
      return { kind: 'port', name: a };
    case 'tls':
      if (parts.length !== 2 || !oneOf(a, tlsFields)) return bad(`expected tls.${tlsFields.join('|')}`);
      return { kind: 'tls', field: a };
    case 'env':
      if (parts.length !== 2 || !a || !envPattern.test(a)) return bad('expected env.NAME');
      return { kind: 'env', name: a };
    case 'tempDir':
    case 'scenarioDir':
      if (parts.length !== 1) return bad(`expected {{${head}}}`);
      return { kind: head };
    case 'apiserver':
      if (parts.length !== 2 || !oneOf(a, apiserverFields)) return bad(`expected apiserver.${apiserverFields.join('|')}`);
      return { kind: 'apiserver', name: undefined, field: a };
    case 'apiservers':
      if (parts.length !== 3 || !a || !namePattern.test(a)) return bad(`expected apiservers.NAME.${apiserverFields.join('|')}`);
      if (!oneOf(b, apiserverFields)) return bad(`unknown field ${JSON.stringify(b)}; expected one of ${apiserverFields.join(', ')}`);
      return { kind: 'apiserver', name: a, field: b };
    case 'etcd':
      if (parts.length !== 2 || a !== 'endpoint') return bad('expected etcd.endpoint');
      return { kind: 'etcd', field: 'endpoint' };
    default:
      return bad('unknown template; expected webhooks.*, dirs.*, ports.*, tls.*, env.*, apiserver(s).*, etcd.endpoint, tempDir or scenarioDir');
  }
}

/** Every `{{…}}` expression in a string. */
export function templateExpressions(text: string): string[] {
  return [...text.matchAll(templatePattern)].map((m) => m[1]!);
}

/** Every string inside a value (object keys excluded), with its path, for checks over a whole document. */
export function* stringsIn(value: unknown, path = ''): Generator<{ path: string; text: string }> {
  if (typeof value === 'string') yield { path, text: value };
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* stringsIn(value[i], `${path}[${i}]`);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* stringsIn(v, path === '' ? k : `${path}.${k}`);
  }
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

export type TemplateLookup = (ref: TemplateRef, expr: string) => string;

/** The string with every `{{…}}` replaced; throws TemplateError naming the first reference that cannot be resolved. */
export function resolveTemplateString(text: string, lookup: TemplateLookup): string {
  return text.replace(templatePattern, (_all, expr: string) => {
    const ref = parseTemplateRef(expr);
    if ('error' in ref) throw new TemplateError(ref.error);
    return lookup(ref, expr);
  });
}

/** A deep copy with every string's templates resolved (object keys too, so `files` paths may use them). */
export function resolveTemplates<T>(value: T, lookup: TemplateLookup): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return resolveTemplateString(v, lookup);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [resolveTemplateString(k, lookup), walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
