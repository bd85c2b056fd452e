// The admission chain the REST handlers call: mutating phase, then validating phase. Plugins and their order
// arrive with the admission issue; the handlers already call both phases at the points kube-apiserver does.
import type { AdmissionAttributes } from './attributes.js';

export interface AdmissionChain {
  /** Mutating phase: may change attrs.object; throws a StatusError to deny. */
  admit(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase, after object validation: throws a StatusError to deny. */
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export const emptyAdmissionChain: AdmissionChain = {
  async admit() {},
  async validate() {},
};
