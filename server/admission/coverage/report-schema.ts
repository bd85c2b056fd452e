// The admission coverage report (kah.admission-coverage/v1): what each webhook and policy was asked, what it
// answered, and which cells of its rules no request ever reached. This is the JSON the server writes
// (--admission-coverage), serves at /debug/admission-coverage, and `kah report` renders. Additive changes keep the
// version; a field removed or changing meaning bumps it.

export const coverageSchemaVersion = 'kah.admission-coverage/v1';

export type CoverageConfigurationKind = 'ValidatingWebhook' | 'MutatingWebhook' | 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';

/** The decisions one matched request can end in; they partition `requests[].count`. */
export interface DecisionCounts {
  /** called (or evaluated) and let the request through unchanged */
  allowed: number;
  /** denied the request (webhook `allowed: false`; a policy validation failing under a Deny action) */
  denied: number;
  /** a mutating webhook's patch or a MutatingAdmissionPolicy's mutations changed the object */
  patched: number;
  /** a ValidatingAdmissionPolicy validation failed under Warn (and not Deny) */
  warned: number;
  /** a ValidatingAdmissionPolicy validation failed under Audit only */
  audited: number;
  /** the call or evaluation failed (see `errors` for each message and its failurePolicy outcome) */
  errored: number;
  /** the rules and selectors matched but a matchCondition was false: the webhook was not called */
  skippedByMatchConditions: number;
}

export type CoverageDecision = keyof DecisionCounts;

export interface MessageCount {
  message: string;
  count: number;
}

export interface ErrorCount extends MessageCount {
  failurePolicy: 'Fail' | 'Ignore';
  /** failedOpen: the request went on (failurePolicy Ignore); failedClosed: the request was refused */
  outcome: 'failedOpen' | 'failedClosed';
}

/** One operation on one group/version/resource/subresource that matched (as the configuration saw it). */
export interface MatchedRequest {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** the request carried a namespace (rules' scope is decided from this) */
  namespaced: boolean;
  count: number;
}

/**
 * One cell of a configuration's rules: a rule expanded to operation × apiGroup × resource as listed (wildcards
 * stay wildcards), its apiVersions and scope kept whole. A cell is hit when a matched request falls in it.
 */
export interface RuleCell {
  /** where the rule is: "rules" (webhooks), "matchConstraints" (policies) or "binding <name>" */
  ruleSet: string;
  /** the rule's index in that list */
  rule: number;
  operation: string;
  apiGroup: string;
  /** as listed: "pods", "pods/status", "*", "*\/scale", "*\/*" */
  resource: string;
  apiVersions: string[];
  scope: string;
  hits: number;
}

export interface BindingCoverage {
  name: string;
  /** evaluations: one per matched request and parameter object */
  calls: number;
  decisions: DecisionCounts;
  requests: MatchedRequest[];
}

export interface ConfigurationCoverage {
  /** "<kind>/<source>/<configuration>" plus "/<webhook>" for webhooks; unique in a report */
  id: string;
  kind: CoverageConfigurationKind;
  /** api: REST-registered; static: a manifest file (KEP-5793) */
  source: 'api' | 'static';
  /** the configuration object's name (the webhook configuration, or the policy) */
  configuration: string;
  /** the webhook's name, or the policy's */
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  /** false when the configuration was removed before the report was made (its counts are kept) */
  present: boolean;
  /** webhook calls, or policy evaluations (per binding and parameter); skips by matchConditions are not calls */
  calls: number;
  decisions: DecisionCounts;
  /** distinct denial messages (at most 50; later ones are counted under "(other messages)") */
  denials: MessageCount[];
  errors: ErrorCount[];
  requests: MatchedRequest[];
  rules: RuleCell[];
  /** policies only */
  bindings?: BindingCoverage[];
}

export interface CoverageTotals {
  configurations: number;
  calls: number;
  ruleCells: number;
  untestedRuleCells: number;
  /** configurations no request ever matched */
  unexercisedConfigurations: number;
}

export interface AdmissionCoverageReport {
  schemaVersion: typeof coverageSchemaVersion;
  generatedAt: string;
  /** how many apiserver runs were merged into this report (a restart is a second run) */
  runs: number;
  totals: CoverageTotals;
  configurations: ConfigurationCoverage[];
}

export const emptyDecisionCounts = (): DecisionCounts => ({ allowed: 0, denied: 0, patched: 0, warned: 0, audited: 0, errored: 0, skippedByMatchConditions: 0 });

export const decisionKinds: readonly CoverageDecision[] = ['allowed', 'denied', 'patched', 'warned', 'audited', 'errored', 'skippedByMatchConditions'];

/** A parsed JSON value that claims to be a report: the version is checked, the rest trusted as written by us. */
export function parseCoverageReport(text: string, file = 'coverage file'): AdmissionCoverageReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON: ${(err as Error).message}`);
  }
  const version = (parsed as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== coverageSchemaVersion) throw new Error(`${file}: schemaVersion ${JSON.stringify(version)} is not ${JSON.stringify(coverageSchemaVersion)}`);
  return parsed as AdmissionCoverageReport;
}
