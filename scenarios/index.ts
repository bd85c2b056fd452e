// Scenarios: conformance-style runs of bootstrap, reload and startup-failure guarantees, written as YAML data
// (scenarios/README.md) and run by `kah scenario run` or, from TypeScript, by runScenario().
export { runScenario, formatFailure, toScenario, ScenarioValidationError } from './runner/run-scenario.js';
export type { RunScenarioOptions, ScenarioFailure, ScenarioResult, StepResult } from './runner/run-scenario.js';
export { runScenarios, defaultParallelism } from './runner/run-scenarios.js';
export type { RunScenariosOptions } from './runner/run-scenarios.js';
export { loadScenarioFile, loadScenarioPaths, parseScenarioText, formatFileProblem } from './runner/load-scenarios.js';
export type { FileProblem, LoadResult } from './runner/load-scenarios.js';
export { validateScenario } from './runner/validate-scenario.js';
export { junitXml, formatSummary } from './runner/report.js';
export type { RunSummary } from './runner/report.js';
export type { Scenario, ScenarioProblem, Step } from './runner/scenario-types.js';
