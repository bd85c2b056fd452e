import { defaultFeatureGates, parseFeatureGates, setFeatureGates, type FeatureGates } from './feature-gates.js';

function gates(value: string, base?: FeatureGates): FeatureGates {
  const r = parseFeatureGates(value, base);
  if (!r.ok) throw new Error(r.error);
  return r.gates;
}

describe('feature gates', () => {
  it.each<[string, boolean]>([
    ['ManifestBasedAdmissionControlConfig', false],
    ['ExcludeAdmissionWebhookVirtualResources', true],
    ['MutatingAdmissionPolicy', true],
    ['AllAlpha', false],
    ['AllBeta', false],
  ])('defaults %s to %s', (name, value) => {
    expect(defaultFeatureGates().enabled(name as 'AllAlpha')).toBe(value);
  });

  it.each<[string, string, boolean]>([
    ['sets a gate by name', 'ManifestBasedAdmissionControlConfig=true', true],
    ['trims spaces around names and values', ' ManifestBasedAdmissionControlConfig = true ', true],
    ['AllAlpha turns on alpha gates', 'AllAlpha=true', true],
    ['a gate set by name wins over AllAlpha given after it', 'ManifestBasedAdmissionControlConfig=false,AllAlpha=true', false],
    ['a gate set by name wins over AllAlpha given before it', 'AllAlpha=true,ManifestBasedAdmissionControlConfig=false', false],
    ['the last value for a name wins', 'ManifestBasedAdmissionControlConfig=true,ManifestBasedAdmissionControlConfig=false', false],
    ['empty items are skipped', ',,ManifestBasedAdmissionControlConfig=1,', true],
  ])('%s', (_name, value, expected) => {
    expect(gates(value).enabled('ManifestBasedAdmissionControlConfig')).toBe(expected);
  });

  it('AllBeta=false turns off beta gates not set by name', () => {
    expect(gates('AllBeta=false').enabled('ExcludeAdmissionWebhookVirtualResources')).toBe(false);
    expect(gates('AllBeta=false,ExcludeAdmissionWebhookVirtualResources=true').enabled('ExcludeAdmissionWebhookVirtualResources')).toBe(true);
  });

  it('AllAlpha does not touch GA gates', () => {
    expect(gates('AllAlpha=false').enabled('MutatingAdmissionPolicy')).toBe(true);
  });

  it('merges a second flag on top of the first', () => {
    const first = gates('ManifestBasedAdmissionControlConfig=true');
    const second = gates('MutatingAdmissionPolicy=false', first);
    expect(second.enabled('ManifestBasedAdmissionControlConfig')).toBe(true);
    expect(second.enabled('MutatingAdmissionPolicy')).toBe(false);
    expect(second.toString()).toBe('ManifestBasedAdmissionControlConfig=true,MutatingAdmissionPolicy=false');
  });

  it.each<[string, string]>([
    ['Foo=true', 'unrecognized feature gate: Foo'],
    ['MutatingAdmissionPolicy', 'missing bool value for MutatingAdmissionPolicy'],
    ['MutatingAdmissionPolicy=maybe', 'invalid value of MutatingAdmissionPolicy=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ])('rejects %s', (value, error) => {
    expect(parseFeatureGates(value)).toEqual({ ok: false, error });
  });

  it('hands out immutable snapshots', () => {
    const g = gates('AllAlpha=true');
    expect(Object.isFrozen(g)).toBe(true);
    expect(Object.isFrozen(g.all())).toBe(true);
    expect(setFeatureGates([['MutatingAdmissionPolicy', false]], g).ok).toBe(true);
    expect(g.enabled('MutatingAdmissionPolicy')).toBe(true);
  });
});
