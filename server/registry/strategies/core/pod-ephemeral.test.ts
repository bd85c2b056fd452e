// Ephemeral containers are refused where kube refuses them: on pod create (ValidatePodCreate: "cannot be set on
// create") and in every pod template (ValidatePodTemplateSpec: "ephemeral containers not allowed in pod template"),
// pkg/apis/core/validation/validation.go. They are only added through a running pod's ephemeralcontainers
// subresource.
import { FieldPath, formatFieldError } from '../../../api/field.js';
import type { KubeObject } from '../../../api/types.js';
import { statefulSetStrategy } from '../apps/statefulset.js';
import { validateControllerTemplate } from '../apps/workload.js';
import { podStrategy, validateTemplatePodSpec } from './pod.js';
import { podTemplateStrategy } from './podtemplate.js';
import { replicationControllerStrategy } from './replicationcontroller.js';

const debug = { name: 'debug', image: 'busybox' };
const spec = (extra: Record<string, unknown> = {}) => ({ restartPolicy: 'Always', containers: [{ name: 'app', image: 'nginx' }], ...extra });
const messages = (errs: Parameters<typeof formatFieldError>[0][]): string[] => errs.map(formatFieldError);
const obj = (o: Record<string, unknown>): KubeObject => o as KubeObject;

describe('ephemeral containers', () => {
  it('are refused on pod create, and absent ones are no error', () => {
    expect(messages(podStrategy.validate!(obj({ spec: spec({ ephemeralContainers: [debug] }) })))).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
    expect(messages(podStrategy.validate!(obj({ spec: spec({ ephemeralContainers: [] }) })))).toEqual([]);
  });

  it('are refused in a pod template, after the pod spec\'s own errors', () => {
    const errs = validateTemplatePodSpec({ containers: [], ephemeralContainers: [debug] }, FieldPath.root('spec').child('template', 'spec'));
    expect(messages(errs)).toEqual([
      'spec.template.spec.containers: Required value',
      'spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template',
    ]);
  });

  it('are refused in the templates of controllers, replication controllers and pod templates', () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: spec({ ephemeralContainers: [debug] }) };
    expect(messages(validateControllerTemplate({ template }, FieldPath.root('spec'), 'ReplicaSet'))).toEqual(['spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template']);
    expect(messages(replicationControllerStrategy.validate!(obj({ spec: { replicas: 1, selector: { app: 'a' }, template } })))).toContain('spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template');
    expect(messages(podTemplateStrategy.validate!(obj({ template })))).toEqual(['template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template']);
  });

  it('pass a StatefulSet, whose template pod spec kube does not validate (ValidatePodTemplateSpecForStatefulSet)', () => {
    const sts = obj({ metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [], ephemeralContainers: [debug] } } } });
    statefulSetStrategy.applyDefaults!(sts);
    expect(messages(statefulSetStrategy.validate!(sts))).toEqual([]);
  });
});
