// The admission chain the REST handlers call: the mutating phase (with one reinvocation round, as kube-apiserver's
// chain does), then — after object validation — the validating phase.
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js';

export interface AdmissionChain {
  /** Mutating phase: may change attrs.object; throws a StatusError to deny. */
  admit(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase, after object validation: throws a StatusError to deny. */
  validate(attrs: AdmissionAttributes): Promise<void>;
}

/** An admission plugin (admission.Interface + MutationInterface/ValidationInterface). */
export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: AdmissionOperation): boolean;
  admit?(attrs: AdmissionAttributes): Promise<void>;
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

export const emptyAdmissionChain: AdmissionChain = {
  async admit() {},
  async validate() {},
};
