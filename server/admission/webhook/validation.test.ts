import type { MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from '../../api/admissionregistration.js';
import { formatFieldError, type FieldError } from '../../api/field.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../registry/validation/name.js';
import {
  setDefaultsMutatingWebhookConfiguration,
  setDefaultsValidatingWebhookConfiguration,
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
  validateStaticSuffix,
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
  warningsForMutatingWebhookRules,
  warningsForStaticSuffix,
  warningsForValidatingWebhookRules,
} from './validation.js';

// A webhook that passes validation, already defaulted.
function hook(over: Record<string, unknown> = {}): ValidatingWebhook {
  return {
    name: 'check.example.com',
    clientConfig: { url: 'https://webhook.example.com/check' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    ...over,
  } as ValidatingWebhook;
}

function vwc(...webhooks: ValidatingWebhook[]): ValidatingWebhookConfiguration {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'cfg' }, webhooks };
}

const summary = (errs: FieldError[]) => errs.map((e) => ({ type: e.type, field: e.field, detail: e.detail }));
const messages = (errs: FieldError[]) => errs.map(formatFieldError);

describe('validateValidatingWebhookConfiguration accepts valid configurations', () => {
  it.each([
    ['a minimal webhook', hook()],
    ['a service reference', hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/check', port: 8443 } } })],
    ['a service without path', hook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } })],
    ['service path "/"', hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/' } } })],
    ['service path with a trailing slash', hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/a/b/' } } })],
    ['a URL with a port', hook({ clientConfig: { url: 'https://127.0.0.1:8443/x' } })],
    ['an IPv6 URL', hook({ clientConfig: { url: 'https://[::1]:8443/x' } })],
    ['an empty fragment', hook({ clientConfig: { url: 'https://example.com/x#' } })],
    ['timeoutSeconds 1', hook({ timeoutSeconds: 1 })],
    ['timeoutSeconds 30', hook({ timeoutSeconds: 30 })],
    ['sideEffects NoneOnDryRun', hook({ sideEffects: 'NoneOnDryRun' })],
    ['both review versions', hook({ admissionReviewVersions: ['v1beta1', 'v1'] })],
    ['an unknown review version next to a known one', hook({ admissionReviewVersions: ['v2', 'v1'] })],
    ['no rules', hook({ rules: [] })],
    ['operations *', hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] })],
    ['* with subresources', hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', 'pods/status', '*/scale'] }] })],
    ['pods/* alone', hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*'] }] })],
    ['*/status with another resource', hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/status', 'pods'] }] })],
    // kube assigns "has a plain resource" per entry, so only the last plain entry counts
    ['pods then *', hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', '*'] }] })],
    ['the core group ""', hook({ rules: [{ operations: ['DELETE', 'CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'], scope: 'Namespaced' }] })],
    ['selectors', hook({ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, objectSelector: { matchLabels: { app: 'x' } } })],
    ['match conditions', hook({ matchConditions: [{ name: 'not-kube-system', expression: 'request.namespace != "kube-system"' }, { name: 'example.com/second', expression: 'true' }] })],
  ])('%s', (_name, h) => {
    expect(validateValidatingWebhookConfiguration(vwc(h))).toEqual([]);
  });

  it('accepts a configuration without webhooks', () => {
    expect(validateValidatingWebhookConfiguration(vwc())).toEqual([]);
  });
});

describe('validateValidatingWebhookConfiguration: field errors', () => {
  const required = (field: string, detail = '') => ({ type: 'Required', field, detail });
  const invalid = (field: string, detail: string) => ({ type: 'Invalid', field, detail });
  const notSupported = (field: string, values: string[]) => ({ type: 'NotSupported', field, detail: `supported values: ${values.map((v) => `"${v}"`).join(', ')}` });
  const w0 = 'webhooks[0]';
  const r0 = `${w0}.rules[0]`;
  const ruleWith = (over: Record<string, unknown>) => hook({ rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...over }] });
  const urlHook = (url: string) => hook({ clientConfig: { url } });
  const form = '; desired format: https://host[/path]';
  const svcHook = (service: Record<string, unknown>) => hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', ...service } } });

  it.each<[string, ValidatingWebhook, Array<{ type: string; field: string; detail?: string }>]>([
    // names
    ['a missing name', hook({ name: '' }), [required(`${w0}.name`)]],
    ['a name with two segments', hook({ name: 'k8s.io' }), [invalid(`${w0}.name`, 'should be a domain with at least three segments separated by dots')]],
    ['a name that is not a DNS subdomain', hook({ name: 'Check.example.com' }), [invalid(`${w0}.name`, isDNS1123Subdomain('Check.example.com').join(','))]],
    // admissionReviewVersions
    ['no admissionReviewVersions', hook({ admissionReviewVersions: [] }), [required(`${w0}.admissionReviewVersions`, 'must specify one of v1, v1beta1')]],
    ['only unsupported versions', hook({ admissionReviewVersions: ['v1beta2'] }), [invalid(`${w0}.admissionReviewVersions`, 'must include at least one of v1, v1beta1')]],
    ['a duplicate version', hook({ admissionReviewVersions: ['v1', 'v1'] }), [invalid(`${w0}.admissionReviewVersions[1]`, 'duplicate version')]],
    [
      'a version that is not a DNS-1035 label',
      hook({ admissionReviewVersions: ['V1', 'v1'] }),
      [invalid(`${w0}.admissionReviewVersions[0]`, isDNS1035Label('V1')[0]!)],
    ],
    // sideEffects, policies, timeout
    ['no sideEffects', hook({ sideEffects: undefined }), [required(`${w0}.sideEffects`, 'must specify one of None, NoneOnDryRun')]],
    ['sideEffects Some', hook({ sideEffects: 'Some' }), [notSupported(`${w0}.sideEffects`, ['None', 'NoneOnDryRun'])]],
    ['sideEffects Unknown', hook({ sideEffects: 'Unknown' }), [notSupported(`${w0}.sideEffects`, ['None', 'NoneOnDryRun'])]],
    ['failurePolicy Maybe', hook({ failurePolicy: 'Maybe' }), [notSupported(`${w0}.failurePolicy`, ['Fail', 'Ignore'])]],
    ['matchPolicy Loose', hook({ matchPolicy: 'Loose' }), [notSupported(`${w0}.matchPolicy`, ['Equivalent', 'Exact'])]],
    ['timeoutSeconds 0', hook({ timeoutSeconds: 0 }), [invalid(`${w0}.timeoutSeconds`, 'the timeout value must be between 1 and 30 seconds')]],
    ['timeoutSeconds 31', hook({ timeoutSeconds: 31 }), [invalid(`${w0}.timeoutSeconds`, 'the timeout value must be between 1 and 30 seconds')]],
    // rules
    ['no operations', ruleWith({ operations: [] }), [required(`${r0}.operations`)]],
    ['* with other operations', ruleWith({ operations: ['*', 'CREATE'] }), [invalid(`${r0}.operations`, "if '*' is present, must not specify other operations")]],
    ['an unknown operation', ruleWith({ operations: ['PATCH'] }), [notSupported(`${r0}.operations[0]`, ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'])]],
    ['no apiGroups', ruleWith({ apiGroups: [] }), [required(`${r0}.apiGroups`)]],
    ['* with other groups', ruleWith({ apiGroups: ['*', 'apps'] }), [invalid(`${r0}.apiGroups`, "if '*' is present, must not specify other API groups")]],
    ['no apiVersions', ruleWith({ apiVersions: [] }), [required(`${r0}.apiVersions`)]],
    ['* with other versions', ruleWith({ apiVersions: ['*', 'v1'] }), [invalid(`${r0}.apiVersions`, "if '*' is present, must not specify other API versions")]],
    ['an empty version', ruleWith({ apiVersions: ['v1', ''] }), [required(`${r0}.apiVersions[1]`)]],
    ['no resources', ruleWith({ resources: [] }), [required(`${r0}.resources`)]],
    ['an empty resource', ruleWith({ resources: ['pods', ''] }), [required(`${r0}.resources[1]`)]],
    ['*/* with others', ruleWith({ resources: ['*/*', 'pods/status'] }), [invalid(`${r0}.resources`, "if '*/*' is present, must not specify other resources")]],
    ['* with a plain resource', ruleWith({ resources: ['*', 'pods'] }), [invalid(`${r0}.resources`, "if '*' is present, must not specify other resources without subresources")]],
    ['pods/* then pods/status', ruleWith({ resources: ['pods/*', 'pods/status'] }), [invalid(`${r0}.resources[1]`, "if 'pods/*' is present, must not specify pods/status")]],
    ['*/status then pods/status', ruleWith({ resources: ['*/status', 'pods/status'] }), [invalid(`${r0}.resources[1]`, "if '*/status' is present, must not specify pods/status")]],
    [
      '*/* then pods/*',
      ruleWith({ resources: ['*/*', 'pods/*'] }),
      [invalid(`${r0}.resources[1]`, "if '*/*' is present, must not specify pods/*"), invalid(`${r0}.resources`, "if '*/*' is present, must not specify other resources")],
    ],
    ['an unknown scope', ruleWith({ scope: 'Everywhere' }), [notSupported(`${r0}.scope`, ['*', 'Cluster', 'Namespaced'])]],
    // clientConfig
    ['neither url nor service', hook({ clientConfig: {} }), [required(`${w0}.clientConfig`, 'exactly one of url or service is required')]],
    ['both url and service', hook({ clientConfig: { url: 'https://a.example.com', service: { namespace: 'ns', name: 'svc' } } }), [required(`${w0}.clientConfig`, 'exactly one of url or service is required')]],
    ['an http URL', urlHook('http://example.com/x'), [invalid(`${w0}.clientConfig.url`, `'https' is the only allowed URL scheme${form}`)]],
    ['a URL without host', urlHook('https:///x'), [invalid(`${w0}.clientConfig.url`, `host must be provided${form}`)]],
    ['an opaque URL', urlHook('https:example.com'), [invalid(`${w0}.clientConfig.url`, `host must be provided${form}`)]],
    ['an empty URL', urlHook(''), [invalid(`${w0}.clientConfig.url`, `'https' is the only allowed URL scheme${form}`), invalid(`${w0}.clientConfig.url`, `host must be provided${form}`)]],
    ['user information', urlHook('https://user:pw@example.com/x'), [invalid(`${w0}.clientConfig.url`, 'user information is not permitted in the URL')]],
    ['a fragment', urlHook('https://example.com/x#frag'), [invalid(`${w0}.clientConfig.url`, 'fragments are not permitted in the URL')]],
    ['a query', urlHook('https://example.com/x?a=b'), [invalid(`${w0}.clientConfig.url`, 'query parameters are not permitted in the URL')]],
    ['a URL without scheme', urlHook('://example.com'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "://example.com": missing protocol scheme${form}`)]],
    ['a bad port', urlHook('https://example.com:abc/x'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "https://example.com:abc/x": invalid port ":abc" after host${form}`)]],
    ['a space in the host', urlHook('https://exa mple.com/x'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "https://exa mple.com/x": invalid character " " in host name${form}`)]],
    ['a bad escape', urlHook('https://example.com/%zz'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "https://example.com/%zz": invalid URL escape "%zz"${form}`)]],
    ['a control character', urlHook('https://example.com/\n'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "https://example.com/\\n": net/url: invalid control character in URL${form}`)]],
    ['a colon in the first segment', urlHook('1a:b/c'), [required(`${w0}.clientConfig.url`, `url must be a valid URL: parse "1a:b/c": first path segment in URL cannot contain colon${form}`)]],
    ['a service without name and namespace', hook({ clientConfig: { service: { namespace: '', name: '' } } }), [required(`${w0}.clientConfig.service.name`, 'service name is required'), required(`${w0}.clientConfig.service.namespace`, 'service namespace is required')]],
    ['port 0', svcHook({ port: 0 }), [invalid(`${w0}.clientConfig.service.port`, 'port is not valid: must be between 1 and 65535, inclusive')]],
    ['port 65536', svcHook({ port: 65536 }), [invalid(`${w0}.clientConfig.service.port`, 'port is not valid: must be between 1 and 65535, inclusive')]],
    ['a relative path', svcHook({ path: 'check' }), [invalid(`${w0}.clientConfig.service.path`, "must start with a '/'")]],
    ['path //', svcHook({ path: '//' }), [invalid(`${w0}.clientConfig.service.path`, 'segment[0] may not be empty')]],
    ['an empty segment', svcHook({ path: '/a//b' }), [invalid(`${w0}.clientConfig.service.path`, 'segment[1] may not be empty')]],
    ['an upper-case segment', svcHook({ path: '/Check' }), [invalid(`${w0}.clientConfig.service.path`, `segment[0]: ${isDNS1123Subdomain('Check')[0]}`)]],
    // selectors
    [
      'an invalid namespaceSelector',
      hook({ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['a'] }] } }),
      [invalid(`${w0}.namespaceSelector.matchExpressions[0].operator`, 'not a valid selector operator')],
    ],
    [
      'an objectSelector without In values',
      hook({ objectSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] } }),
      [required(`${w0}.objectSelector.matchExpressions[0].values`, "must be specified when `operator` is 'In' or 'NotIn'")],
    ],
    // matchConditions
    ['a matchCondition without name', hook({ matchConditions: [{ name: '', expression: 'true' }] }), [required(`${w0}.matchConditions[0].name`)]],
    ['a matchCondition without expression', hook({ matchConditions: [{ name: 'a', expression: '  ' }] }), [required(`${w0}.matchConditions[0].expression`)]],
    ['duplicate matchCondition names', hook({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'false' }] }), [{ type: 'Duplicate', field: `${w0}.matchConditions[1].name`, detail: undefined }]],
    ['too many matchConditions', hook({ matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) }), [{ type: 'TooMany', field: `${w0}.matchConditions`, detail: 'must have at most 64 items' }]],
  ])('%s', (_name, h, want) => {
    expect(summary(validateValidatingWebhookConfiguration(vwc(h)))).toEqual(want);
  });

  it('reports an invalid matchCondition name as a qualified name', () => {
    const errs = validateValidatingWebhookConfiguration(vwc(hook({ matchConditions: [{ name: 'a/b/c', expression: 'true' }] })));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ type: 'Invalid', field: `${w0}.matchConditions[0].name`, badValue: 'a/b/c' });
  });

  it('reports duplicate webhook names on the later webhook', () => {
    const errs = validateValidatingWebhookConfiguration(vwc(hook({ name: 'a.example.com' }), hook({ name: 'b.example.com' }), hook({ name: 'a.example.com' })));
    expect(messages(errs)).toEqual(['webhooks[2].name: Duplicate value: "a.example.com"']);
  });

  it('prints the errors as kube-apiserver does', () => {
    const errs = validateValidatingWebhookConfiguration(vwc(hook({ name: 'webhook.k8s', timeoutSeconds: 45, sideEffects: 'Some', clientConfig: { url: 'http://x.example.com' } })));
    expect(messages(errs)).toEqual([
      'webhooks[0].name: Invalid value: "webhook.k8s": should be a domain with at least three segments separated by dots',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds',
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    ]);
  });

  it('collects every error, webhook by webhook, in kube\'s order', () => {
    const errs = validateValidatingWebhookConfiguration(
      vwc(hook({ name: '', rules: [{ operations: [], apiGroups: [], apiVersions: [], resources: [] }], failurePolicy: 'X', clientConfig: {}, admissionReviewVersions: [] }), hook({ sideEffects: undefined })),
    );
    expect(errs.map((e) => e.field)).toEqual([
      'webhooks[0].name',
      'webhooks[0].rules[0].operations',
      'webhooks[0].rules[0].apiGroups',
      'webhooks[0].rules[0].apiVersions',
      'webhooks[0].rules[0].resources',
      'webhooks[0].failurePolicy',
      'webhooks[0].clientConfig',
      'webhooks[0].admissionReviewVersions',
      'webhooks[1].sideEffects',
    ]);
  });

  it('shows the user information Go\'s Userinfo.String() prints', () => {
    const errs = validateValidatingWebhookConfiguration(vwc(urlHook('https://us%40er@example.com/')));
    expect(errs[0]).toMatchObject({ badValue: 'us%40er' });
  });

  it('validates metadata when asked (manifests)', () => {
    const obj = vwc(hook());
    obj.metadata = {};
    expect(validateValidatingWebhookConfiguration(obj)).toEqual([]);
    expect(validateValidatingWebhookConfiguration(obj, { validateObjectMeta: true }).map((e) => e.field)).toEqual(['metadata.name']);
  });
});

describe('matchCondition compilation hook', () => {
  it('compiles each trimmed expression and reports the compiler\'s detail on the expression', () => {
    const seen: Array<[string, boolean]> = [];
    const compileMatchCondition = (expr: string, env: { stored: boolean }) => {
      seen.push([expr, env.stored]);
      return expr === 'bad(' ? "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>'" : undefined;
    };
    const errs = validateValidatingWebhookConfiguration(vwc(hook({ matchConditions: [{ name: 'ok', expression: ' true ' }, { name: 'broken', expression: 'bad(' }] })), { compileMatchCondition });
    expect(seen).toEqual([
      ['true', false],
      ['bad(', false],
    ]);
    expect(messages(errs)).toEqual(["webhooks[0].matchConditions[1].expression: Invalid value: \"bad(\": ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>'"]);
  });
});

describe('validateMutatingWebhookConfiguration', () => {
  const mwc = (over: Record<string, unknown>): MutatingWebhookConfiguration => ({ metadata: { name: 'cfg' }, webhooks: [{ ...hook(), reinvocationPolicy: 'Never', ...over }] });

  it.each(['Never', 'IfNeeded'])('accepts reinvocationPolicy %s', (p) => {
    expect(validateMutatingWebhookConfiguration(mwc({ reinvocationPolicy: p }))).toEqual([]);
  });

  it('rejects an unknown reinvocationPolicy, after the selectors and before clientConfig', () => {
    const errs = validateMutatingWebhookConfiguration(mwc({ reinvocationPolicy: 'Always', clientConfig: {} }));
    expect(messages(errs)).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
  });

  it('does not look at reinvocationPolicy on validating webhooks', () => {
    expect(validateValidatingWebhookConfiguration(vwc({ ...hook(), reinvocationPolicy: 'Always' } as ValidatingWebhook))).toEqual([]);
  });
});

describe('update validation relaxes what the old object already broke', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, number]>([
    ['sideEffects Unknown is kept when the old object had it', { sideEffects: 'Unknown' }, { sideEffects: 'Unknown' }, 0],
    ['sideEffects Some may be set when an old webhook had Unknown', { sideEffects: 'Unknown' }, { sideEffects: 'Some' }, 0],
    ['sideEffects Some may not be set on a clean object', { sideEffects: 'None' }, { sideEffects: 'Some' }, 1],
    ['sideEffects stay required', { sideEffects: 'Unknown' }, { sideEffects: undefined }, 1],
    ['unsupported review versions are kept', { admissionReviewVersions: ['v1beta2'] }, { admissionReviewVersions: ['v1beta3'] }, 0],
    ['unsupported review versions may not be introduced', { admissionReviewVersions: ['v1'] }, { admissionReviewVersions: ['v1beta2'] }, 1],
    ['invalid matchLabels values are refused even when the old object had them', { objectSelector: { matchLabels: { a: '-bad-' } } }, { objectSelector: { matchLabels: { a: '-bad-' } } }, 1],
    [
      'invalid selector expression values are allowed once there',
      { namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['-bad-'] }] } },
      { namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['-worse-'] }] } },
      0,
    ],
    ['unchanged matchConditions are not validated again', { matchConditions: [{ name: 'a/b/c', expression: 'true' }] }, { matchConditions: [{ name: 'a/b/c', expression: 'true' }] }, 0],
    ['changed matchConditions are', { matchConditions: [{ name: 'a/b/c', expression: 'true' }] }, { matchConditions: [{ name: 'a/b/c', expression: 'false' }] }, 1],
    ['timeouts are always checked', {}, { timeoutSeconds: 60 }, 1],
  ])('%s', (_name, oldOver, newOver, errCount) => {
    const errs = validateValidatingWebhookConfigurationUpdate(vwc(hook(newOver)), vwc(hook(oldOver)));
    expect(errs).toHaveLength(errCount);
  });

  it('keeps duplicate webhook names that were already there, but refuses new ones', () => {
    const dup = vwc(hook(), hook());
    expect(validateValidatingWebhookConfigurationUpdate(dup, dup)).toEqual([]);
    expect(messages(validateValidatingWebhookConfigurationUpdate(dup, vwc(hook(), hook({ name: 'other.example.com' }))))).toEqual([
      'webhooks[1].name: Duplicate value: "check.example.com"',
    ]);
  });

  it('compiles expressions the old object had in the stored-expressions environment', () => {
    const seen: Array<[string, boolean]> = [];
    const compileMatchCondition = (expr: string, env: { stored: boolean }) => {
      seen.push([expr, env.stored]);
      return undefined;
    };
    const old = vwc(hook({ matchConditions: [{ name: 'a', expression: 'old()' }] }));
    validateValidatingWebhookConfigurationUpdate(vwc(hook({ matchConditions: [{ name: 'a', expression: 'old()' }, { name: 'b', expression: 'new()' }] })), old, { compileMatchCondition });
    expect(seen).toEqual([
      ['old()', true],
      ['new()', false],
    ]);
  });

  it('applies to mutating configurations the same way', () => {
    const mwc = (sideEffects: string): MutatingWebhookConfiguration => ({ metadata: { name: 'cfg' }, webhooks: [{ ...hook({ sideEffects }), reinvocationPolicy: 'Never' }] });
    expect(validateMutatingWebhookConfigurationUpdate(mwc('Some'), mwc('Unknown'))).toEqual([]);
    expect(validateMutatingWebhookConfigurationUpdate(mwc('Some'), mwc('None'))).toHaveLength(1);
  });
});

describe('v1 defaults', () => {
  it('fills every defaulted field of a validating webhook', () => {
    const obj: ValidatingWebhookConfiguration = {
      metadata: { name: 'cfg' },
      webhooks: [{ name: 'a.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    };
    setDefaultsValidatingWebhookConfiguration(obj);
    expect(obj.webhooks![0]).toEqual({
      name: 'a.example.com',
      clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1'],
    });
  });

  it('adds reinvocationPolicy Never to mutating webhooks only', () => {
    const m: MutatingWebhookConfiguration = { metadata: { name: 'cfg' }, webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example.com' } }] };
    setDefaultsMutatingWebhookConfiguration(m);
    expect(m.webhooks![0]).toMatchObject({ reinvocationPolicy: 'Never', timeoutSeconds: 10 });
    const v: ValidatingWebhookConfiguration = { metadata: { name: 'cfg' }, webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example.com' } }] };
    setDefaultsValidatingWebhookConfiguration(v);
    expect(v.webhooks![0]).not.toHaveProperty('reinvocationPolicy');
  });

  it('keeps what is set, and does not default sideEffects or admissionReviewVersions', () => {
    const obj: ValidatingWebhookConfiguration = {
      metadata: { name: 'cfg' },
      webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example.com' }, failurePolicy: 'Ignore', matchPolicy: 'Exact', timeoutSeconds: 3, namespaceSelector: { matchLabels: { a: 'b' } }, rules: [{ scope: 'Cluster' }] }],
    };
    setDefaultsValidatingWebhookConfiguration(obj);
    expect(obj.webhooks![0]).toEqual({
      name: 'a.example.com',
      clientConfig: { url: 'https://x.example.com' },
      failurePolicy: 'Ignore',
      matchPolicy: 'Exact',
      timeoutSeconds: 3,
      namespaceSelector: { matchLabels: { a: 'b' } },
      objectSelector: {},
      rules: [{ scope: 'Cluster' }],
    });
  });

  it('replaces nulls as Go decodes them to nil', () => {
    const obj = { metadata: { name: 'cfg' }, webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example.com' }, failurePolicy: null, timeoutSeconds: null }] } as unknown as ValidatingWebhookConfiguration;
    setDefaultsValidatingWebhookConfiguration(obj);
    expect(obj.webhooks![0]).toMatchObject({ failurePolicy: 'Fail', timeoutSeconds: 10 });
  });

  it('leaves a configuration without webhooks alone', () => {
    const obj: ValidatingWebhookConfiguration = { metadata: { name: 'cfg' } };
    setDefaultsValidatingWebhookConfiguration(obj);
    expect(obj).toEqual({ metadata: { name: 'cfg' } });
  });
});

describe('warnings for rules naming excluded virtual resources', () => {
  const rule = (apiGroups: string[], apiVersions: string[], resources: string[]) => ({ operations: ['*' as const], apiGroups, apiVersions, resources });
  it.each<[string, ReturnType<typeof rule>[], string[]]>([
    ['normal resources', [rule([''], ['v1'], ['pods', 'configmaps'])], []],
    ['an explicit excluded resource', [rule(['authentication.k8s.io'], ['v1'], ['tokenreviews'])], ['webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect']],
    ['a mixed rule', [rule(['authorization.k8s.io'], ['v1'], ['subjectaccessreviews', 'somethingelse'])], ['webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect']],
    ['all wildcards', [rule(['*'], ['*'], ['*'])], []],
    ['a wildcard group', [rule(['*'], ['v1'], ['tokenreviews'])], []],
    ['a wildcard resource', [rule(['authentication.k8s.io'], ['v1'], ['*'])], []],
    // every version of an excluded resource is excluded, so the version does not matter
    ['a wildcard version', [rule(['authentication.k8s.io'], ['*'], ['tokenreviews'])], ['webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect']],
    ['the name in another group', [rule(['example.com'], ['v1'], ['tokenreviews'])], []],
    ['a repeated name, reported once', [rule(['authentication.k8s.io', 'authentication.k8s.io'], ['v1'], ['tokenreviews'])], ['webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect']],
    [
      'several rules and resources',
      [rule([''], ['v1'], ['pods']), rule(['authentication.k8s.io', 'authorization.k8s.io'], ['v1'], ['tokenreviews', 'selfsubjectrulesreviews'])],
      [
        'webhooks[0].rules[1]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect',
        'webhooks[0].rules[1]: selfsubjectrulesreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect',
      ],
    ],
  ])('%s', (_name, rules, want) => {
    expect(warningsForValidatingWebhookRules(vwc(hook({ rules })))).toEqual(want);
    expect(warningsForMutatingWebhookRules({ metadata: { name: 'cfg' }, webhooks: [hook({ rules })] })).toEqual(want);
  });

  it('names the webhook the rule belongs to', () => {
    const w = warningsForValidatingWebhookRules(vwc(hook(), hook({ name: 'b.example.com', rules: [rule(['authentication.k8s.io'], ['v1'], ['selfsubjectreviews'])] })));
    expect(w).toEqual(['webhooks[1].rules[0]: selfsubjectreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect']);
  });
});

describe('the reserved .static.k8s.io suffix', () => {
  it('is refused with kube\'s message', () => {
    expect(messages(validateStaticSuffix('protect.static.k8s.io'))).toEqual([
      'metadata.name: Invalid value: "protect.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API',
    ]);
    expect(validateStaticSuffix('protect.example.com')).toEqual([]);
  });

  it('is warned about', () => {
    expect(warningsForStaticSuffix('protect.static.k8s.io')).toEqual([
      'metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API',
    ]);
    expect(warningsForStaticSuffix('static.k8s.io.example.com')).toEqual([]);
  });
});
