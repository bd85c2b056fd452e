// Leaf certificates signed by a CertKeyPair CA: serving certificates (serverAuth, SANs for names and IPs) and
// client certificates whose subject kube-apiserver's x509 authenticator reads as user (CN) and groups (O).
import { isIPAddress } from './ip-address.js';
import { certificateKeyOptions } from './key-pair.js';
// selfsigned (and its x509 stack) loads only when a certificate is generated: a restart that reuses --cert-dir
// never pays for it.
const loadSelfsigned = () => import('selfsigned');
import { escapeDnValue, validityWindow, type CertKeyPair, type ValidityOptions } from './ca.js';
import { defaultServingHosts } from './serving-hosts.js';

export { defaultServingHosts };

export interface ServingCertOptions extends ValidityOptions {
  /** DNS names and IP addresses, told apart by their form; default localhost, 127.0.0.1, ::1 */
  hosts?: readonly string[];
  /** default: the first DNS name, else the first host */
  commonName?: string;
}

export interface ClientCertOptions extends ValidityOptions {
  /** becomes the subject CN: the username */
  user: string;
  /** become the subject O values: the groups */
  groups?: readonly string[];
}

/** Splits hosts into DNS names and IPs, without duplicates, keeping their order. */
export function splitHosts(hosts: readonly string[]): { dnsNames: string[]; ips: string[] } {
  const dnsNames: string[] = [];
  const ips: string[] = [];
  for (const h of hosts) {
    const bare = h.replace(/^\[(.*)\]$/, '$1');
    const list = isIPAddress(bare) ? ips : dnsNames;
    if (!list.includes(bare)) list.push(bare);
  }
  return { dnsNames, ips };
}

export async function issueServingCert(ca: CertKeyPair, opts: ServingCertOptions = {}): Promise<CertKeyPair> {
  const hosts = opts.hosts ?? defaultServingHosts;
  const { dnsNames, ips } = splitHosts(hosts);
  if (dnsNames.length === 0 && ips.length === 0) throw new Error('a serving certificate needs at least one host');
  const commonName = opts.commonName ?? dnsNames[0] ?? ips[0]!;
  const pems = await (await loadSelfsigned()).generate([{ name: 'commonName', value: escapeDnValue(commonName) }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...certificateKeyOptions(),
    ca: { key: ca.key, cert: ca.cert },
    ...validityWindow(opts, 365),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...dnsNames.map((value) => ({ type: 2 as const, value })), ...ips.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

export async function issueClientCert(ca: CertKeyPair, opts: ClientCertOptions): Promise<CertKeyPair> {
  if (opts.user === '') throw new Error('a client certificate needs a user (its CN); kube ignores certificates without one');
  const subject = [
    { name: 'commonName', value: escapeDnValue(opts.user) },
    ...(opts.groups ?? []).map((g) => ({ name: 'organizationName', value: escapeDnValue(g) })),
  ];
  const pems = await (await loadSelfsigned()).generate(subject, {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...certificateKeyOptions(),
    ca: { key: ca.key, cert: ca.cert },
    ...validityWindow(opts, 365),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
