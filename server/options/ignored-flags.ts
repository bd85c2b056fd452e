// kube-apiserver flags this apiserver has no use for (no kubelets, services, aggregation, profiling, encryption …),
// accepted so that command lines written for kube-apiserver — controller-runtime's envtest passes
// --allow-privileged and --service-cluster-ip-range — start unchanged. Each is typed as in kube, so its value is
// still parsed with pflag's rules (a bad bool or duration fails as it would), then ignored. --insecure-port is
// deliberately absent: kube removed it (1.24) and envtest reads `--help` to learn that it must not pass it.
import { parseGoDuration } from '../endpoints/query-options.js';
import type { FlagSet } from './flagset.js';
import { goQuote, parseGoBool, parseGoInt } from './go-strconv.js';

type IgnoredType = 'bool' | 'int' | 'duration' | 'string' | 'strings' | 'mapStringString' | 'float' | 'portRange';

/** name → pflag type, as kube-apiserver --help lists them. */
export const ignoredKubeFlags: Readonly<Record<string, IgnoredType>> = {
  'allow-privileged': 'bool',
  'apiserver-count': 'int',
  'audit-log-format': 'string',
  'audit-log-maxage': 'int',
  'audit-log-maxbackup': 'int',
  'audit-log-maxsize': 'int',
  'audit-policy-file': 'string',
  'contention-profiling': 'bool',
  'cors-allowed-origins': 'strings',
  'default-watch-cache-size': 'int',
  'delete-collection-workers': 'int',
  'enable-aggregator-routing': 'bool',
  'enable-bootstrap-token-auth': 'bool',
  'enable-garbage-collector': 'bool',
  'enable-logs-handler': 'bool',
  'enable-priority-and-fairness': 'bool',
  'encryption-provider-config': 'string',
  'endpoint-reconciler-type': 'string',
  'etcd-cafile': 'string',
  'etcd-certfile': 'string',
  'etcd-compaction-interval': 'duration',
  'etcd-keyfile': 'string',
  'event-ttl': 'duration',
  'external-hostname': 'string',
  'goaway-chance': 'float',
  'kubelet-certificate-authority': 'string',
  'kubelet-client-certificate': 'string',
  'kubelet-client-key': 'string',
  'kubelet-preferred-address-types': 'strings',
  'kubelet-timeout': 'duration',
  'livez-grace-period': 'duration',
  'logging-format': 'string',
  'max-mutating-requests-inflight': 'int',
  'max-requests-inflight': 'int',
  'min-request-timeout': 'int',
  'oidc-ca-file': 'string',
  'oidc-client-id': 'string',
  'oidc-groups-claim': 'string',
  'oidc-issuer-url': 'string',
  'oidc-username-claim': 'string',
  'permit-address-sharing': 'bool',
  'permit-port-sharing': 'bool',
  profiling: 'bool',
  'proxy-client-cert-file': 'string',
  'proxy-client-key-file': 'string',
  'request-timeout': 'duration',
  'requestheader-allowed-names': 'strings',
  'requestheader-client-ca-file': 'string',
  'requestheader-extra-headers-prefix': 'strings',
  'requestheader-group-headers': 'strings',
  'requestheader-username-headers': 'strings',
  'runtime-config': 'mapStringString',
  'service-account-extend-token-expiration': 'bool',
  'service-account-max-token-expiration': 'duration',
  'service-cluster-ip-range': 'string',
  'service-node-port-range': 'portRange',
  'shutdown-delay-duration': 'duration',
  'storage-media-type': 'string',
  'strict-transport-security-directives': 'strings',
  'tls-cipher-suites': 'strings',
  'tls-min-version': 'string',
  'watch-cache': 'bool',
};

const boolDefaults = new Set(['enable-garbage-collector', 'enable-logs-handler', 'enable-priority-and-fairness', 'profiling', 'service-account-extend-token-expiration', 'watch-cache']);

/** pflag's Value.Set for the type: undefined when the value parses. */
function check(type: IgnoredType, v: string): string | undefined {
  switch (type) {
    case 'bool': {
      const r = parseGoBool(v);
      return r.ok ? undefined : r.error;
    }
    case 'int': {
      const r = parseGoInt(v, 0, 64);
      return r.ok ? undefined : r.error;
    }
    case 'duration': {
      const d = parseGoDuration(v);
      return d.ok ? undefined : d.error;
    }
    case 'float':
      return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/u.test(v) ? undefined : `strconv.ParseFloat: parsing ${goQuote(v)}: invalid syntax`;
    default:
      return undefined;
  }
}

export function defineIgnoredKubeFlags(fs: FlagSet, onIgnored: (name: string) => void): void {
  for (const [name, type] of Object.entries(ignoredKubeFlags)) {
    fs.define({
      name,
      type,
      defValue: type === 'bool' ? String(boolDefaults.has(name)) : '',
      ...(type === 'bool' ? { noOptDefVal: 'true' } : {}),
      usage: 'Accepted for kube-apiserver compatibility and ignored: this apiserver does not model it.',
      set: (v) => {
        const err = check(type, v);
        if (err === undefined) onIgnored(name);
        return err;
      },
    });
  }
}
