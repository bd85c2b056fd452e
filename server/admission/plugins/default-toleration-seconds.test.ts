// Cases of kube's plugin/pkg/admission/defaulttolerationseconds/admission_test.go (TestForgivenessAdmission).
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../api/types.js';
import { DefaultTolerationSeconds } from './default-toleration-seconds.js';
import { fakeAttributes } from './fake-admission.js';

const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

async function admit(tolerations: unknown[] | undefined, opts: Parameters<typeof fakeAttributes>[0] = {}): Promise<unknown> {
  const object: KubeObject = { metadata: { name: 'p' }, spec: tolerations === undefined ? {} : { tolerations } };
  await new DefaultTolerationSeconds().admit(fakeAttributes({ object, ...opts }));
  return (object['spec'] as Record<string, unknown>)['tolerations'];
}

describe('DefaultTolerationSeconds', () => {
  it.each([
    ['pod has no tolerations, expect add tolerations for not-ready and unreachable', undefined, [notReady, unreachable]],
    [
      'pod has tolerations, but none is for taint not-ready or unreachable',
      [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule', tolerationSeconds: 700 }],
      [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule', tolerationSeconds: 700 }, notReady, unreachable],
    ],
    [
      'pod specified a toleration for taint not-ready, expect add toleration for unreachable',
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }],
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }, unreachable],
    ],
    [
      'pod specified a toleration for taint unreachable, expect add toleration for not-ready',
      [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }],
      [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }, notReady],
    ],
    ['pod specified tolerations for both, expect no change', [notReady, unreachable], [notReady, unreachable]],
    [
      'pod specified toleration for not-ready with NoSchedule effect, expect both added',
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }, notReady, unreachable],
    ],
    ['pod specified a toleration with an empty key and NoExecute, expect no change', [{ operator: 'Exists', effect: 'NoExecute' }], [{ operator: 'Exists', effect: 'NoExecute' }]],
    ['pod specified a toleration for not-ready with an empty effect, expect unreachable added', [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }, unreachable]],
  ])('%s', async (_name, given, want) => {
    expect(await admit(given)).toEqual(want);
  });

  it('ignores other resources and subresources', async () => {
    expect(await admit(undefined, { resource: 'podtemplates' })).toBeUndefined();
    expect(await admit(undefined, { subresource: 'status' })).toBeUndefined();
  });
});
