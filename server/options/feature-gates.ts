// The feature gates this apiserver knows, with k8s.io/component-base/featuregate semantics: `--feature-gates`
// is a comma list of Name=bool, repeated flags merge, AllAlpha/AllBeta set every gate of that stage not set
// explicitly, and the error texts are featuregate's ("unrecognized feature gate: Foo").
import { parseGoBool } from './go-strconv.js';

export type FeatureStage = 'Alpha' | 'Beta' | 'GA' | 'Deprecated';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** a locked gate cannot be set away from its default */
  lockToDefault?: boolean;
  description: string;
}

export const knownFeatures = {
  // KEP-5793, alpha in 1.36.
  ManifestBasedAdmissionControlConfig: {
    default: false,
    stage: 'Alpha',
    description: 'Load admission webhook and policy configurations from manifest files named in the AdmissionConfiguration.',
  },
  // Beta in 1.37: webhooks and policies stop seeing TokenReview, SubjectAccessReview and the other review resources.
  ExcludeAdmissionWebhookVirtualResources: {
    default: true,
    stage: 'Beta',
    description: 'Exclude the virtual authentication and authorization review resources from admission webhooks.',
  },
  // GA in 1.36 (admissionregistration.k8s.io/v1). Not locked, so tests can still turn the plugin off.
  MutatingAdmissionPolicy: {
    default: true,
    stage: 'GA',
    description: 'Serve MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding and run the MutatingAdmissionPolicy admission plugin.',
  },
  AllAlpha: { default: false, stage: 'Alpha', description: 'Sets every alpha gate not set explicitly.' },
  AllBeta: { default: false, stage: 'Beta', description: 'Sets every beta gate not set explicitly.' },
} as const satisfies Record<string, FeatureSpec>;

export type FeatureName = keyof typeof knownFeatures;

const featureNames = Object.keys(knownFeatures) as FeatureName[];

function isFeatureName(name: string): name is FeatureName {
  return Object.prototype.hasOwnProperty.call(knownFeatures, name);
}

function specOf(name: FeatureName): FeatureSpec {
  return knownFeatures[name];
}

/** An immutable set of gate values. */
export interface FeatureGates {
  enabled(name: FeatureName): boolean;
  /** every known gate and its effective value */
  all(): Readonly<Record<FeatureName, boolean>>;
  /** the gates set by name on the command line */
  explicit(): Readonly<Partial<Record<FeatureName, boolean>>>;
  /** "A=true,B=false" of the explicit gates, sorted, as featuregate.String() */
  toString(): string;
}

/** A gate's value: set by name, else filled by AllAlpha/AllBeta for its stage, else its default. */
function effectiveValue(name: FeatureName, explicit: Partial<Record<FeatureName, boolean>>): boolean {
  const named = explicit[name];
  if (named !== undefined) return named;
  const spec = specOf(name);
  if (!spec.lockToDefault && name !== 'AllAlpha' && name !== 'AllBeta') {
    if (spec.stage === 'Alpha' && explicit.AllAlpha !== undefined) return explicit.AllAlpha;
    if (spec.stage === 'Beta' && explicit.AllBeta !== undefined) return explicit.AllBeta;
  }
  return spec.default;
}

function makeGates(explicit: Partial<Record<FeatureName, boolean>>): FeatureGates {
  const frozenExplicit = Object.freeze({ ...explicit });
  const all = {} as Record<FeatureName, boolean>;
  for (const n of featureNames) all[n] = effectiveValue(n, frozenExplicit);
  const frozenAll = Object.freeze(all);
  return Object.freeze({
    enabled: (name: FeatureName): boolean => frozenAll[name],
    all: () => frozenAll,
    explicit: () => frozenExplicit,
    toString: () =>
      Object.keys(frozenExplicit)
        .sort()
        .map((k) => `${k}=${String(frozenExplicit[k as FeatureName])}`)
        .join(','),
  });
}

export function defaultFeatureGates(): FeatureGates {
  return makeGates({});
}

export type FeatureGatesResult = { ok: true; gates: FeatureGates; warnings: string[] } | { ok: false; error: string };

/**
 * featureGate.SetFromMap: applies name→value on top of `base`. Unknown names and locked gates are errors;
 * setting a GA or deprecated gate is a warning, as kube logs it. AllAlpha/AllBeta only fill gates that are
 * not set by name, whatever the order on the command line.
 */
export function setFeatureGates(values: ReadonlyArray<[string, boolean]>, base: FeatureGates = defaultFeatureGates()): FeatureGatesResult {
  const explicit: Partial<Record<FeatureName, boolean>> = { ...base.explicit() };
  const warnings: string[] = [];
  const errs: string[] = [];
  for (const [k, v] of values) {
    // featuregate returns at the first unknown gate.
    if (!isFeatureName(k)) return { ok: false, error: `unrecognized feature gate: ${k}` };
    const spec = specOf(k);
    if (spec.lockToDefault && spec.default !== v) {
      errs.push(`cannot set feature gate ${k} to ${String(v)}, feature is locked to ${String(spec.default)}`);
      continue;
    }
    explicit[k] = v;
    if (k === 'AllAlpha' || k === 'AllBeta') continue;
    if (spec.stage === 'Deprecated') warnings.push(`Setting deprecated feature gate ${k}=${String(v)}. It will be removed in a future release.`);
    else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${k}=${String(v)}. It will be removed in a future release.`);
  }
  if (errs.length) return { ok: false, error: errs.join(', ') };
  return { ok: true, gates: makeGates(explicit), warnings };
}

/**
 * featureGate.Set: parses a `--feature-gates` value ("A=true,B=false") on top of `base` (repeated flags merge).
 * Errors are featuregate's texts, without the pflag prefix.
 */
export function parseFeatureGates(value: string, base: FeatureGates = defaultFeatureGates()): FeatureGatesResult {
  const pairs: Array<[string, boolean]> = [];
  for (const s of value.split(',')) {
    if (s.length === 0) continue;
    const eq = s.indexOf('=');
    const k = (eq < 0 ? s : s.slice(0, eq)).trim();
    if (eq < 0) return { ok: false, error: `missing bool value for ${k}` };
    const v = s.slice(eq + 1).trim();
    const b = parseGoBool(v);
    if (!b.ok) return { ok: false, error: `invalid value of ${k}=${v}, err: ${b.error}` };
    // Later pairs for the same key win, as in the Go map.
    const existing = pairs.findIndex(([pk]) => pk === k);
    if (existing >= 0) pairs.splice(existing, 1);
    pairs.push([k, b.value]);
  }
  return setFeatureGates(pairs, base);
}

/** Known gates for --help, "Name=true|false (STAGE - default=x)" as kube prints them. */
export function featureGatesHelp(): string[] {
  return featureNames
    .filter((n) => specOf(n).stage !== 'GA' || !specOf(n).lockToDefault)
    .sort()
    .map((n) => {
      const s = specOf(n);
      return `${n}=true|false (${s.stage === 'GA' ? 'GA' : s.stage.toUpperCase()} - default=${String(s.default)})`;
    });
}
