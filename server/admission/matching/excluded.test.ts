import { excludedVirtualResources, isExcludedVirtualResource, isExemptAdmissionConfigurationResource } from './excluded.js';

describe('admission configuration kinds exempt from REST-registered webhooks', () => {
  it.each([
    ['ValidatingWebhookConfiguration', true],
    ['MutatingWebhookConfiguration', true],
    ['ValidatingAdmissionPolicy', true],
    ['ValidatingAdmissionPolicyBinding', true],
    ['MutatingAdmissionPolicy', true],
    ['MutatingAdmissionPolicyBinding', true],
    ['Something', false],
  ])('admissionregistration.k8s.io %s exempt: %s', (kind, want) => {
    expect(isExemptAdmissionConfigurationResource({ group: 'admissionregistration.k8s.io', version: 'v1', kind })).toBe(want);
    // any version, since kube looks at group and kind only
    expect(isExemptAdmissionConfigurationResource({ group: 'admissionregistration.k8s.io', version: 'v1beta1', kind })).toBe(want);
  });

  it('does not exempt the same kind name in another group', () => {
    expect(isExemptAdmissionConfigurationResource({ group: 'example.com', version: 'v1', kind: 'ValidatingWebhookConfiguration' })).toBe(false);
  });
});

describe('virtual resources excluded from webhooks', () => {
  it('is exactly kube-apiserver\'s exclusion list', () => {
    expect(excludedVirtualResources.map((gr) => `${gr.resource}.${gr.group}`)).toEqual([
      'selfsubjectreviews.authentication.k8s.io',
      'tokenreviews.authentication.k8s.io',
      'localsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectaccessreviews.authorization.k8s.io',
      'selfsubjectrulesreviews.authorization.k8s.io',
      'subjectaccessreviews.authorization.k8s.io',
    ]);
  });

  it.each([
    ['authentication.k8s.io', 'tokenreviews', true],
    ['authentication.k8s.io', 'selfsubjectreviews', true],
    ['authorization.k8s.io', 'subjectaccessreviews', true],
    ['authorization.k8s.io', 'localsubjectaccessreviews', true],
    ['authorization.k8s.io', 'selfsubjectaccessreviews', true],
    ['authorization.k8s.io', 'selfsubjectrulesreviews', true],
    ['authentication.k8s.io', 'subjectaccessreviews', false],
    ['example.com', 'tokenreviews', false],
    ['', 'pods', false],
  ])('%s %s excluded: %s', (group, resource, want) => {
    expect(isExcludedVirtualResource({ group, resource })).toBe(want);
  });

  it('ignores the version: every version of an excluded resource is excluded', () => {
    expect(isExcludedVirtualResource({ group: 'authentication.k8s.io', resource: 'tokenreviews', version: 'v1beta1' } as { group: string; resource: string })).toBe(true);
  });

  it('uses the excluded list it is given', () => {
    expect(isExcludedVirtualResource({ group: '', resource: 'pods' }, [{ group: '', resource: 'pods' }])).toBe(true);
    expect(isExcludedVirtualResource({ group: 'authentication.k8s.io', resource: 'tokenreviews' }, [])).toBe(false);
  });
});
