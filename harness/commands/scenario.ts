// `kah scenario run PATH…` (and `kah scenario validate PATH…`): scenario files or directories, run like a
// conformance suite. Exit 0 when all pass, 1 when any fails, 2 on usage or scenario-file errors.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatFileProblem, formatSummary, junitXml, loadScenarioPaths, runScenarios } from '../../scenarios/index.js';
import { writeCoverageFileSync } from '../../server/admission/coverage/coverage-file.js';
import { formatCoverageSummary } from '../../server/admission/coverage/summary-table.js';

export interface ScenarioCommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const scenarioUsage = 'kah scenario run PATH… [--junit FILE] [--admission-coverage FILE] [--filter REGEXP] [--bail] [--keep] [--parallel N]\n       kah scenario validate PATH…';

class UsageError extends Error {}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        junit: { type: 'string' },
        'admission-coverage': { type: 'string' },
        filter: { type: 'string' },
        bail: { type: 'boolean' },
        keep: { type: 'boolean' },
        parallel: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function run(args: string[], io: ScenarioCommandIO, validateOnly: boolean): Promise<number> {
  const { values, positionals } = parse(args);
  if (values.help) {
    io.stdout.write(`usage: ${scenarioUsage}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name at least one scenario file or directory');
  let parallel: number | undefined;
  if (values.parallel !== undefined) {
    parallel = Number(values.parallel);
    if (!Number.isInteger(parallel) || parallel < 1) throw new UsageError(`--parallel must be a whole number of at least 1, got ${JSON.stringify(values.parallel)}`);
  }
  let filter: RegExp | undefined;
  if (values.filter !== undefined) {
    try {
      filter = new RegExp(values.filter);
    } catch (err) {
      throw new UsageError(`--filter: ${(err as Error).message}`);
    }
  }
  const loaded = await loadScenarioPaths(positionals);
  if (loaded.problems.length > 0) {
    for (const p of loaded.problems) io.stderr.write(`${formatFileProblem(p)}\n`);
    io.stderr.write(`kah scenario: ${loaded.problems.length} problem(s) in scenario files; nothing was run\n`);
    return 2;
  }
  const scenarios = filter ? loaded.scenarios.filter((s) => filter.test(s.name)) : loaded.scenarios;
  if (validateOnly) {
    io.stdout.write(`${loaded.scenarios.length} scenario(s) valid\n`);
    return 0;
  }
  if (scenarios.length === 0) {
    io.stderr.write(loaded.scenarios.length === 0 ? `kah scenario: no scenarios in ${positionals.join(', ')}\n` : `kah scenario: no scenario matches --filter ${values.filter}\n`);
    return 2;
  }
  const summary = await runScenarios(scenarios, {
    ...(parallel !== undefined ? { parallel } : {}),
    bail: values.bail ?? false,
    keep: values.keep ?? false,
    write: (text) => io.stdout.write(text),
    admissionCoverage: values['admission-coverage'] !== undefined,
  });
  if (values.junit !== undefined) await writeFile(values.junit, junitXml(summary));
  io.stdout.write(`${formatSummary(summary)}\n`);
  const coverageFile = values['admission-coverage'];
  if (coverageFile !== undefined && summary.coverage) {
    writeCoverageFileSync(coverageFile, summary.coverage);
    io.stdout.write(`\n${formatCoverageSummary(summary.coverage)}Admission coverage written to ${coverageFile} (kah report ${coverageFile} renders it as HTML)\n`);
  }
  return summary.results.every((r) => r.passed) ? 0 : 1;
}

export async function runScenarioCommand(args: string[], io: ScenarioCommandIO): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'run') return await run(rest, io, false);
    if (sub === 'validate') return await run(rest, io, true);
    if (sub === '--help' || sub === '-h' || sub === 'help') {
      io.stdout.write(`usage: ${scenarioUsage}\n`);
      return 0;
    }
    throw new UsageError(sub === undefined ? 'missing subcommand' : `unknown subcommand ${JSON.stringify(sub)}`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`kah scenario: ${err.message}\nusage: ${scenarioUsage}\n`);
      return 2;
    }
    io.stderr.write(`kah scenario: ${(err as Error).message}\n`);
    return 1;
  }
}
