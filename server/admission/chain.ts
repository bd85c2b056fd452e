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
  /**
   * A plugin that has nothing to do for a request may answer synchronously (kube's plugins mostly return at once for
   * a resource they do not look at); the chain then goes on without a microtask for it.
   */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

export const emptyAdmissionChain: AdmissionChain = {
  async admit() {},
  async validate() {},
};
