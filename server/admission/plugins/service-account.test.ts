// Cases of kube's plugin/pkg/admission/serviceaccount/admission_test.go.
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../api/types.js';
import { StatusError } from '../../api/errors.js';
import { fakeAttributes, fakeLister } from './fake-admission.js';
import { ServiceAccountAdmission, tokenVolumeSource } from './service-account.js';

const sa = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'ns' }, ...extra });
const pod = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
});
const plugin = (accounts: KubeObject[]) => new ServiceAccountAdmission({ lister: fakeLister({ '/serviceaccounts': accounts }), retryMs: 1, generateName: (b) => `${b}abcde` });
const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };

async function admitted(p: ServiceAccountAdmission, object: KubeObject, extra: Parameters<typeof fakeAttributes>[0] = {}) {
  const attrs = fakeAttributes({ object, ...extra });
  await p.admit(attrs);
  await p.validate(attrs);
  return attrs.object as { spec: Record<string, unknown> };
}

async function rejection(p: ServiceAccountAdmission, object: KubeObject): Promise<string> {
  const attrs = fakeAttributes({ object });
  try {
    await p.admit(attrs);
    await p.validate(attrs);
  } catch (err) {
    if (err instanceof StatusError) return `${err.code} ${err.message}`;
    throw err;
  }
  return 'admitted';
}

describe('ServiceAccount admission', () => {
  it('ignores other resources and subresources (TestIgnoresNonPodResource)', async () => {
    const cm: KubeObject = { metadata: { name: 'c' } };
    const out = await admitted(plugin([]), cm, { resource: 'configmaps' });
    expect(out).toEqual({ metadata: { name: 'c' } });
    const status = pod();
    await admitted(plugin([]), status, { subresource: 'status' });
    expect((status as { spec: Record<string, unknown> }).spec['serviceAccountName']).toBeUndefined();
  });

  it('assigns the default service account and the bound token volume (TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens)', async () => {
    const out = await admitted(plugin([sa('default')]), pod());
    expect(out.spec['serviceAccountName']).toBe('default');
    expect(out.spec['volumes']).toEqual([{ name: 'kube-api-access-abcde', projected: tokenVolumeSource() }]);
    expect(out.spec['containers']).toEqual([{ name: 'c', image: 'i', volumeMounts: [mount] }]);
  });

  it('denies a pod whose service account does not exist (TestDeniesInvalidServiceAccount), after retrying `default`', async () => {
    expect(await rejection(plugin([]), pod({ serviceAccountName: 'other' }))).toBe('403 pods "p" is forbidden: error looking up service account ns/other: serviceaccount "other" not found');
    const lister = fakeLister({ '/serviceaccounts': [] });
    const p = new ServiceAccountAdmission({ lister, retryMs: 1 });
    await expect(p.admit(fakeAttributes({ object: pod() }))).rejects.toThrow('error looking up service account ns/default: serviceaccount "default" not found');
    expect(lister.gets).toBe(10);
  });

  it('respects automountServiceAccountToken on the pod over the service account (TestAutomountsAPIToken, shouldAutomount)', async () => {
    expect((await admitted(plugin([sa('default', { automountServiceAccountToken: false })]), pod()))['spec']['volumes']).toBeUndefined();
    expect((await admitted(plugin([sa('default', { automountServiceAccountToken: false })]), pod({ automountServiceAccountToken: true })))['spec']['volumes']).toHaveLength(1);
    expect((await admitted(plugin([sa('default')]), pod({ automountServiceAccountToken: false })))['spec']['volumes']).toBeUndefined();
  });

  it('keeps an existing mount at the token path and reuses an existing kube-api-access volume (TestRespectsExistingMount)', async () => {
    const own = { name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    const out = await admitted(plugin([sa('default')]), pod({ containers: [{ name: 'c', image: 'i', volumeMounts: [own] }] }));
    expect(out.spec['containers']).toEqual([{ name: 'c', image: 'i', volumeMounts: [own] }]);
    expect(out.spec['volumes']).toBeUndefined();
    const existing = { name: 'kube-api-access-zzzzz', projected: tokenVolumeSource() };
    const again = await admitted(plugin([sa('default')]), pod({ volumes: [existing], initContainers: [{ name: 'i', image: 'i' }] }));
    expect(again.spec['volumes']).toEqual([existing]);
    expect(again.spec['initContainers']).toEqual([{ name: 'i', image: 'i', volumeMounts: [{ ...mount, name: 'kube-api-access-zzzzz' }] }]);
  });

  it('copies the service account\'s imagePullSecrets when the pod has none (TestAddImagePullSecrets)', async () => {
    const account = sa('default', { imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] });
    expect((await admitted(plugin([account]), pod())).spec['imagePullSecrets']).toEqual([{ name: 'foo' }, { name: 'bar' }]);
    expect((await admitted(plugin([account]), pod({ imagePullSecrets: [{ name: 'own' }] }))).spec['imagePullSecrets']).toEqual([{ name: 'own' }]);
  });

  it('leaves mirror pods alone but rejects their service accounts, secrets and token projections (TestIgnoresMirrorPod, TestRejectsMirrorPodWith*)', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'x' };
    const out = await admitted(plugin([]), pod({}, mirror));
    expect(out.spec['serviceAccountName']).toBeUndefined();
    expect(await rejection(plugin([sa('default')]), pod({ serviceAccountName: 'default' }, mirror))).toBe('403 pods "p" is forbidden: a mirror pod may not reference service accounts');
    expect(await rejection(plugin([]), pod({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, mirror))).toBe('403 pods "p" is forbidden: a mirror pod may not reference secrets');
    expect(await rejection(plugin([]), pod({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, mirror))).toBe(
      '403 pods "p" is forbidden: a mirror pod may not use ServiceAccountToken volume projections',
    );
  });
});
