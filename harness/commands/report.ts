// `kah report [--out FILE] COVERAGE.json…`: the admission coverage report(s) as one self-contained HTML page
// (several files, e.g. one per apiserver of a suite, are merged). Exit 0, or 2 on usage and input errors.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { mergeCoverageReports } from '../../server/admission/coverage/build-report.js';
import { renderCoverageHtml } from '../../server/admission/coverage/html-report.js';
import { parseCoverageReport } from '../../server/admission/coverage/report-schema.js';
import { formatCoverageSummary } from '../../server/admission/coverage/summary-table.js';

export interface ReportCommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const reportUsage = 'kah report [--out FILE.html] COVERAGE.json… (default output: the first file with .html instead of .json)';

export async function runReportCommand(args: string[], io: ReportCommandIO): Promise<number> {
  let values: { out?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    io.stderr.write(`kah report: ${(err as Error).message}\nusage: ${reportUsage}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`usage: ${reportUsage}\n`);
    return 0;
  }
  if (positionals.length === 0) {
    io.stderr.write(`kah report: name at least one coverage file (written by --admission-coverage)\nusage: ${reportUsage}\n`);
    return 2;
  }
  const reports = [];
  for (const file of positionals) {
    try {
      reports.push(parseCoverageReport(await readFile(file, 'utf8'), file));
    } catch (err) {
      io.stderr.write(`kah report: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? `${file}: no such file` : (err as Error).message}\n`);
      return 2;
    }
  }
  const report = reports.length === 1 ? reports[0]! : mergeCoverageReports(reports);
  const out = values.out ?? positionals[0]!.replace(/(\.json)?$/i, '.html');
  await writeFile(out, renderCoverageHtml(report));
  io.stdout.write(formatCoverageSummary(report));
  io.stdout.write(`HTML report written to ${out}\n`);
  return 0;
}
