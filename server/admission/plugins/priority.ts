// The PriorityClass half of kube's Priority admission plugin (plugin/pkg/admission/priority/admission.go,
// validatePriorityClass): at most one PriorityClass may be the global default. (Resolving a pod's priority from
// its priorityClassName, the plugin's other half, is not done here.)
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';

export interface PriorityDeps {
  /** every stored PriorityClass */
  listPriorityClasses(): Promise<KubeObject[]>;
}

export class PriorityAdmission implements AdmissionPlugin {
  readonly name = 'Priority';
  constructor(private readonly deps: PriorityDeps) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (group !== 'scheduling.k8s.io' || resource !== 'priorityclasses' || attrs.subresource !== '') return;
    if (attrs.object?.['globalDefault'] !== true) return;
    // kube's getDefaultPriorityClass: the first stored class marked default
    const current = (await this.deps.listPriorityClasses()).find((pc) => pc['globalDefault'] === true);
    if (!current) return;
    const currentName = current.metadata?.name ?? '';
    if (attrs.operation === 'CREATE' || currentName !== attrs.name) {
      throw errors.forbidden({ group, resource }, attrs.name, `PriorityClass ${currentName} is marked as default. Only one default can exist`);
    }
  }
}
