import { packageOfModel, parseModelName } from './definition-names.js';
import { parseModelDeclaration, readModelDoc } from './model-docs.js';

describe('parseModelDeclaration', () => {
  it('reads the class and property JSDoc and required-ness as the OpenAPI generator writes them', () => {
    const doc = parseModelDeclaration(`import { V1ObjectMeta } from '../models/V1ObjectMeta.js';
/**
* A thing\\'s \\"doc\\".
*/
export declare class V1Thing {
    /**
    * Number of port. Must be 0 < x < 65536.
    */
    'containerPort': number;
    'metadata'?: V1ObjectMeta;
    /**
    * Optional name.
    */
    'name'?: string;
    static readonly discriminator: string | undefined;
}`);
    expect(doc.description).toBe(`A thing's "doc".`);
    expect([...doc.fields]).toEqual([
      ['containerPort', { description: 'Number of port. Must be 0 < x < 65536.', required: true }],
      ['metadata', { required: false }],
      ['name', { description: 'Optional name.', required: false }],
    ]);
  });

  it("reads client-node's own declaration of a model, and nothing for a model it does not have", async () => {
    const port = await readModelDoc('V1ContainerPort');
    expect(port?.description).toBe('ContainerPort represents a network port in a single container.');
    expect(port?.fields.get('containerPort')).toEqual({ description: "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536.", required: true });
    expect(await readModelDoc('V1NoSuchModel')).toBeUndefined();
    expect(await readModelDoc('../V1Pod')).toBeUndefined();
  });
});

describe('packageOfModel', () => {
  const core = { group: '', version: 'v1' };
  const apps = { group: 'apps', version: 'v1' };
  const adm = { group: 'admissionregistration.k8s.io', version: 'v1' };
  it.each([
    ['V1PodSpec', core, { group: '', version: 'v1', type: 'PodSpec' }],
    ['V1ObjectMeta', apps, { group: 'meta.k8s.io', version: 'v1', type: 'ObjectMeta' }],
    ['V1PodTemplateSpec', apps, { group: '', version: 'v1', type: 'PodTemplateSpec' }],
    ['V1DeploymentStrategy', apps, { group: 'apps', version: 'v1', type: 'DeploymentStrategy' }],
    ['CoreV1EventSeries', core, { group: '', version: 'v1', type: 'EventSeries' }],
    ['AdmissionregistrationV1WebhookClientConfig', adm, { group: 'admissionregistration.k8s.io', version: 'v1', type: 'WebhookClientConfig' }],
    ['ApiextensionsV1ServiceReference', { group: 'apiextensions.k8s.io', version: 'v1' }, { group: 'apiextensions.k8s.io', version: 'v1', type: 'ServiceReference' }],
    // MutatingAdmissionPolicy is served as v1 from client-node's v1beta1 models
    ['V1beta1Mutation', adm, { group: 'admissionregistration.k8s.io', version: 'v1', type: 'Mutation' }],
  ])('puts %s reached from %j in %j', (model, from, want) => {
    expect(packageOfModel(model, from)).toEqual(want);
  });

  it('parses model names into prefix, version and Go type', () => {
    expect(parseModelName('V1beta1MatchCondition')).toEqual({ version: 'v1beta1', type: 'MatchCondition' });
    expect(parseModelName('CoreV1Event')).toEqual({ prefix: 'Core', version: 'v1', type: 'Event' });
    expect(parseModelName('Date')).toBeUndefined();
  });
});
