// The validated, defaulted shape of a scenario file (`apiVersion: kah.scenarios/v1`, `kind: Scenario`). The YAML a
// user writes is checked strictly by validate-scenario.ts and turned into these plain objects; nothing else reads YAML.
import type { StaticManifestPlugin } from '../../harness/apiserver-process.js';

export const scenarioApiVersion = 'kah.scenarios/v1';
export const scenarioKind = 'Scenario';

/** Where a scenario came from: its file (if any), the document's index in it, and the directory relative paths start from. */
export interface ScenarioSource {
  file?: string;
  document: number;
  dir: string;
}

export interface Scenario {
  name: string;
  description?: string;
  /** The whole scenario's limit (default 5 minutes). */
  timeoutMs: number;
  setup: ScenarioSetup;
  steps: Step[];
  source: ScenarioSource;
}

export type StorageKind = 'etcd' | 'memory';

export interface ApiServerSpec {
  name: string;
  featureGates: Record<string, boolean>;
  flags: string[];
  env: Record<string, string>;
  /** plugin → directory relative to the scenario's temp dir */
  staticManifests: Partial<Record<StaticManifestPlugin, string>>;
  admissionConfig?: string | Record<string, unknown>;
}

export interface ScenarioSetup {
  storage: StorageKind;
  /** Relative path (under the temp dir) → content; written before anything starts. */
  files: Record<string, string>;
  webhooks: WebhookSpec[];
  processes: ProcessSpec[];
  /** Every apiserver with the top-level values folded in; one named `apiserver` when the file has no `apiservers`. */
  apiservers: ApiServerSpec[];
}

/** How a runner-started test webhook answers every AdmissionReview. */
export interface WebhookRespondSpec {
  allowed: boolean;
  message?: string;
  code?: number;
  reason?: string;
  /** JSONPatch operations returned with an allowed response (a mutating webhook). */
  patch?: unknown[];
  warnings: string[];
  delayMs?: number;
  hang: boolean;
  closeConnection: boolean;
  /** Answer 200 with this body, which is not JSON. */
  badJSON?: string;
}

export interface WebhookSpec {
  name: string;
  respond: WebhookRespondSpec;
}

export interface ProcessSpec {
  name: string;
  command: string[];
  env: Record<string, string>;
  readyURL?: string;
  readyTimeoutMs: number;
}

export type Target =
  | { type: 'apiserver'; name: string }
  | { type: 'etcd' }
  | { type: 'webhook'; name: string }
  | { type: 'process'; name: string };

export type ApiVerb = 'create' | 'apply' | 'update' | 'patch' | 'delete' | 'get';
export const apiVerbs: readonly ApiVerb[] = ['create', 'apply', 'update', 'patch', 'delete', 'get'];

export type PatchType = 'merge' | 'json' | 'strategic';

export interface ApiExpect {
  allowed: boolean;
  code?: number;
  reason?: string;
  messageContains: string[];
  warningsContain: string[];
  noWarnings: boolean;
  /** JSONPath (jsonpath-plus) → expected value, over the returned object. */
  jsonPath: Record<string, unknown>;
}

export interface WebhookCallsSpec {
  webhook: string;
  count?: number;
  atLeast?: number;
  operation?: string;
  resource?: string;
}

export interface MetricSelector {
  /** The selector as written, for messages. */
  text: string;
  name: string;
  labels: Record<string, string>;
}

export type WaitCondition =
  | { type: 'metric'; selector: MetricSelector; atLeast?: number; equals?: number }
  | { type: 'ready'; ready: boolean }
  | { type: 'webhookCalls'; calls: WebhookCallsSpec };

interface StepBase {
  /** 0-based position in `steps`. */
  index: number;
  /** This step's limit (default 30 s). */
  timeoutMs: number;
}

export type Step = StepBase &
  (
    | {
        action: 'start';
        target: Target;
        /**
         * apiservers only: wait for `/readyz` before the step ends (default). `false` returns once the process is
         * spawned, so the next steps can talk to a server that is still loading (API steps retry until it listens).
         */
        waitForReady: boolean;
      }
    | { action: 'kill'; target: Target; signal: NodeJS.Signals }
    | { action: 'restart'; target: Target }
    | {
        action: 'api';
        verb: ApiVerb;
        manifest?: string;
        file?: string;
        namespace?: string;
        dryRun: boolean;
        patchType: PatchType;
        patch?: string;
        user?: string;
        groups: string[];
        on?: string;
        expect: ApiExpect;
      }
    | { action: 'writeFile'; path: string; content: string }
    | { action: 'removeFile'; path: string }
    | {
        /** writes (null: removes) files in the apiserver's staticManifests directory of `plugin`, then waits until the
         * server reports exactly that directory's hash in force (harness writeManifestsAndWait) */
        action: 'writeManifests';
        on?: string;
        plugin: StaticManifestPlugin;
        files: Record<string, string | null>;
        waitTimeoutMs: number;
      }
    | { action: 'waitFor'; on?: string; waitTimeoutMs: number; condition: WaitCondition }
    | { action: 'expectReady'; on?: string; ready: boolean }
    | { action: 'expectStartupFailure'; on?: string; exitCode?: number; stderrContains: string[] }
    | { action: 'expectWebhookCalls'; calls: WebhookCallsSpec }
  );

export type StepOf<A extends Step['action']> = Extract<Step, { action: A }>;

/** One problem in a scenario file, with the path of the offending field (`steps[3].apply`). */
export interface ScenarioProblem {
  path: string;
  message: string;
}

export const defaultStepTimeoutMs = 30_000;
export const defaultScenarioTimeoutMs = 5 * 60_000;
