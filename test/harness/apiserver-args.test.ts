// How harness options become kube-apiserver flags and an AdmissionConfiguration: pure, table-driven.
import YAML from 'yaml';
import { buildAdmissionConfig, buildApiServerArgs, flagValue, type ApiServerOptions, type ApiServerRuntime } from '../../harness/apiserver-process.js';

const rt: ApiServerRuntime = {
  port: 6443,
  certDir: '/tmp/x/certs',
  kubeconfigPath: '/tmp/x/kubeconfig',
  admissionConfigPath: undefined,
  etcdServers: 'http://127.0.0.1:2379',
};

describe('buildApiServerArgs', () => {
  it.each<[string, ApiServerOptions, Partial<ApiServerRuntime>, string[], string[]]>([
    [
      'derives port, bind address, cert dir, kubeconfig and etcd storage',
      {},
      {},
      ['--secure-port=6443', '--bind-address=127.0.0.1', '--cert-dir=/tmp/x/certs', '--write-kubeconfig=/tmp/x/kubeconfig', '--storage-backend=etcd3', '--etcd-servers=http://127.0.0.1:2379'],
      [],
    ],
    ['uses memory storage without etcd servers', { storage: 'memory' }, { etcdServers: undefined }, ['--storage-backend=memory'], ['--etcd-servers=http://127.0.0.1:2379']],
    ['lets a user flag replace a derived one', { flags: ['--bind-address=0.0.0.0', '--cert-dir', '/certs'] }, {}, ['--bind-address=0.0.0.0', '--cert-dir', '/certs'], ['--bind-address=127.0.0.1', '--cert-dir=/tmp/x/certs']],
    ['passes the admission config file', {}, { admissionConfigPath: '/tmp/x/admission.yaml' }, ['--admission-control-config-file=/tmp/x/admission.yaml'], []],
    ['merges gates from the option and the flag into one flag, the flag winning', { featureGates: { A: true, B: true }, flags: ['--feature-gates=B=false,C=true'] }, {}, ['--feature-gates=A=true,B=false,C=true'], ['--feature-gates=B=false,C=true']],
    [
      'turns on the manifest gate for static manifest dirs unless told otherwise',
      { staticManifestDirs: { ValidatingAdmissionPolicy: '/m' } },
      {},
      ['--feature-gates=ManifestBasedAdmissionControlConfig=true'],
      [],
    ],
    [
      'keeps an explicit manifest gate off',
      { staticManifestDirs: { ValidatingAdmissionPolicy: '/m' }, featureGates: { ManifestBasedAdmissionControlConfig: false } },
      {},
      ['--feature-gates=ManifestBasedAdmissionControlConfig=false'],
      [],
    ],
    ['appends extra flags after the derived ones', { flags: ['--v=4', '--no-such-flag'] }, {}, ['--v=4', '--no-such-flag'], []],
  ])('%s', (_name, opts, runtime, present, absent) => {
    const args = buildApiServerArgs(opts, { ...rt, ...runtime });
    for (const p of present) expect(args).toContain(p);
    for (const a of absent) expect(args).not.toContain(a);
    expect(args.filter((a) => a.startsWith('--feature-gates')).length).toBeLessThanOrEqual(1);
  });

  it('reads a flag in either spelling, the last one winning', () => {
    expect(flagValue(['--v=2', '--v', '4'], 'v')).toBe('4');
    expect(flagValue(['--anonymous-auth'], 'anonymous-auth')).toBe('true');
    expect(flagValue(['--v=2'], 'vv')).toBeUndefined();
  });
});

describe('buildAdmissionConfig', () => {
  it('passes the config through when there are no static manifest dirs', () => {
    expect(buildAdmissionConfig('plugins: []\n', undefined)).toBe('plugins: []\n');
    expect(buildAdmissionConfig(undefined, {})).toBeUndefined();
  });

  it('creates an AdmissionConfiguration with one entry per plugin and its configuration kind', () => {
    const config = buildAdmissionConfig(undefined, { ValidatingAdmissionWebhook: '/vw', MutatingAdmissionPolicy: '/map' });
    expect(config).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'ValidatingAdmissionWebhook',
          configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: '', staticManifestsDir: '/vw' },
        },
        {
          name: 'MutatingAdmissionPolicy',
          configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'MutatingAdmissionPolicyConfiguration', staticManifestsDir: '/map' },
        },
      ],
    });
  });

  it('merges into an existing inline configuration given as YAML text, keeping its other fields', () => {
    const text = YAML.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: '/kc' } }],
    });
    const config = buildAdmissionConfig(text, { ValidatingAdmissionWebhook: '/vw' }) as { plugins: { configuration: Record<string, unknown> }[] };
    expect(config.plugins).toHaveLength(1);
    expect(config.plugins[0]!.configuration).toEqual({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: '/kc', staticManifestsDir: '/vw' });
  });

  it('does not modify the object it was given', () => {
    const given = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [] as unknown[] };
    buildAdmissionConfig(given, { ValidatingAdmissionPolicy: '/vap' });
    expect(given.plugins).toEqual([]);
  });

  it('refuses to merge into a plugin configured by path', () => {
    expect(() => buildAdmissionConfig({ plugins: [{ name: 'ValidatingAdmissionPolicy', path: '/p.yaml' }] }, { ValidatingAdmissionPolicy: '/vap' })).toThrow('configured by path');
  });
});
