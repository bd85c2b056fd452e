// certificates.k8s.io/v1. Columns mirror kube's printCertificateSigningRequest (pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';

/** kube's extractCSRStatus: Denied wins over Approved, else Pending; then ",Failed" and ",Issued". */
export function csrCondition(o: KubeObject): string {
  const types = new Set(((at(o, 'status', 'conditions') as Array<{ type?: string }> | undefined) ?? []).map((c) => c.type));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  const cert = at(o, 'status', 'certificate');
  if (typeof cert === 'string' && cert.length > 0) s += ',Issued';
  return s;
}

/** duration.HumanDuration of apimachinery, as kube prints spec.expirationSeconds. */
export function humanDuration(seconds: number): string {
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(seconds / 3600);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

export const certificatesEntries: Entry[] = [
  {
    group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'],
    subresources: { status: true, approval: true }, hasStatus: true,
    // kube's CSR names are free-form (ValidateCertificateRequestName accepts any name); a name is still a path segment
    nameRule: 'PathSegment',
    printerColumns: [
      age,
      { name: 'SignerName', type: 'string', jsonPath: '.spec.signerName' },
      { name: 'Requestor', type: 'string', jsonPath: '.spec.username' },
      { name: 'RequestedDuration', type: 'string', compute: (o) => (typeof at(o, 'spec', 'expirationSeconds') === 'number' ? humanDuration(at(o, 'spec', 'expirationSeconds') as number) : '<none>') },
      { name: 'Condition', type: 'string', compute: csrCondition },
    ],
  },
];
