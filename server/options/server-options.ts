// kube-apiserver's command line, for the flags this apiserver supports: parsed with pflag's rules and texts,
// then validated as kube-apiserver's options Validate() functions do. Errors are values; the caller prints
// them one per line and exits 1.
import { isIP } from 'node:net';
import { enabledAdmissionPlugins, validateAdmissionPluginFlags } from './admission-plugins.js';
import { defaultFeatureGates, featureGatesHelp, parseFeatureGates, type FeatureGates } from './feature-gates.js';
import { FlagSet } from './flagset.js';
import { readFlagCsv } from './go-csv.js';
import { parseGoDuration } from '../endpoints/query-options.js';
import { goQuote, goQuoteList, parseGoBool, parseGoInt } from './go-strconv.js';
import { defineIgnoredKubeFlags } from './ignored-flags.js';
import { deepFreeze } from '../api/deep-freeze.js';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'RBAC' | 'Node';
export const supportedAuthorizationModes: readonly AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node'];
/** Modes kube-apiserver knows that this apiserver does not implement. */
const kubeOnlyAuthorizationModes = ['Webhook'];

export type StorageBackend = 'etcd3' | 'memory';

/**
 * One --webhook-service-resolver entry: webhooks whose clientConfig.service is namespace/name (and port, default
 * 443 as in the API) are called at host:hostPort, because this apiserver has no cluster DNS to resolve
 * <name>.<namespace>.svc. Only the address changes: the serving certificate is to be verified for
 * <name>.<namespace>.svc, the name kube-apiserver verifies for service references.
 */
export interface WebhookServiceMapping {
  namespace: string;
  name: string;
  /** clientConfig.service.port this entry answers for */
  port: number;
  host: string;
  hostPort: number;
}

/** Grouped as kube-apiserver's ServerRunOptions: one section per options struct. */
export interface ServerOptions {
  secureServing: {
    /** 0 = let the OS pick a free port */
    port: number;
    bindAddress: string;
    /** where the generated CA, serving and admin certificates live (and are reused from) */
    certDir: string;
    /** both set: serve with these instead of the generated serving certificate */
    certFile?: string;
    keyFile?: string;
  };
  authentication: {
    /** x509 client-certificate authentication is on when set */
    clientCAFile?: string;
    tokenAuthFile?: string;
    anonymous: boolean;
    /** --service-account-issuer: the first issues TokenRequest tokens */
    serviceAccountIssuers: string[];
    /** --service-account-signing-key-file; unset, a key generated in --cert-dir signs */
    serviceAccountSigningKeyFile?: string;
    /** --api-audiences; unset, the issuers are the audiences (as kube defaults them) */
    apiAudiences: string[];
    /** --service-account-key-file; empty: the signing key verifies (kube defaults the flag to it) */
    serviceAccountKeyFiles: string[];
    /** --service-account-lookup: tokens of deleted service accounts (and bound objects) stop authenticating */
    serviceAccountLookup: boolean;
    /** --service-account-jwks-uri; unset, https://<advertise address>:<port>/openid/v1/jwks */
    serviceAccountJwksUri?: string;
  };
  /** --advertise-address; unset, the bind address (127.0.0.1 when that is a wildcard) */
  advertiseAddress?: string;
  /** kube-apiserver flags given that this apiserver accepts and ignores, in the order given */
  ignoredFlags: string[];
  authorization: {
    modes: AuthorizationMode[];
    policyFile?: string;
  };
  etcd: {
    storageBackend: StorageBackend;
    servers: string[];
    prefix: string;
    /** --etcd-healthcheck-timeout and --etcd-readycheck-timeout (kube's defaults: 2 s; 0 means the default) */
    healthcheckTimeoutMs: number;
    readycheckTimeoutMs: number;
  };
  admission: {
    enablePlugins: string[];
    disablePlugins: string[];
    /** the effective plugins, in kube's recommended order (not-implemented ones are no-ops) */
    plugins: string[];
    configFile?: string;
    /** --webhook-service-resolver, in flag order */
    serviceResolver: WebhookServiceMapping[];
  };
  featureGates: FeatureGates;
  audit: { logPath?: string };
  /** klog --v */
  verbosity: number;
  /** write an admin kubeconfig here once serving */
  writeKubeconfig?: string;
  /** --admission-coverage: record admission coverage and write it to this file */
  admissionCoverage?: string;
  /** --external-hostname: the host of the URL in that kubeconfig (and a name the generated serving cert covers) */
  externalHostname?: string;
  /** --help was given: print usage() and exit 0; nothing else is validated */
  help: boolean;
}

export type ServerOptionsResult = { ok: true; options: ServerOptions; warnings: string[] } | { ok: false; errors: string[] };

/** Mutable state the flags write into before validation freezes it into ServerOptions. */
interface RawOptions {
  securePort: number;
  bindAddress: string;
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  clientCAFile: string;
  tokenAuthFile: string;
  anonymousAuth: boolean;
  serviceAccountIssuers: string[];
  serviceAccountSigningKeyFile: string;
  apiAudiences: string[];
  serviceAccountKeyFiles: string[];
  serviceAccountLookup: boolean;
  serviceAccountJwksUri: string;
  advertiseAddress: string;
  ignoredFlags: string[];
  authorizationModes: string[];
  authorizationPolicyFile: string;
  storageBackend: string;
  etcdServers: string[];
  etcdPrefix: string;
  /** nanoseconds, as pflag's DurationVar holds them */
  etcdHealthcheckTimeout: bigint;
  etcdReadycheckTimeout: bigint;
  featureGates: FeatureGates;
  enablePlugins: string[];
  disablePlugins: string[];
  admissionControlConfigFile: string;
  webhookServiceResolver: WebhookServiceMapping[];
  auditLogPath: string;
  verbosity: number;
  writeKubeconfig: string;
  admissionCoverage: string;
  externalHostname: string;
  help: boolean;
}

function defaults(): RawOptions {
  return {
    securePort: 6443,
    // kube-apiserver binds 0.0.0.0; a test tool should not expose itself to the network unless asked to.
    bindAddress: '127.0.0.1',
    certDir: 'certs/generated',
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    clientCAFile: '',
    tokenAuthFile: '',
    anonymousAuth: true,
    // kube-apiserver requires the flag; this default is the issuer kubeadm and kind clusters use
    serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
    serviceAccountSigningKeyFile: '',
    apiAudiences: [],
    serviceAccountKeyFiles: [],
    serviceAccountLookup: true,
    serviceAccountJwksUri: '',
    advertiseAddress: '',
    ignoredFlags: [],
    // kube-apiserver defaults to AlwaysAllow too when no mode is given; clusters set Node,RBAC.
    authorizationModes: ['AlwaysAllow'],
    authorizationPolicyFile: '',
    storageBackend: '',
    etcdServers: [],
    etcdPrefix: '/registry',
    etcdHealthcheckTimeout: 2_000_000_000n,
    etcdReadycheckTimeout: 2_000_000_000n,
    featureGates: defaultFeatureGates(),
    enablePlugins: [],
    disablePlugins: [],
    admissionControlConfigFile: '',
    webhookServiceResolver: [],
    auditLogPath: '',
    verbosity: 0,
    writeKubeconfig: '',
    admissionCoverage: '',
    externalHostname: '',
    help: false,
  };
}

/** pflag's stringSlice: the first use replaces the default, later uses append. */
function stringSlice(get: () => string[], put: (v: string[]) => void): (value: string) => string | undefined {
  let changed = false;
  return (value) => {
    const r = readFlagCsv(value);
    if (!r.ok) return r.error;
    put(changed ? [...get(), ...r.values] : r.values);
    changed = true;
    return undefined;
  };
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/u;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/u;
const hostname = /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/u;

/** A TCP port in decimal, 1..65535. */
function parsePort(s: string): number | undefined {
  if (!/^\d{1,5}$/u.test(s)) return undefined;
  const n = Number(s);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** One `namespace/name[:port]=host:port` entry of --webhook-service-resolver. */
export function parseWebhookServiceMapping(entry: string): { ok: true; mapping: WebhookServiceMapping } | { ok: false; error: string } {
  const bad = (why: string) => ({ ok: false as const, error: `${goQuote(entry)}: ${why}` });
  const eq = entry.indexOf('=');
  if (eq < 0) return bad('want namespace/name[:port]=host:port');
  const service = entry.slice(0, eq);
  const target = entry.slice(eq + 1);

  const slash = service.indexOf('/');
  if (slash < 0) return bad('want namespace/name[:port] before "="');
  const namespace = service.slice(0, slash);
  let name = service.slice(slash + 1);
  let port = 443;
  const colon = name.indexOf(':');
  if (colon >= 0) {
    const p = parsePort(name.slice(colon + 1));
    if (p === undefined) return bad(`service port ${goQuote(name.slice(colon + 1))} must be a number between 1 and 65535`);
    port = p;
    name = name.slice(0, colon);
  }
  if (namespace.length > 63 || !dns1123Label.test(namespace)) return bad(`namespace ${goQuote(namespace)} must be a DNS-1123 label`);
  if (name.length > 63 || !dns1035Label.test(name)) return bad(`service name ${goQuote(name)} must be a DNS-1035 label`);

  let host: string;
  let hostPortText: string;
  if (target.startsWith('[')) {
    const close = target.indexOf(']');
    if (close < 0 || target[close + 1] !== ':') return bad('want [IPv6 address]:port after "="');
    host = target.slice(1, close);
    hostPortText = target.slice(close + 2);
    if (isIP(host) !== 6) return bad(`${goQuote(host)} is not an IPv6 address`);
  } else {
    const c = target.lastIndexOf(':');
    if (c < 0) return bad('want host:port after "="');
    host = target.slice(0, c);
    hostPortText = target.slice(c + 1);
    if (host.includes(':')) return bad('an IPv6 host must be in brackets, as in [::1]:8443');
    if (host === '' || (isIP(host) === 0 && (host.length > 253 || !hostname.test(host)))) return bad(`host ${goQuote(host)} is not an IP address or DNS name`);
  }
  const hostPort = parsePort(hostPortText);
  if (hostPort === undefined) return bad(`port ${goQuote(hostPortText)} must be a number between 1 and 65535`);
  return { ok: true, mapping: { namespace, name, port, host, hostPort } };
}

function buildFlagSet(o: RawOptions, warnings: string[]): FlagSet {
  const fs = new FlagSet();
  const str = (name: string, usage: string, key: { [K in keyof RawOptions]: RawOptions[K] extends string ? K : never }[keyof RawOptions]) =>
    fs.define({
      name,
      usage,
      type: 'string',
      defValue: o[key],
      set: (v) => {
        o[key] = v;
        return undefined;
      },
    });

  fs.define({
    name: 'secure-port',
    type: 'int',
    defValue: String(o.securePort),
    usage: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port (printed at startup).',
    set: (v) => {
      const r = parseGoInt(v, 0, 64);
      if (!r.ok) return r.error;
      o.securePort = r.value;
      return undefined;
    },
  });
  fs.define({
    name: 'bind-address',
    type: 'ip',
    defValue: o.bindAddress,
    usage: 'The IP address on which to listen for the --secure-port port. Defaults to 127.0.0.1 (kube-apiserver: 0.0.0.0).',
    set: (v) => {
      // pflag's ipValue ignores an empty value.
      if (v === '') return undefined;
      const ip = v.trim();
      if (isIP(ip) === 0 || ip.includes('%')) return `failed to parse IP: ${goQuote(v)}`;
      o.bindAddress = ip;
      return undefined;
    },
  });
  str('cert-dir', 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored for serving.', 'certDir');
  str('tls-cert-file', 'File containing the default x509 Certificate for HTTPS. If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated in --cert-dir.', 'tlsCertFile');
  str('tls-private-key-file', 'File containing the default x509 private key matching --tls-cert-file.', 'tlsPrivateKeyFile');
  str('client-ca-file', 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate.', 'clientCAFile');
  str('token-auth-file', 'If set, the file that will be used to secure the secure port of the API server via token authentication.', 'tokenAuthFile');
  fs.define({
    name: 'anonymous-auth',
    type: 'bool',
    defValue: String(o.anonymousAuth),
    noOptDefVal: 'true',
    usage: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated. Ignored (reset to false, with a warning) while --authorization-mode includes AlwaysAllow, the default, as kube-apiserver does.',
    set: (v) => {
      const r = parseGoBool(v);
      if (!r.ok) return r.error;
      o.anonymousAuth = r.value;
      return undefined;
    },
  });
  fs.define({
    name: 'service-account-issuer',
    type: 'strings',
    defValue: `[${o.serviceAccountIssuers.join(',')}]`,
    usage: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. When this flag is specified multiple times, the first is used to generate tokens.',
    set: stringSlice(
      () => o.serviceAccountIssuers,
      (v) => (o.serviceAccountIssuers = v),
    ),
  });
  str('service-account-signing-key-file', 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. Unset, a key generated in --cert-dir is used.', 'serviceAccountSigningKeyFile');
  fs.define({
    name: 'api-audiences',
    type: 'strings',
    defValue: '[]',
    usage: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the first --service-account-issuer is used.',
    set: stringSlice(
      () => o.apiAudiences,
      (v) => (o.apiAudiences = v),
    ),
  });
  fs.define({
    name: 'service-account-key-file',
    type: 'stringArray',
    defValue: '[]',
    usage:
      'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the service account signing key is used.',
    set: (v) => {
      // pflag's stringArray: no CSV splitting; the first use replaces the default
      o.serviceAccountKeyFiles = [...o.serviceAccountKeyFiles, v];
      return undefined;
    },
  });
  fs.define({
    name: 'service-account-lookup',
    type: 'bool',
    defValue: String(o.serviceAccountLookup),
    noOptDefVal: 'true',
    usage: 'If true, validate ServiceAccount tokens exist in etcd as part of authentication.',
    set: (v) => {
      const r = parseGoBool(v);
      if (!r.ok) return r.error;
      o.serviceAccountLookup = r.value;
      return undefined;
    },
  });
  str(
    'service-account-jwks-uri',
    'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. This flag is useful if the discovery doc and key set are served to relying parties from a URL other than the API server\'s external (as auto-detected or overridden with external-hostname).',
    'serviceAccountJwksUri',
  );
  fs.define({
    name: 'advertise-address',
    type: 'ip',
    defValue: '',
    usage: 'The IP address on which to advertise the apiserver to members of the cluster: here, the host of the default jwks_uri. If blank, the --bind-address will be used (127.0.0.1 when it is unspecified).',
    set: (v) => {
      if (v === '') return undefined;
      const ip = v.trim();
      if (isIP(ip) === 0 || ip.includes('%')) return `failed to parse IP: ${goQuote(v)}`;
      o.advertiseAddress = ip;
      return undefined;
    },
  });
  defineIgnoredKubeFlags(fs, (name) => {
    if (!o.ignoredFlags.includes(name)) o.ignoredFlags.push(name);
  });
  fs.define({
    name: 'authorization-mode',
    type: 'strings',
    defValue: `[${o.authorizationModes.join(',')}]`,
    usage: 'Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,RBAC,Node. Node is accepted (as in the usual Node,RBAC) but decides nothing: every request falls through to the next mode.',
    set: stringSlice(
      () => o.authorizationModes,
      (v) => (o.authorizationModes = v),
    ),
  });
  str('authorization-policy-file', 'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.', 'authorizationPolicyFile');
  str('storage-backend', "The storage backend for persistence. Options: 'etcd3', 'memory'. Defaults to 'etcd3' when --etcd-servers is set, else 'memory'.", 'storageBackend');
  fs.define({
    name: 'etcd-servers',
    type: 'strings',
    defValue: '[]',
    usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated.',
    set: stringSlice(
      () => o.etcdServers,
      (v) => (o.etcdServers = v),
    ),
  });
  str('etcd-prefix', 'The prefix to prepend to all resource paths in etcd.', 'etcdPrefix');
  const duration = (name: string, usage: string, key: 'etcdHealthcheckTimeout' | 'etcdReadycheckTimeout') =>
    fs.define({
      name,
      usage,
      type: 'duration',
      defValue: '2s',
      set: (v) => {
        // Go's time.ParseDuration, with its error texts
        const d = parseGoDuration(v);
        if (!d.ok) return d.error;
        o[key] = d.value;
        return undefined;
      },
    });
  duration('etcd-healthcheck-timeout', 'The timeout to use when checking etcd health.', 'etcdHealthcheckTimeout');
  duration('etcd-readycheck-timeout', 'The timeout to use when checking etcd readiness', 'etcdReadycheckTimeout');
  fs.define({
    name: 'feature-gates',
    type: 'mapStringBool',
    defValue: '',
    usage: `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${featureGatesHelp().join('\n')}`,
    set: (v) => {
      const r = parseFeatureGates(v, o.featureGates);
      if (!r.ok) return r.error;
      o.featureGates = r.gates;
      warnings.push(...r.warnings);
      return undefined;
    },
  });
  fs.define({
    name: 'enable-admission-plugins',
    type: 'strings',
    defValue: '[]',
    usage: 'admission plugins that should be enabled in addition to default enabled ones. The order of plugins in this flag does not matter.',
    set: stringSlice(
      () => o.enablePlugins,
      (v) => (o.enablePlugins = v),
    ),
  });
  fs.define({
    name: 'disable-admission-plugins',
    type: 'strings',
    defValue: '[]',
    usage: 'admission plugins that should be disabled although they are in the default enabled plugins list. The order of plugins in this flag does not matter.',
    set: stringSlice(
      () => o.disablePlugins,
      (v) => (o.disablePlugins = v),
    ),
  });
  str('admission-control-config-file', 'File with admission control configuration.', 'admissionControlConfigFile');
  let resolverChanged = false;
  fs.define({
    name: 'webhook-service-resolver',
    type: 'strings',
    defValue: '[]',
    usage:
      'Where to call webhooks whose clientConfig names a service, since this apiserver has no cluster DNS: a comma-separated list of namespace/name[:port]=host:port ' +
      '(port defaults to 443, as in clientConfig.service; IPv6 hosts in brackets), e.g. webhooks/policy-webhook=127.0.0.1:8443. Not a kube-apiserver flag.',
    set: (v) => {
      const r = readFlagCsv(v);
      if (!r.ok) return r.error;
      const mappings: WebhookServiceMapping[] = [];
      const errs: string[] = [];
      for (const entry of r.values) {
        const m = parseWebhookServiceMapping(entry);
        if (m.ok) mappings.push(m.mapping);
        else errs.push(m.error);
      }
      if (errs.length) return errs.join('; ');
      // pflag's stringSlice: the first use replaces the default, later uses append.
      o.webhookServiceResolver = resolverChanged ? [...o.webhookServiceResolver, ...mappings] : mappings;
      resolverChanged = true;
      return undefined;
    },
  });
  str('audit-log-path', 'If set, all requests coming to the apiserver will be logged to this file. \'-\' means standard out.', 'auditLogPath');
  fs.define({
    name: 'v',
    shorthand: 'v',
    type: 'Level',
    defValue: '0',
    usage: 'number for the log level verbosity',
    set: (v) => {
      // klog's Level.Set parses base 10, 32 bits.
      const r = parseGoInt(v, 10, 32);
      if (!r.ok) return r.error;
      o.verbosity = r.value;
      return undefined;
    },
  });
  // kube-apiserver's text (k8s.io/apiserver/pkg/server/options/server_run_options.go); here the externalized URL
  // is the server of the --write-kubeconfig kubeconfig, e.g. https://apiserver:6443 for other compose services.
  str('external-hostname', 'The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery). Here: the server of the --write-kubeconfig kubeconfig, https://<external-hostname>:<secure-port>.', 'externalHostname');
  str('write-kubeconfig', 'Write an admin kubeconfig (client certificate of kubernetes-admin, system:masters) to this path once serving. Not a kube-apiserver flag.', 'writeKubeconfig');
  str(
    'admission-coverage',
    'Record which webhooks and admission policies each request matched and what they decided, serve it at /debug/admission-coverage and write it to this JSON file (every 2 s while it changes, and on shutdown). Not a kube-apiserver flag.',
    'admissionCoverage',
  );
  fs.define({
    name: 'help',
    shorthand: 'h',
    type: 'bool',
    defValue: 'false',
    noOptDefVal: 'true',
    usage: 'help for kube-apiserver',
    set: (v) => {
      const r = parseGoBool(v);
      if (!r.ok) return r.error;
      o.help = r.value;
      return undefined;
    },
  });
  return fs;
}

/** --help text in cobra's layout. */
export function serverOptionsUsage(commandPath = 'kube-apiserver'): string {
  const fs = buildFlagSet(defaults(), []);
  return `Usage:\n  ${commandPath} [flags]\n\nFlags:\n${fs.usages()}\n`;
}

/** The cross-flag checks of kube-apiserver's options Validate(), each with kube's text where kube has one. */
function validate(o: RawOptions): string[] {
  const errs: string[] = [];
  // SecureServingOptions.Validate; 0 is allowed here and means "pick a free port".
  if (o.securePort < 0 || o.securePort > 65535) {
    errs.push(`--secure-port ${o.securePort} must be between 0 and 65535, inclusive. 0 for picking a free port`);
  }
  // dynamiccertificates.NewDynamicServingContentFromFiles
  if ((o.tlsCertFile === '') !== (o.tlsPrivateKeyFile === '')) errs.push('missing filename for serving cert');

  // BuiltInAuthorizationOptions.Validate
  const modes = o.authorizationModes;
  if (modes.length === 0) errs.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (kubeOnlyAuthorizationModes.includes(mode)) {
      errs.push(`authorization-mode ${goQuote(mode)} is not supported by this apiserver (supported: ${supportedAuthorizationModes.join(', ')})`);
    } else if (!(supportedAuthorizationModes as readonly string[]).includes(mode)) {
      errs.push(`authorization-mode ${goQuote(mode)} is not a valid mode`);
    }
    if (mode === 'ABAC' && o.authorizationPolicyFile === '') errs.push("authorization-mode ABAC's authorization policy file not passed");
  }
  if (o.authorizationPolicyFile !== '' && !modes.includes('ABAC')) errs.push('cannot specify --authorization-policy-file without mode ABAC');
  if (new Set(modes).size !== modes.length) errs.push(`authorization-mode ${goQuoteList(modes)} has mode specified more than once`);

  // ServiceAccountAuthenticationOptions.Validate
  const seenIssuers = new Set<string>();
  for (const issuer of o.serviceAccountIssuers) {
    if (issuer.includes(':') && !URL.canParse(issuer)) errs.push(`service-account-issuer contained a ':' but was not a valid URL: ${issuer}`);
    if (seenIssuers.has(issuer)) errs.push(`service-account-issuer ${goQuote(issuer)} is already specified`);
    seenIssuers.add(issuer);
  }
  if (o.serviceAccountIssuers.length === 0 || o.serviceAccountIssuers[0] === '') errs.push('service-account-issuer is a required flag');
  if (o.serviceAccountJwksUri !== '') {
    if (!URL.canParse(o.serviceAccountJwksUri)) errs.push(`service-account-jwks-uri must be a valid URL: ${o.serviceAccountJwksUri}`);
    else if (new URL(o.serviceAccountJwksUri).protocol !== 'https:') errs.push('service-account-jwks-uri requires https scheme');
  }

  // EtcdOptions.Validate
  if (o.storageBackend !== '' && o.storageBackend !== 'etcd3' && o.storageBackend !== 'memory') {
    errs.push("--storage-backend invalid, allowed values: etcd3, memory. If not specified, it will default to 'etcd3' when --etcd-servers is set, else 'memory'");
  }
  if (o.storageBackend === 'etcd3' && o.etcdServers.length === 0) errs.push('--etcd-servers must be specified');

  // AdmissionOptions.Validate
  errs.push(...validateAdmissionPluginFlags(o.enablePlugins, o.disablePlugins));
  const seenServices = new Set<string>();
  for (const m of o.webhookServiceResolver) {
    const key = `${m.namespace}/${m.name}:${m.port}`;
    if (seenServices.has(key)) errs.push(`--webhook-service-resolver maps service ${key} more than once`);
    seenServices.add(key);
  }
  return errs;
}

function freeze(o: RawOptions): ServerOptions {
  const opt = <T>(v: T | ''): T | undefined => (v === '' ? undefined : (v as T));
  const storageBackend: StorageBackend = o.storageBackend === 'etcd3' || o.storageBackend === 'memory' ? o.storageBackend : o.etcdServers.length > 0 ? 'etcd3' : 'memory';
  const options: ServerOptions = {
    secureServing: { port: o.securePort, bindAddress: o.bindAddress, certDir: o.certDir },
    authentication: {
      anonymous: o.anonymousAuth,
      serviceAccountIssuers: [...o.serviceAccountIssuers],
      apiAudiences: o.apiAudiences.length ? [...o.apiAudiences] : o.serviceAccountIssuers.slice(0, 1),
      serviceAccountKeyFiles: [...o.serviceAccountKeyFiles],
      serviceAccountLookup: o.serviceAccountLookup,
    },
    ignoredFlags: [...o.ignoredFlags],
    authorization: { modes: o.authorizationModes as AuthorizationMode[] },
    etcd: {
      storageBackend,
      servers: [...o.etcdServers],
      prefix: o.etcdPrefix,
      healthcheckTimeoutMs: Number(o.etcdHealthcheckTimeout) / 1e6,
      readycheckTimeoutMs: Number(o.etcdReadycheckTimeout) / 1e6,
    },
    admission: {
      enablePlugins: [...o.enablePlugins],
      disablePlugins: [...o.disablePlugins],
      plugins: enabledAdmissionPlugins(o.enablePlugins, o.disablePlugins),
      serviceResolver: o.webhookServiceResolver.map((m) => ({ ...m })),
    },
    featureGates: o.featureGates,
    audit: {},
    verbosity: o.verbosity,
    help: o.help,
  };
  const assign = <T extends object>(target: T, values: Partial<T>): void => {
    for (const [k, v] of Object.entries(values)) if (v !== undefined) (target as Record<string, unknown>)[k] = v;
  };
  assign(options.secureServing, { certFile: opt(o.tlsCertFile), keyFile: opt(o.tlsPrivateKeyFile) });
  assign(options.authentication, {
    clientCAFile: opt(o.clientCAFile),
    tokenAuthFile: opt(o.tokenAuthFile),
    serviceAccountSigningKeyFile: opt(o.serviceAccountSigningKeyFile),
    serviceAccountJwksUri: opt(o.serviceAccountJwksUri),
  });
  assign(options, { advertiseAddress: opt(o.advertiseAddress) });
  assign(options.authorization, { policyFile: opt(o.authorizationPolicyFile) });
  assign(options.admission, { configFile: opt(o.admissionControlConfigFile) });
  assign(options.audit, { logPath: opt(o.auditLogPath) });
  assign(options, {
    writeKubeconfig: opt(o.writeKubeconfig),
    admissionCoverage: opt(o.admissionCoverage),
    externalHostname: opt(o.externalHostname),
  });
  return deepFreeze(options);
}

/**
 * Parses argv (without node and the script) as kube-apiserver would. `commandPath` names the command in the
 * "does not take any arguments" error, as cobra's CommandPath() does.
 */
export function parseServerOptions(argv: readonly string[], commandPath = 'kube-apiserver'): ServerOptionsResult {
  const raw = defaults();
  const warnings: string[] = [];
  const fs = buildFlagSet(raw, warnings);
  const parsed = fs.parse(argv);
  if (!parsed.ok) return { ok: false, errors: [parsed.error] };
  if (raw.help) return { ok: true, options: freeze(raw), warnings };
  // kube-apiserver's cobra Args check: positional arguments are an error ("--anonymous-auth false" lands here).
  if (parsed.args.some((a) => a.length > 0)) {
    return { ok: false, errors: [`${goQuote(commandPath)} does not take any arguments, got ${goQuoteList(parsed.args)}`] };
  }
  const reset = applyAuthorization(raw);
  if (reset) warnings.push(reset);
  if (raw.ignoredFlags.length) warnings.push(`accepted and ignored (not modelled by this apiserver): ${raw.ignoredFlags.map((f) => `--${f}`).join(', ')}`);
  const errs = validate(raw);
  if (errs.length) return { ok: false, errors: errs };
  return { ok: true, options: freeze(raw), warnings };
}

/** kube's warning when --authorization-mode includes AlwaysAllow while anonymous requests are on. */
export const anonymousWithAlwaysAllowWarning = 'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer';

/**
 * BuiltInAuthenticationOptions.ApplyAuthorization (pkg/kubeapiserver/options/authentication.go), run by
 * kube-apiserver's Complete before validation: an AlwaysAllow authorizer would make every anonymous request
 * an admin, so anonymous authentication is switched off, with a warning. Returns the warning when it did so.
 */
function applyAuthorization(o: RawOptions): string | undefined {
  if (!o.anonymousAuth || !o.authorizationModes.includes('AlwaysAllow')) return undefined;
  o.anonymousAuth = false;
  return anonymousWithAlwaysAllowWarning;
}
