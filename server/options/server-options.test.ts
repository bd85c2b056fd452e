import { parseServerOptions, parseWebhookServiceMapping, serverOptionsUsage, type ServerOptions } from './server-options.js';

function parseOk(argv: string[]): ServerOptions {
  const r = parseServerOptions(argv);
  if (!r.ok) throw new Error(`expected ok, got ${r.errors.join('; ')}`);
  return r.options;
}

function parseErrors(argv: string[]): string[] {
  const r = parseServerOptions(argv);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('parseServerOptions defaults', () => {
  it('uses the documented defaults with no flags', () => {
    const o = parseOk([]);
    expect(o.secureServing).toEqual({ port: 6443, bindAddress: '127.0.0.1', certDir: 'certs/generated' });
    // AlwaysAllow (the default mode) turns anonymous authentication off, as kube-apiserver's ApplyAuthorization
    expect(o.authentication).toEqual({
      anonymous: false,
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      apiAudiences: ['https://kubernetes.default.svc.cluster.local'],
      serviceAccountKeyFiles: [],
      serviceAccountLookup: true,
    });
    expect(o.authorization).toEqual({ modes: ['AlwaysAllow'] });
    expect(o.etcd).toEqual({ storageBackend: 'memory', servers: [], prefix: '/registry', healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 });
    expect(o.admission.plugins).toEqual([
      'NamespaceLifecycle',
      'LimitRanger',
      'ServiceAccount',
      'TaintNodesByCondition',
      'PodSecurity',
      'Priority',
      'DefaultTolerationSeconds',
      'DefaultStorageClass',
      'StorageObjectInUseProtection',
      'PersistentVolumeClaimResize',
      'RuntimeClass',
      'CertificateApproval',
      'CertificateSigning',
      'ClusterTrustBundleAttest',
      'CertificateSubjectRestriction',
      'DefaultIngressClass',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    expect(o.admission.serviceResolver).toEqual([]);
    expect(o.verbosity).toBe(0);
    expect(o.help).toBe(false);
    expect(o.featureGates.enabled('MutatingAdmissionPolicy')).toBe(true);
    expect(o.featureGates.enabled('ManifestBasedAdmissionControlConfig')).toBe(false);
  });

  it('hands out frozen options', () => {
    const o = parseOk([]);
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.secureServing)).toBe(true);
    expect(Object.isFrozen(o.authorization.modes)).toBe(true);
  });
});

describe('anonymous authentication with the AlwaysAllow authorizer (kube ApplyAuthorization)', () => {
  const warning = 'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer';
  it.each<[string, string[], boolean, string[]]>([
    ['the defaults: anonymous reset, with the warning', [], false, [warning]],
    ['--anonymous-auth=true with AlwaysAllow: reset, with the warning', ['--anonymous-auth=true'], false, [warning]],
    ['AlwaysAllow anywhere in the list resets it', ['--authorization-mode=ABAC,AlwaysAllow', '--authorization-policy-file=p.jsonl'], false, [warning]],
    ['anonymous already off: no warning', ['--anonymous-auth=false'], false, []],
    ['another authorizer keeps anonymous on', ['--authorization-mode=ABAC', '--authorization-policy-file=p.jsonl'], true, []],
    ['AlwaysDeny keeps anonymous on', ['--authorization-mode=AlwaysDeny'], true, []],
  ])('%s', (_name, argv, anonymous, warnings) => {
    const r = parseServerOptions(argv);
    if (!r.ok) throw new Error(r.errors.join('; '));
    expect(r.options.authentication.anonymous).toBe(anonymous);
    expect(r.warnings).toEqual(warnings);
  });
});

describe('parseServerOptions flag forms', () => {
  it.each<[string, string[], (o: ServerOptions) => unknown, unknown]>([
    ['--flag=value', ['--secure-port=8443'], (o) => o.secureServing.port, 8443],
    ['--flag value', ['--secure-port', '8443'], (o) => o.secureServing.port, 8443],
    ['0 picks a free port', ['--secure-port=0'], (o) => o.secureServing.port, 0],
    ['hex int as Go ParseInt base 0', ['--secure-port=0x20FB'], (o) => o.secureServing.port, 8443],
    ['underscore normalized to dash', ['--secure_port=7443'], (o) => o.secureServing.port, 7443],
    ['bind address v6', ['--bind-address', '::1'], (o) => o.secureServing.bindAddress, '::1'],
    ['bind address 0.0.0.0', ['--bind-address=0.0.0.0'], (o) => o.secureServing.bindAddress, '0.0.0.0'],
    ['bare boolean', ['--anonymous-auth', '--authorization-mode=AlwaysDeny'], (o) => o.authentication.anonymous, true],
    ['boolean =false', ['--anonymous-auth=false'], (o) => o.authentication.anonymous, false],
    ['boolean =0', ['--anonymous-auth=0'], (o) => o.authentication.anonymous, false],
    ['comma list', ['--authorization-mode=ABAC,AlwaysDeny', '--authorization-policy-file=p.jsonl'], (o) => o.authorization.modes, ['ABAC', 'AlwaysDeny']],
    ["kube's usual Node,RBAC", ['--authorization-mode=Node,RBAC'], (o) => o.authorization.modes, ['Node', 'RBAC']],
    ['repeated list flags append', ['--etcd-servers=http://a:2379', '--etcd-servers', 'http://b:2379,http://c:2379'], (o) => o.etcd.servers, ['http://a:2379', 'http://b:2379', 'http://c:2379']],
    ['storage defaults to etcd3 with servers', ['--etcd-servers=http://127.0.0.1:2379'], (o) => o.etcd.storageBackend, 'etcd3'],
    ['explicit memory backend', ['--storage-backend=memory', '--etcd-servers=http://x:1'], (o) => o.etcd.storageBackend, 'memory'],
    ['etcd prefix', ['--etcd-prefix=/kah'], (o) => o.etcd.prefix, '/kah'],
    ['etcd check timeouts (Go durations)', ['--etcd-healthcheck-timeout=5s', '--etcd-readycheck-timeout', '1m30.5s'], (o) => [o.etcd.healthcheckTimeoutMs, o.etcd.readycheckTimeoutMs], [5000, 90_500]],
    ['etcd check timeout 0 (the default, as kube reads it)', ['--etcd-healthcheck-timeout=0'], (o) => o.etcd.healthcheckTimeoutMs, 0],
    ['-v shorthand', ['-v', '4'], (o) => o.verbosity, 4],
    ['-v=N', ['-v=6'], (o) => o.verbosity, 6],
    ['-vN', ['-v2'], (o) => o.verbosity, 2],
    ['--v', ['--v=3'], (o) => o.verbosity, 3],
    ['files', ['--tls-cert-file=a.crt', '--tls-private-key-file=a.key'], (o) => [o.secureServing.certFile, o.secureServing.keyFile], ['a.crt', 'a.key']],
    ['client CA and tokens', ['--client-ca-file=ca.crt', '--token-auth-file=t.csv', '--anonymous-auth=false'], (o) => o.authentication, { clientCAFile: 'ca.crt', tokenAuthFile: 't.csv', anonymous: false, serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'], apiAudiences: ['https://kubernetes.default.svc.cluster.local'], serviceAccountKeyFiles: [], serviceAccountLookup: true }],
    ['service account issuer, key and audiences', ['--service-account-issuer=https://a', '--service-account-issuer=https://b', '--service-account-signing-key-file=sa.key', '--api-audiences=x,y'], (o) => o.authentication, { anonymous: false, serviceAccountIssuers: ['https://a', 'https://b'], serviceAccountSigningKeyFile: 'sa.key', apiAudiences: ['x', 'y'], serviceAccountKeyFiles: [], serviceAccountLookup: true }],
    // pflag's stringArray: every use appends one file, commas included
    ['service account key files', ['--service-account-key-file=a,b.pem', '--service-account-key-file', 'c.pem'], (o) => o.authentication.serviceAccountKeyFiles, ['a,b.pem', 'c.pem']],
    ['service account lookup off', ['--service-account-lookup=false'], (o) => o.authentication.serviceAccountLookup, false],
    ['jwks uri and advertise address', ['--service-account-jwks-uri=https://x/jwks', '--advertise-address=10.1.2.3'], (o) => [o.authentication.serviceAccountJwksUri, o.advertiseAddress], ['https://x/jwks', '10.1.2.3']],
    ['RBAC and Node modes (envtest passes RBAC)', ['--authorization-mode=Node,RBAC'], (o) => o.authorization.modes, ['Node', 'RBAC']],
    ['the audiences default to the first issuer', ['--service-account-issuer=https://a', '--service-account-issuer=https://b'], (o) => o.authentication.apiAudiences, ['https://a']],
    ['admission config', ['--admission-control-config-file', '/etc/ac.yaml'], (o) => o.admission.configFile, '/etc/ac.yaml'],
    ['audit log', ['--audit-log-path=-'], (o) => o.audit.logPath, '-'],
    ['kubeconfig', ['--write-kubeconfig', '/tmp/kc'], (o) => o.writeKubeconfig, '/tmp/kc'],
    ['the next argument is taken even if it looks like a flag', ['--cert-dir', '--v=2'], (o) => o.secureServing.certDir, '--v=2'],
    ['-- ends the flags', ['--v=1', '--'], (o) => o.verbosity, 1],
    ['feature gates merge across flags', ['--feature-gates=ManifestBasedAdmissionControlConfig=true', '--feature-gates', 'MutatingAdmissionPolicy=false'], (o) => [o.featureGates.enabled('ManifestBasedAdmissionControlConfig'), o.featureGates.enabled('MutatingAdmissionPolicy')], [true, false]],
  ])('%s', (_name, argv, pick, expected) => {
    expect(pick(parseOk(argv))).toEqual(expected);
  });

  it('enables and disables admission plugins in kube order', () => {
    const o = parseOk(['--enable-admission-plugins=AlwaysPullImages,NodeRestriction', '--disable-admission-plugins=ServiceAccount,LimitRanger,ResourceQuota']);
    expect(o.admission.plugins.slice(0, 4)).toEqual(['NamespaceLifecycle', 'NodeRestriction', 'TaintNodesByCondition', 'AlwaysPullImages']);
    expect(o.admission.plugins).not.toContain('ServiceAccount');
    expect(o.admission.plugins).not.toContain('ResourceQuota');
  });

  it('warns when a GA gate is set, as kube logs it', () => {
    const r = parseServerOptions(['--feature-gates=MutatingAdmissionPolicy=false', '--anonymous-auth=false']);
    expect(r.ok && r.warnings).toEqual(['Setting GA feature gate MutatingAdmissionPolicy=false. It will be removed in a future release.']);
  });

  it('returns help without validating', () => {
    const o = parseOk(['--help', '--authorization-mode=ABAC']);
    expect(o.help).toBe(true);
    expect(parseOk(['-h']).help).toBe(true);
  });

  it('prints every flag in the usage', () => {
    const u = serverOptionsUsage();
    for (const f of ['--secure-port int', '--bind-address ip', '--anonymous-auth ', '--authorization-mode strings', '-v, --v Level', '--feature-gates mapStringBool', '-h, --help', '--webhook-service-resolver strings']) {
      expect(u).toContain(f);
    }
    expect(u).toContain('(default 6443)');
    expect(u).toContain('(default "certs/generated")');
    expect(u).toContain('ManifestBasedAdmissionControlConfig=true|false (ALPHA - default=false)');
  });
});

describe('parseServerOptions errors, as pflag and cobra print them', () => {
  it.each<[string, string[], string]>([
    ['unknown flag', ['--foo'], 'unknown flag: --foo'],
    ['unknown flag with value', ['--foo=bar'], 'unknown flag: --foo'],
    ['unknown shorthand', ['-x'], "unknown shorthand flag: 'x' in -x"],
    ['bad flag syntax', ['---secure-port=1'], 'bad flag syntax: ---secure-port=1'],
    ['missing value', ['--secure-port'], 'flag needs an argument: --secure-port'],
    ['missing shorthand value', ['-v'], "flag needs an argument: 'v' in -v"],
    ['bad int', ['--secure-port=abc'], 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    ['empty int', ['--secure-port='], 'invalid argument "" for "--secure-port" flag: strconv.ParseInt: parsing "": invalid syntax'],
    ['int out of range', ['--secure-port=99999999999999999999'], 'invalid argument "99999999999999999999" for "--secure-port" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['bad duration', ['--etcd-healthcheck-timeout=2'], 'invalid argument "2" for "--etcd-healthcheck-timeout" flag: time: missing unit in duration "2"'],
    ['bad bool', ['--anonymous-auth=x'], 'invalid argument "x" for "--anonymous-auth" flag: strconv.ParseBool: parsing "x": invalid syntax'],
    ['bad level names the shorthand', ['--v=high'], 'invalid argument "high" for "-v, --v" flag: strconv.ParseInt: parsing "high": invalid syntax'],
    ['level is base 10', ['--v=0x2'], 'invalid argument "0x2" for "-v, --v" flag: strconv.ParseInt: parsing "0x2": invalid syntax'],
    ['bad ip', ['--bind-address=localhost'], 'invalid argument "localhost" for "--bind-address" flag: failed to parse IP: "localhost"'],
    ['unknown gate', ['--feature-gates=Foo=true'], 'invalid argument "Foo=true" for "--feature-gates" flag: unrecognized feature gate: Foo'],
    ['gate without value', ['--feature-gates=MutatingAdmissionPolicy'], 'invalid argument "MutatingAdmissionPolicy" for "--feature-gates" flag: missing bool value for MutatingAdmissionPolicy'],
    ['gate with a bad bool', ['--feature-gates=AllAlpha=yes'], 'invalid argument "AllAlpha=yes" for "--feature-gates" flag: invalid value of AllAlpha=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    ['bad csv in a list flag', ['--authorization-mode="ABAC'], 'invalid argument "\\"ABAC" for "--authorization-mode" flag: parse error on line 1, column 6: extraneous or missing " in quoted-field'],
    ['boolean with a separate value is a positional argument', ['--anonymous-auth', 'false'], '"kube-apiserver" does not take any arguments, got ["false"]'],
  ])('%s', (_name, argv, expected) => {
    expect(parseErrors(argv)).toEqual([expected]);
  });

  it.each<[string, string[], string[]]>([
    ['ABAC without a policy file', ['--authorization-mode=ABAC'], ["authorization-mode ABAC's authorization policy file not passed"]],
    ['policy file without ABAC', ['--authorization-policy-file=p'], ['cannot specify --authorization-policy-file without mode ABAC']],
    ['unknown mode', ['--authorization-mode=Magic'], ['authorization-mode "Magic" is not a valid mode']],
    ['kube mode this server lacks', ['--authorization-mode=Node,RBAC,Webhook'], ['authorization-mode "Webhook" is not supported by this apiserver (supported: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node)']],
    ['an issuer with a colon that is no URL', ['--service-account-issuer=https://a b:x'], ["service-account-issuer contained a ':' but was not a valid URL: https://a b:x"]],
    ['a duplicate issuer', ['--service-account-issuer=https://a', '--service-account-issuer=https://a'], ['service-account-issuer "https://a" is already specified']],
    ['a jwks uri without https', ['--service-account-jwks-uri=http://x/jwks'], ['service-account-jwks-uri requires https scheme']],
    ['empty mode list', ['--authorization-mode='], ['at least one authorization-mode must be passed']],
    ['duplicate mode', ['--authorization-mode=AlwaysDeny,AlwaysDeny'], ['authorization-mode ["AlwaysDeny" "AlwaysDeny"] has mode specified more than once']],
    ['cert without key', ['--tls-cert-file=a.crt'], ['missing filename for serving cert']],
    ['key without cert', ['--tls-private-key-file=a.key'], ['missing filename for serving cert']],
    ['port out of range', ['--secure-port=70000'], ['--secure-port 70000 must be between 0 and 65535, inclusive. 0 for picking a free port']],
    ['etcd3 without servers', ['--storage-backend=etcd3'], ['--etcd-servers must be specified']],
    ['unknown backend', ['--storage-backend=etcd2'], ["--storage-backend invalid, allowed values: etcd3, memory. If not specified, it will default to 'etcd3' when --etcd-servers is set, else 'memory'"]],
    ['unknown admission plugins', ['--enable-admission-plugins=Foo', '--disable-admission-plugins=Bar'], ['enable-admission-plugins plugin "Foo" is unknown', 'disable-admission-plugins plugin "Bar" is unknown']],
    ['plugin in both lists', ['--enable-admission-plugins=PodSecurity', '--disable-admission-plugins=PodSecurity'], ['PodSecurity is defined in both enable-admission-plugins and disable-admission-plugins']],
  ])('validation: %s', (_name, argv, expected) => {
    expect(parseErrors(argv)).toEqual(expected);
  });

  it('collects every validation error at once', () => {
    expect(parseErrors(['--authorization-mode=ABAC', '--tls-cert-file=x', '--storage-backend=etcd3'])).toEqual([
      'missing filename for serving cert',
      "authorization-mode ABAC's authorization policy file not passed",
      '--etcd-servers must be specified',
    ]);
  });
});

describe('--webhook-service-resolver', () => {
  it.each<[string, string[], ServerOptions['admission']['serviceResolver']]>([
    ['an entry with the default service port 443', ['--webhook-service-resolver=webhooks/deny=127.0.0.1:8443'], [{ namespace: 'webhooks', name: 'deny', port: 443, host: '127.0.0.1', hostPort: 8443 }]],
    ['an explicit service port', ['--webhook-service-resolver', 'default/svc:8443=localhost:30443'], [{ namespace: 'default', name: 'svc', port: 8443, host: 'localhost', hostPort: 30443 }]],
    ['an IPv6 host in brackets', ['--webhook-service-resolver=ns/a=[::1]:9443'], [{ namespace: 'ns', name: 'a', port: 443, host: '::1', hostPort: 9443 }]],
    ['a DNS name host', ['--webhook-service-resolver=ns/a=webhook.example.com:443'], [{ namespace: 'ns', name: 'a', port: 443, host: 'webhook.example.com', hostPort: 443 }]],
    [
      'a comma list, and repeated flags appending',
      ['--webhook-service-resolver=ns/a=127.0.0.1:1,ns/a:444=127.0.0.1:2', '--webhook-service-resolver=other/b=127.0.0.2:3'],
      [
        { namespace: 'ns', name: 'a', port: 443, host: '127.0.0.1', hostPort: 1 },
        { namespace: 'ns', name: 'a', port: 444, host: '127.0.0.1', hostPort: 2 },
        { namespace: 'other', name: 'b', port: 443, host: '127.0.0.2', hostPort: 3 },
      ],
    ],
    ['an empty value', ['--webhook-service-resolver='], []],
  ])('parses %s', (_name, argv, expected) => {
    const o = parseOk(argv);
    expect(o.admission.serviceResolver).toEqual(expected);
    expect(Object.isFrozen(o.admission.serviceResolver)).toBe(true);
  });

  it.each<[string, string, string]>([
    ['no "="', 'ns/a', '"ns/a": want namespace/name[:port]=host:port'],
    ['no namespace', 'a=127.0.0.1:1', '"a=127.0.0.1:1": want namespace/name[:port] before "="'],
    ['a bad service port', 'ns/a:http=127.0.0.1:1', '"ns/a:http=127.0.0.1:1": service port "http" must be a number between 1 and 65535'],
    ['service port 0', 'ns/a:0=127.0.0.1:1', '"ns/a:0=127.0.0.1:1": service port "0" must be a number between 1 and 65535'],
    ['an invalid namespace', 'Kube_System/a=127.0.0.1:1', '"Kube_System/a=127.0.0.1:1": namespace "Kube_System" must be a DNS-1123 label'],
    ['an invalid service name', 'ns/1svc=127.0.0.1:1', '"ns/1svc=127.0.0.1:1": service name "1svc" must be a DNS-1035 label'],
    ['an empty service name', 'ns/=127.0.0.1:1', '"ns/=127.0.0.1:1": service name "" must be a DNS-1035 label'],
    ['no target port', 'ns/a=127.0.0.1', '"ns/a=127.0.0.1": want host:port after "="'],
    ['a target port out of range', 'ns/a=127.0.0.1:70000', '"ns/a=127.0.0.1:70000": port "70000" must be a number between 1 and 65535'],
    ['an empty host', 'ns/a=:8443', '"ns/a=:8443": host "" is not an IP address or DNS name'],
    ['a bare IPv6 host', 'ns/a=::1:8443', '"ns/a=::1:8443": an IPv6 host must be in brackets, as in [::1]:8443'],
    ['a bracketed non-IPv6 host', 'ns/a=[localhost]:8443', '"ns/a=[localhost]:8443": "localhost" is not an IPv6 address'],
    ['a host with spaces', 'ns/a=my host:8443', '"ns/a=my host:8443": host "my host" is not an IP address or DNS name'],
  ])('rejects %s', (_name, entry, expected) => {
    expect(parseWebhookServiceMapping(entry)).toEqual({ ok: false, error: expected });
    expect(parseErrors([`--webhook-service-resolver=${entry}`])).toEqual([`invalid argument "${entry}" for "--webhook-service-resolver" flag: ${expected}`]);
  });

  it('names every malformed entry of one flag', () => {
    expect(parseErrors(['--webhook-service-resolver=ns/a,ns/b=127.0.0.1:1,ns/c=x'])).toEqual([
      'invalid argument "ns/a,ns/b=127.0.0.1:1,ns/c=x" for "--webhook-service-resolver" flag: "ns/a": want namespace/name[:port]=host:port; "ns/c=x": want host:port after "="',
    ]);
  });

  it('rejects two mappings for the same service and port, across flags', () => {
    expect(parseErrors(['--webhook-service-resolver=ns/a=127.0.0.1:1', '--webhook-service-resolver=ns/a:443=127.0.0.1:2'])).toEqual([
      '--webhook-service-resolver maps service ns/a:443 more than once',
    ]);
  });
});

describe('kube-apiserver flags accepted and ignored (controller-runtime envtest)', () => {
  // pkg/internal/testing/controlplane/apiserver.go defaultArgs, as envtest renders them
  const envtestArgs = [
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    '--bind-address=127.0.0.1',
    '--cert-dir=/tmp/k8s_test_framework_1',
    '--client-ca-file=/tmp/k8s_test_framework_1/client-cert-auth-ca.crt',
    '--disable-admission-plugins=ServiceAccount',
    '--etcd-servers=http://127.0.0.1:2379',
    '--secure-port=40000',
    '--service-account-issuer=https://127.0.0.1:40000/',
    '--service-account-key-file=/tmp/k8s_test_framework_1/sa-signer.crt',
    '--service-account-signing-key-file=/tmp/k8s_test_framework_1/sa-signer.key',
    '--service-cluster-ip-range=10.0.0.0/24',
  ];

  it("parses envtest's argument list and names the flags it ignores in one warning", () => {
    const r = parseServerOptions(envtestArgs);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.options.ignoredFlags).toEqual(['allow-privileged', 'service-cluster-ip-range']);
    expect(r.warnings).toEqual(['accepted and ignored (not modelled by this apiserver): --allow-privileged, --service-cluster-ip-range']);
    expect(r.options.authorization.modes).toEqual(['RBAC']);
    expect(r.options.authentication.serviceAccountKeyFiles).toEqual(['/tmp/k8s_test_framework_1/sa-signer.crt']);
  });

  it('still parses an ignored flag by its type, with pflag texts', () => {
    expect(parseErrors(['--allow-privileged=maybe'])).toEqual(['invalid argument "maybe" for "--allow-privileged" flag: strconv.ParseBool: parsing "maybe": invalid syntax']);
    expect(parseErrors(['--event-ttl=soon'])).toEqual(['invalid argument "soon" for "--event-ttl" flag: time: invalid duration "soon"']);
    expect(parseOk(['--allow-privileged', '--event-ttl=1h']).ignoredFlags).toEqual(['allow-privileged', 'event-ttl']);
  });

  it('fails on flags kube-apiserver does not have, and on --insecure-port (removed in kube 1.24)', () => {
    expect(parseErrors(['--no-such-flag=1'])).toEqual(['unknown flag: --no-such-flag']);
    expect(parseErrors(['--insecure-port=0'])).toEqual(['unknown flag: --insecure-port']);
  });

  it('lists the ignored flags in --help, and no --insecure-port', () => {
    const help = serverOptionsUsage();
    expect(help).toMatch(/^ {6}--service-cluster-ip-range string +Accepted for kube-apiserver compatibility and ignored/m);
    expect(help).not.toMatch(/^\s*--insecure-port\b/m);
  });
});
