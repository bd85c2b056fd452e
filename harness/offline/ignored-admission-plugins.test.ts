// Which AdmissionConfiguration plugins entries kube-apiserver never reads (configProvider.ConfigFor looks up enabled
// plugins by name, first entry wins) and the "did you mean" for a misspelled name.
import { allOrderedAdmissionPlugins } from '../../server/options/admission-plugins.js';
import { closestPluginName, ignoredAdmissionPluginEntries } from './ignored-admission-plugins.js';

const all = [...allOrderedAdmissionPlugins];

describe('ignoredAdmissionPluginEntries', () => {
  it.each([
    ['every entry read', ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'], all, []],
    ['an entry without a name', [''], all, ['plugins[0]: an entry without a name is ignored']],
    ['a lower-case name (names are case-sensitive)', ['validatingadmissionwebhook'], all, ['plugins[0].name: "validatingadmissionwebhook" is not an admission plugin: its configuration is ignored (did you mean "ValidatingAdmissionWebhook"?)']],
    ['a name far from any plugin', ['MyPlugin'], all, ['plugins[0].name: "MyPlugin" is not an admission plugin: its configuration is ignored']],
    ['a repeat', ['PodSecurity', 'PodSecurity'], all, ['plugins[1].name: "PodSecurity" is configured again: only the first entry, plugins[0], is read and this one is ignored']],
    ['a disabled plugin', ['PodSecurity'], ['NamespaceLifecycle'], ['plugins[0].name: "PodSecurity" is not enabled (--enable-admission-plugins, --disable-admission-plugins): its configuration is ignored']],
  ])('%s', (_name, entries, enabled, expected) => {
    expect(ignoredAdmissionPluginEntries(entries, enabled)).toEqual(expected);
  });
});

describe('closestPluginName', () => {
  it.each([
    ['ValidatingAdmissionWebhok', 'ValidatingAdmissionWebhook'],
    ['MutatingAdmisionPolicy', 'MutatingAdmissionPolicy'],
    ['podsecurity', 'PodSecurity'],
    ['Foo', undefined],
  ])('%s → %s', (name, expected) => {
    expect(closestPluginName(name)).toBe(expected);
  });
});
