// The built-in scenario library (scenarios/library/): every scenario of every file runs as one jest test through
// runScenario, the same steps `kah scenario run scenarios/` takes. New files are picked up without changes here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatFailure, formatFileProblem, parseScenarioText, runScenario, type Scenario } from '../../scenarios/index.js';

const libraryDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scenarios/library');

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = path.join(dir, name);
      if (name.startsWith('.')) return [];
      if (statSync(p).isDirectory()) return yamlFiles(p);
      return /\.ya?ml$/.test(name) ? [p] : [];
    });
}

// Jest collects tests synchronously, so the files are read at load time.
const loaded = yamlFiles(libraryDir).map((file) => ({ file, ...parseScenarioText(readFileSync(file, 'utf8'), file, { fromDirectory: true }) }));
const scenarios: Scenario[] = loaded.flatMap((l) => l.scenarios);

describe('scenario library', () => {
  it('has only valid scenario files', () => {
    expect(loaded.flatMap((l) => l.problems).map(formatFileProblem)).toEqual([]);
  });

  describe.each(scenarios.map((s) => [`${path.relative(libraryDir, s.source.file!)}: ${s.name}`, s] as const))('%s', (_title, scenario) => {
    it('passes', async () => {
      const result = await runScenario(scenario);
      if (!result.passed) throw new Error(`${result.failure ? formatFailure(result.failure) : 'failed'}\n${result.failure?.logs ?? ''}`);
      expect(result.steps.every((s) => s.ok)).toBe(true);
    }, scenario.timeoutMs + 30_000);
  });
});
