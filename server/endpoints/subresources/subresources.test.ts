// Pure logic of the pod, service and service-account subresources, table-driven after kube's own cases.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { parseRequestInfo } from '../../http/request-info.js';
import { ephemeralContainersStrategy, podQOS, resizeStrategy } from '../../registry/strategies/core/pod-subresources.js';
import { bindPod, validatePodBinding } from './binding.js';
import { connectOptionsFromQuery, connectSubpath } from './connect.js';
import { decrementBudget, isPodReady, selectingBudgets } from './eviction.js';
import { keyIdOf, newTokenIssuer, signJWT } from './token-request.js';

describe('CONNECT options from the query (getRequestOptions)', () => {
  it.each([
    ['PodExecOptions', { command: ['sh', '-c', 'ls'], stdin: ['1'], tty: ['true'], container: ['c'] }, undefined, { kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, tty: true, container: 'c', command: ['sh', '-c', 'ls'] }],
    // command has no omitempty: it is null when absent; false bools are omitted
    ['PodExecOptions', { stdout: ['false'] }, undefined, { kind: 'PodExecOptions', apiVersion: 'v1', command: null }],
    ['PodAttachOptions', { stdin: ['true'], stderr: ['T'] }, undefined, { kind: 'PodAttachOptions', apiVersion: 'v1', stdin: true, stderr: true }],
    ['PodPortForwardOptions', { ports: ['80', '443'] }, undefined, { kind: 'PodPortForwardOptions', apiVersion: 'v1', ports: [80, 443] }],
    // the subpath wins over ?path=
    ['PodProxyOptions', { path: ['/ignored'] }, '/a/b', { kind: 'PodProxyOptions', apiVersion: 'v1', path: '/a/b' }],
    ['ServiceProxyOptions', {}, '', { kind: 'ServiceProxyOptions', apiVersion: 'v1' }],
    ['NodeProxyOptions', { path: ['/stats'] }, undefined, { kind: 'NodeProxyOptions', apiVersion: 'v1', path: '/stats' }],
  ])('%s from %j', (kind, query, subpath, expected) => {
    expect(connectOptionsFromQuery(kind, query as Record<string, string[]>, subpath)).toEqual(expected);
  });

  it('refuses values the parameter codec cannot decode with 400', () => {
    expect(() => connectOptionsFromQuery('PodExecOptions', { stdin: ['yes'] }, undefined)).toThrow('strconv.ParseBool: parsing "yes": invalid syntax');
    expect(() => connectOptionsFromQuery('PodPortForwardOptions', { ports: ['http'] }, undefined)).toThrow('strconv.ParseInt: parsing "http": invalid syntax');
  });

  it.each([
    ['/api/v1/namespaces/ns/pods/p/proxy', ''],
    ['/api/v1/namespaces/ns/pods/p/proxy/', '/'],
    ['/api/v1/namespaces/ns/pods/p/proxy/metrics', '/metrics'],
    ['/api/v1/namespaces/ns/services/s/proxy/a/b/', '/a/b/'],
  ])('the subpath of %s is %j', (path, expected) => {
    expect(connectSubpath(parseRequestInfo('GET', path, {}))).toBe(expected);
  });

  it.each([
    ['GET', 'get'],
    ['POST', 'create'],
  ])('authorizes %s on pods/exec as %s (RequestInfo from the method)', (method, verb) => {
    const ri = parseRequestInfo(method, '/api/v1/namespaces/ns/pods/p/exec', { command: ['ls'] });
    expect(ri).toMatchObject({ verb, resource: 'pods', subresource: 'exec', name: 'p', namespace: 'ns' });
  });
});

describe('pods/binding', () => {
  it.each([
    [{ target: { name: 'n' } }, []],
    [{ target: { kind: 'Node', name: 'n' } }, []],
    [{ target: {} }, ['target.name: Required value']],
    [{ target: { kind: 'Pod', name: 'n' } }, ['target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"']],
  ])('ValidatePodBinding(%j)', (binding, expected) => {
    expect(validatePodBinding(binding)).toEqual(expected);
  });

  it('sets the node, merges annotations and adds PodScheduled', () => {
    const pod = { metadata: { name: 'p', annotations: { a: '1' } }, spec: { containers: [] }, status: { conditions: [{ type: 'Ready', status: 'False' }] } };
    const bound = bindPod(pod, 'node-1', { b: '2' }, '2026-01-01T00:00:00Z');
    expect(bound).toMatchObject({ metadata: { annotations: { a: '1', b: '2' } }, spec: { nodeName: 'node-1' } });
    expect((bound['status'] as { conditions: unknown[] }).conditions).toEqual([{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it.each([
    [{ metadata: { name: 'p', deletionTimestamp: 'x' }, spec: {} }, 'pod p is being deleted, cannot be assigned to a host'],
    [{ metadata: { name: 'p' }, spec: { nodeName: 'a' } }, 'pod p is already assigned to node "a"'],
    [{ metadata: { name: 'p' }, spec: { schedulingGates: [{ name: 'g' }] } }, 'pod p has non-empty .spec.schedulingGates'],
  ])('refuses %j with a conflict', (pod, why) => {
    expect(() => bindPod(pod, 'n', undefined, 'now')).toThrow(`Operation cannot be fulfilled on pods/binding "p": ${why}`);
  });
});

describe('pods/eviction', () => {
  const pod = { metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' } } };
  const pdb = (name: string, selector: unknown, status: Record<string, unknown> = {}, generation = 1) => ({ metadata: { name, namespace: 'ns', generation }, spec: { selector }, status: { observedGeneration: 1, ...status } });

  it('selects budgets in the namespace whose non-empty selector matches', () => {
    const all = [pdb('match', { matchLabels: { app: 'a' } }), pdb('empty', {}), pdb('other', { matchLabels: { app: 'b' } }), { ...pdb('elsewhere', { matchLabels: { app: 'a' } }), metadata: { name: 'elsewhere', namespace: 'x' } }];
    expect(selectingBudgets(all, pod).map((p) => p.metadata?.name)).toEqual(['match']);
  });

  it('reads readiness from the Ready condition', () => {
    expect(isPodReady({ status: { conditions: [{ type: 'Ready', status: 'True' }] } })).toBe(true);
    expect(isPodReady({ status: { phase: 'Running' } })).toBe(false);
  });

  it.each([
    ['no disruption left', pdb('b', {}, { disruptionsAllowed: 0, desiredHealthy: 3, currentHealthy: 2 }), 429, 'The disruption budget b needs 3 healthy pods and has 2 currently'],
    ['too many pending evictions', pdb('b', {}, { disruptionsAllowed: 1, disruptedPods: Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`p${i}`, 'T'])) }), 403, 'poddisruptionbudget.policy "b" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller'],
    ['a lagging observedGeneration', pdb('b', {}, { disruptionsAllowed: 5 }, 2), 429, 'The disruption budget b is still being processed by the server.'],
    ['a negative allowance', pdb('b', {}, { disruptionsAllowed: -1 }), 403, 'poddisruptionbudget.policy "b" is forbidden: pdb disruptions allowed is negative'],
  ])('refuses %s', (_t, budget, code, text) => {
    const d = decrementBudget(budget, 'p', 'now', false);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.error.code).toBe(code);
    const texts = [d.error.status.message, ...(d.error.status.details?.causes ?? []).map((c) => c.message)];
    expect(texts).toContain(text);
  });

  it('decrements, records the pod (not on a dry run) and flips DisruptionAllowed at zero', () => {
    const d = decrementBudget(pdb('b', {}, { disruptionsAllowed: 1 }), 'p', 'T', false);
    expect(d).toEqual({ ok: true, status: { observedGeneration: 1, disruptionsAllowed: 0, disruptedPods: { p: 'T' }, conditions: [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, reason: 'InsufficientPods', message: '', lastTransitionTime: 'T' }] } });
    const dry = decrementBudget(pdb('b', {}, { disruptionsAllowed: 2 }), 'p', 'T', true);
    expect(dry).toEqual({ ok: true, status: { observedGeneration: 1, disruptionsAllowed: 1 } });
  });
});

describe('pods/ephemeralcontainers and pods/resize strategies', () => {
  const base = { metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'x:1', resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } }] } };

  it('keep everything but their own fields of the stored pod', () => {
    const desired = { metadata: { name: 'p', labels: { x: 'y' } }, spec: { containers: [{ name: 'app', image: 'other:2', resources: { requests: { cpu: '2' }, limits: { cpu: '2' } } }], ephemeralContainers: [{ name: 'd', image: 'busybox' }] } };
    expect(ephemeralContainersStrategy.prepareForUpdate(desired, base)).toEqual({ metadata: { name: 'p' }, spec: { ...base.spec, ephemeralContainers: [{ name: 'd', image: 'busybox' }] } });
    expect(resizeStrategy.prepareForUpdate(desired, base)).toEqual({ metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'x:1', resources: { requests: { cpu: '2' }, limits: { cpu: '2' } } }] } });
  });

  it('forbid removing an ephemeral container and a target that is not a container', () => {
    const old = { ...base, spec: { ...base.spec, ephemeralContainers: [{ name: 'd', image: 'busybox' }] } };
    expect(ephemeralContainersStrategy.validateUpdate({ ...base, spec: { ...base.spec, ephemeralContainers: [{ name: 'e', image: 'b', targetContainerName: 'nope' }] } }, old)).toEqual([
      { type: 'NotFound', field: 'spec.ephemeralContainers[0].targetContainerName', badValue: 'nope' },
      { type: 'Forbidden', field: 'spec.ephemeralContainers', detail: 'existing ephemeral containers "d" may not be removed\n' },
    ]);
  });

  it('computes QOS classes as qos.ComputePodQOS does for cpu and memory', () => {
    // Guaranteed needs cpu and memory limits on every container, requests equal to them
    expect(podQOS(base)).toBe('Burstable');
    expect(podQOS({ spec: { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] } })).toBe('Burstable');
    expect(podQOS({ spec: { containers: [{ name: 'a', resources: { limits: { memory: '1Gi', cpu: '1' } } }] } })).toBe('Guaranteed');
    expect(podQOS({ spec: { containers: [{ name: 'a' }] } })).toBe('BestEffort');
  });

  it('refuse static pods', () => {
    const mirror = { ...base, metadata: { name: 'p', annotations: { 'kubernetes.io/config.mirror': 'x' } } };
    expect(resizeStrategy.validateUpdate(mirror, mirror)).toEqual([{ type: 'Forbidden', field: '', detail: 'static pods cannot be resized' }]);
    expect(ephemeralContainersStrategy.validateUpdate(mirror, mirror)).toEqual([{ type: 'Forbidden', field: '', detail: 'static pods do not support ephemeral containers' }]);
  });
});

describe('service account tokens', () => {
  it("sign RS256 JWTs with kube's kid and keys sorted as go-jose writes them", () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const issuer = newTokenIssuer('https://issuer', [], () => privateKey);
    expect(issuer.apiAudiences).toEqual(['https://issuer']);
    expect(issuer.keyId).toBe(keyIdOf(privateKey));
    expect(issuer.keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = signJWT(issuer, { sub: 's', aud: ['a'], 'kubernetes.io': { serviceaccount: { uid: 'u', name: 'n' }, namespace: 'ns' } });
    const [h, p, sig] = token.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', kid: issuer.keyId });
    expect(Buffer.from(p!, 'base64url').toString()).toBe('{"aud":["a"],"kubernetes.io":{"namespace":"ns","serviceaccount":{"name":"n","uid":"u"}},"sub":"s"}');
    expect(verify('sha256', Buffer.from(`${h}.${p}`), createPublicKey(privateKey), Buffer.from(sig!, 'base64url'))).toBe(true);
  });
});
