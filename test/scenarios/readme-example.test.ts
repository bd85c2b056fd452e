// The example README.md and scenarios/README.md show a webhook author (Go or Python) runs as written, with a JavaScript
// program standing in for their binary (same flags), so the documented example cannot rot.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioText, runScenario } from '../../scenarios/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

function exampleOf(readme: string): string {
  const text = readFileSync(path.join(root, readme), 'utf8');
  const m = /```yaml\n(# test\/webhook\.scenario\.yaml\n[\s\S]*?)```/.exec(text);
  if (!m) throw new Error(`${readme} has no test/webhook.scenario.yaml example`);
  return m[1]!;
}

it('shows the same example in README.md and scenarios/README.md', () => {
  expect(exampleOf('README.md')).toBe(exampleOf('scenarios/README.md'));
});

it('runs the documented webhook-author example against a stand-in webhook binary', async () => {
  const yaml = exampleOf('scenarios/README.md').replace('command: ["./bin/webhook",', `command: ["${process.execPath}", "${path.join(here, 'fixtures/privileged-webhook.mjs')}",`);
  const loaded = parseScenarioText(yaml, 'webhook.scenario.yaml');
  if (loaded.problems.length > 0) throw new Error(JSON.stringify(loaded.problems));
  const result = await runScenario(loaded.scenarios[0]!, { baseDir: here });
  if (!result.passed) throw new Error(result.failure ? `${result.failure.message}\n${result.failure.logs}` : 'failed');
  expect(result.steps.filter((s) => !s.ok)).toEqual([]);
}, 120_000);
