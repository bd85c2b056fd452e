// kube's DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds/admission.go): pods that do not
// tolerate node.kubernetes.io/not-ready or unreachable NoExecute taints (a toleration with an empty key or effect
// counts) get one each with tolerationSeconds 300, so they are evicted five minutes after their node fails.
import type { AdmissionAttributes, AdmissionOperation } from '../attributes.js';
import type { AdmissionPlugin } from '../chain.js';
import { isMainResource, objList, podSpecOf, type Obj } from './object-lister.js';
import type { KubeObject } from '../../api/types.js';

const notReadyTaint = 'node.kubernetes.io/not-ready';
const unreachableTaint = 'node.kubernetes.io/unreachable';

export interface DefaultTolerationSecondsOptions {
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (300 in kube) */
  notReadySeconds?: number;
  unreachableSeconds?: number;
}

export class DefaultTolerationSeconds implements AdmissionPlugin {
  readonly name = 'DefaultTolerationSeconds';
  constructor(private readonly options: DefaultTolerationSecondsOptions = {}) {}

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  // synchronous: nothing here waits
  admit(attrs: AdmissionAttributes): void {
    if (!isMainResource(attrs, '', 'pods')) return;
    addDefaultTolerations(podSpecOf(attrs.object as KubeObject), this.options.notReadySeconds ?? 300, this.options.unreachableSeconds ?? 300);
  }
}

export function addDefaultTolerations(spec: Obj, notReadySeconds: number, unreachableSeconds: number): void {
  const tolerations = objList(spec['tolerations']);
  const tolerates = (key: string) =>
    tolerations.some((t) => (t['key'] === key || !t['key']) && (t['effect'] === 'NoExecute' || !t['effect']));
  const added: Obj[] = [];
  if (!tolerates(notReadyTaint)) added.push({ key: notReadyTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReadySeconds });
  if (!tolerates(unreachableTaint)) added.push({ key: unreachableTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachableSeconds });
  if (added.length) spec['tolerations'] = [...tolerations, ...added];
}
