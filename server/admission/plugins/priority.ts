// kube's Priority admission plugin (plugin/pkg/admission/priority/admission.go): a pod's spec.priority (and
// preemptionPolicy) come from its priorityClassName's PriorityClass, else from the global default class, else 0
// (admitPod); at most one PriorityClass may be the global default (validatePriorityClass).
import { errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { asObj, isMainResource, podSpecOf, type Obj } from './object-lister.js';

function podName(attrs: AdmissionAttributes): string {
  return attrs.name || ((asObj((attrs.object as Obj | undefined)?.['metadata'])?.['name'] as string | undefined) ?? '');
}

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

  // nothing to do for other resources: answered at once, without a promise
  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!isMainResource(attrs, '', 'pods')) return;
    return this.admitPod(attrs);
  }

  private async admitPod(attrs: AdmissionAttributes): Promise<void> {
    const spec = podSpecOf(attrs.object as KubeObject);
    if (attrs.operation === 'UPDATE') {
      // set on create; an update keeps the stored values whatever it sends
      const old = asObj((attrs.oldObject as Obj | undefined)?.['spec']) ?? {};
      for (const key of ['priority', 'preemptionPolicy']) {
        if (old[key] === undefined) delete spec[key];
        else spec[key] = old[key];
      }
      return;
    }
    const forbid = (why: string) => errors.forbidden({ group: '', resource: 'pods' }, podName(attrs), why);
    const classes = await this.deps.listPriorityClasses();
    let priority: number;
    let preemptionPolicy: unknown;
    const className = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
    if (!className) {
      // getDefaultPriority: the first class marked globalDefault, else 0 and no class name
      const def = classes.find((pc) => pc['globalDefault'] === true);
      priority = def ? Number(def['value'] ?? 0) : 0;
      preemptionPolicy = def?.['preemptionPolicy'];
      if (def) spec['priorityClassName'] = def.metadata?.name ?? '';
    } else {
      const pc = classes.find((c) => c.metadata?.name === className);
      if (!pc) throw forbid(`no PriorityClass with name ${className} was found`);
      priority = Number(pc['value'] ?? 0);
      preemptionPolicy = pc['preemptionPolicy'];
    }
    if (spec['priority'] !== undefined && spec['priority'] !== null && spec['priority'] !== priority) {
      throw forbid(`the integer value of priority (${String(spec['priority'])}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec['priority'] = priority;
    if (typeof preemptionPolicy === 'string') {
      const sent = spec['preemptionPolicy'];
      if (typeof sent === 'string' && sent !== preemptionPolicy) {
        throw forbid(`the string value of PreemptionPolicy (${sent}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`);
      }
      spec['preemptionPolicy'] = preemptionPolicy;
    }
  }

  // nothing to do but for a default PriorityClass: answered at once, without a promise
  validate(attrs: AdmissionAttributes): Promise<void> | void {
    const { group, resource } = attrs.resource;
    if (group !== 'scheduling.k8s.io' || resource !== 'priorityclasses' || attrs.subresource !== '') return;
    if (attrs.object?.['globalDefault'] !== true) return;
    return this.validateDefaultClass(attrs);
  }

  private async validateDefaultClass(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    // kube's getDefaultPriorityClass: the first stored class marked default
    const current = (await this.deps.listPriorityClasses()).find((pc) => pc['globalDefault'] === true);
    if (!current) return;
    const currentName = current.metadata?.name ?? '';
    if (attrs.operation === 'CREATE' || currentName !== attrs.name) {
      throw errors.forbidden({ group, resource }, attrs.name, `PriorityClass ${currentName} is marked as default. Only one default can exist`);
    }
  }
}
