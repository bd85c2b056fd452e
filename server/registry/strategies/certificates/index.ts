// certificates.k8s.io/v1 registry strategies, keyed by "group/version/resource".
import type { Strategy } from '../../resource.js';
import { certificateSigningRequestStrategy } from './certificate-signing-request.js';

export const certificatesStrategies: Record<string, Strategy> = {
  'certificates.k8s.io/v1/certificatesigningrequests': certificateSigningRequestStrategy,
};
