// The CEL environment kube-apiserver's admission uses: the engine with every Kubernetes library, shared by all
// policies and webhook matchConditions so compiled programs are cached once per process.
import type { CelEnvironment } from './environment.js';
import { createCelEnvironment } from './index.js';
import { KUBERNETES_VALIDATORS } from './engine/validators.js';
import { kubernetesLibraries, mutationLibraries } from './library/index.js';

let shared: CelEnvironment | undefined;

export function kubernetesCelEnvironment(): CelEnvironment {
  shared ??= createCelEnvironment({ libraries: [...kubernetesLibraries], mutationLibraries: [...mutationLibraries], validators: KUBERNETES_VALIDATORS });
  return shared;
}
