// A policy author's integration test, ready to copy (it is the README's "Testing policies" example):
// a ValidatingAdmissionPolicy and its binding created through client-node, enforced on the next request.
// In your project: import { useApiServer } from 'kube-admission-harness'.
import { AdmissionregistrationV1Api, ApiException, AppsV1Api } from '@kubernetes/client-node';
import { useApiServer } from '../harness/index.js';

const env = useApiServer({ storage: 'memory' });

it('limits replicas', async () => {
  const admission = env.client(AdmissionregistrationV1Api);
  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: 'max-replicas.example.com' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] }] },
        validations: [{ expression: 'object.spec.replicas <= 5', messageExpression: '"replicas must be at most 5, got " + string(object.spec.replicas)' }],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({
    body: { metadata: { name: 'max-replicas-binding.example.com' }, spec: { policyName: 'max-replicas.example.com', validationActions: ['Deny'] } },
  });
  // in force for the very next request
  const err = await env
    .client(AppsV1Api)
    .createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 10, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
      },
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiException);
  const e = err as ApiException<string>;
  expect(e.code).toBe(422);
  expect(JSON.parse(e.body).message).toContain('replicas must be at most 5, got 10');
});
