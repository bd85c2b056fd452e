// certificates.k8s.io/v1. Columns mirror kube's printCertificateSigningRequest (pkg/printers/internalversion).
import type { KubeObject } from '../../api/types.js';
import { age, at, type Entry } from './entry.js';
import { humanDuration } from '../../api/human-duration.js';

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
export const humanDurationSeconds = (seconds: number): string => humanDuration(seconds * 1000);

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
      { name: 'RequestedDuration', type: 'string', compute: (o) => (typeof at(o, 'spec', 'expirationSeconds') === 'number' ? humanDurationSeconds(at(o, 'spec', 'expirationSeconds') as number) : '<none>') },
      { name: 'Condition', type: 'string', compute: csrCondition },
    ],
  },
];
