// Credentials for calling webhooks, from the kubeconfig named by WebhookAdmissionConfiguration.kubeConfigFile:
// kube's webhook.AuthenticationInfoResolver (k8s.io/apiserver/pkg/util/webhook/authentication.go).
//
// A users[] entry is chosen by the webhook's host: the exact "host:port" (URL webhooks; "<svc>.<ns>.svc:<port>"
// for service webhooks), then "*.<domain suffix>" wildcards, then — when the port is 443 — the same two without
// the port, then the "*" user, then the current context's user; otherwise no credentials. Relative file paths
// are relative to the kubeconfig's directory, as clientcmd resolves them.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The credentials of one kubeconfig user, as rest.Config holds them. */
export interface WebhookCredentials {
  bearerToken?: string;
  /** re-read periodically, as client-go's cached file token source does */
  bearerTokenFile?: string;
  username?: string;
  password?: string;
  certData?: Buffer;
  certFile?: string;
  keyData?: Buffer;
  keyFile?: string;
  impersonate?: { userName: string; groups: string[]; extra: Record<string, string[]> };
}

export type CredentialsResult = { ok: true; credentials: WebhookCredentials } | { ok: false; error: string };

export interface AuthenticationInfoResolver {
  /** For URL webhooks: host:port of the URL (443 when it has no port). */
  clientConfigFor(hostPort: string): CredentialsResult;
  clientConfigForService(serviceName: string, serviceNamespace: string, servicePort: number): CredentialsResult;
}

/** clientcmdapi.AuthInfo, as the kubeconfig spells it. */
export interface KubeconfigAuthInfo {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  'auth-provider'?: unknown;
  exec?: unknown;
}

export interface Kubeconfig {
  users: Map<string, KubeconfigAuthInfo>;
  contexts: Map<string, { user?: string }>;
  currentContext: string;
  /** the directory relative paths are resolved against */
  dir: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's *PathError text for a failed open. */
export function goOpenError(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
  return `open ${file}: ${reason}`;
}

/** Parses kubeconfig text (YAML or JSON); throws an Error with clientcmd's wording when it cannot. */
export function parseKubeconfig(text: string, file: string): Kubeconfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`error loading config file "${file}": ${(e as Error).message.split('\n')[0]}`);
  }
  const root = isObject(doc) ? doc : {};
  const users = new Map<string, KubeconfigAuthInfo>();
  for (const u of Array.isArray(root['users']) ? root['users'] : []) {
    if (!isObject(u) || typeof u['name'] !== 'string') continue;
    users.set(u['name'], isObject(u['user']) ? (u['user'] as KubeconfigAuthInfo) : {});
  }
  const contexts = new Map<string, { user?: string }>();
  for (const c of Array.isArray(root['contexts']) ? root['contexts'] : []) {
    if (!isObject(c) || typeof c['name'] !== 'string') continue;
    const ctx = isObject(c['context']) ? c['context'] : {};
    contexts.set(c['name'], typeof ctx['user'] === 'string' ? { user: ctx['user'] } : {});
  }
  const currentContext = typeof root['current-context'] === 'string' ? root['current-context'] : '';
  return { users, contexts, currentContext, dir: path.dirname(path.resolve(file)) };
}

/** Reads the kubeconfig file; throws (a startup error) when it is missing or unreadable. */
export function loadKubeconfig(file: string): Kubeconfig {
  try {
    statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`stat ${file}: ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(goOpenError(file, e));
  }
  return parseKubeconfig(text, file);
}

const resolvePath = (dir: string, p: string): string => (p === '' || path.isAbsolute(p) ? p : path.join(dir, p));

function decodeData(field: string, value: string | undefined): Buffer | undefined {
  if (!value) return undefined;
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/.test(value)) throw new Error(`illegal base64 data in ${field}`);
  return Buffer.from(value, 'base64');
}

/** restConfigFromKubeconfig: a user's credentials, with kube's precedence (token over tokenFile). */
export function credentialsFromAuthInfo(info: KubeconfigAuthInfo, dir: string): CredentialsResult {
  const c: WebhookCredentials = {};
  try {
    if (info.token) {
      c.bearerToken = info.token;
      if (info.tokenFile) c.bearerTokenFile = resolvePath(dir, info.tokenFile);
    } else if (info.tokenFile) {
      const file = resolvePath(dir, info.tokenFile);
      try {
        c.bearerToken = readFileSync(file, 'utf8');
      } catch (e) {
        return { ok: false, error: goOpenError(file, e) };
      }
      c.bearerTokenFile = file;
    }
    if (info.as) {
      c.impersonate = { userName: info.as, groups: info['as-groups'] ?? [], extra: info['as-user-extra'] ?? {} };
    }
    if (info['client-certificate'] || info['client-certificate-data']) {
      if (info['client-certificate']) c.certFile = resolvePath(dir, info['client-certificate']);
      const certData = decodeData('client-certificate-data', info['client-certificate-data']);
      if (certData) c.certData = certData;
      if (info['client-key']) c.keyFile = resolvePath(dir, info['client-key']);
      const keyData = decodeData('client-key-data', info['client-key-data']);
      if (keyData) c.keyData = keyData;
    }
    if (info.username || info.password) {
      c.username = info.username ?? '';
      c.password = info.password ?? '';
    }
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  if (info.exec) return { ok: false, error: 'exec credential plugins are not supported by this apiserver' };
  if (info['auth-provider']) return { ok: false, error: 'auth provider not supported' };
  return { ok: true, credentials: c };
}

/** Go's net.SplitHostPort, enough for host:port and [v6]:port. */
function splitHostPort(hostPort: string): { host: string; port: string } | undefined {
  const m = /^\[([^\]]*)\]:([^:]*)$/.exec(hostPort) ?? /^([^:]*):([^:]*)$/.exec(hostPort);
  return m ? { host: m[1]!, port: m[2]! } : undefined;
}

/** net.JoinHostPort */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The resolver over a parsed kubeconfig (or none: every webhook is called without credentials). */
export function newAuthenticationInfoResolver(kubeconfig?: Kubeconfig): AuthenticationInfoResolver {
  const lookup = (target: string): CredentialsResult => {
    if (!kubeconfig) return { ok: true, credentials: {} };
    const { users } = kubeconfig;
    const found = (name: string): CredentialsResult | undefined => {
      const info = users.get(name);
      return info ? credentialsFromAuthInfo(info, kubeconfig.dir) : undefined;
    };
    const starPrefixed = (t: string): CredentialsResult | undefined => {
      const steps = t.split('.');
      for (let i = 1; i < steps.length; i++) {
        const r = found(`*.${steps.slice(i).join('.')}`);
        if (r) return r;
      }
      return undefined;
    };
    const exact = found(target) ?? starPrefixed(target);
    if (exact) return exact;
    // a target on the default https port is looked up again without the port
    const hp = splitHostPort(target);
    if (hp && hp.port === '443') {
      const noPort = found(hp.host) ?? starPrefixed(hp.host);
      if (noPort) return noPort;
    }
    const star = found('*');
    if (star) return star;
    if (kubeconfig.currentContext) {
      const user = kubeconfig.contexts.get(kubeconfig.currentContext)?.user;
      if (user) {
        const current = found(user);
        if (current) return current;
      }
    }
    return { ok: true, credentials: {} };
  };
  return {
    clientConfigFor: (hostPort) => lookup(hostPort),
    clientConfigForService: (name, namespace, port) => lookup(joinHostPort(`${name}.${namespace}.svc`, port)),
  };
}
