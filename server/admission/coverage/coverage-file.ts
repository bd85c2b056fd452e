// Writes the coverage report to --admission-coverage FILE: atomically (a temp file renamed over it, so a reader
// never sees half a report), every few seconds while something new was recorded, and once more on graceful
// shutdown. A kill -9 skips the last write: the file then holds the report of the last periodic write.
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDirsSync } from '../../make-dirs.js';
import type { AdmissionCoverageReport } from './report-schema.js';

export const defaultCoverageFlushIntervalMs = 2_000;

export function writeCoverageFileSync(file: string, report: AdmissionCoverageReport): void {
  makeDirsSync(path.dirname(file), 0o777);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(tmp, file);
}

export class CoverageFileWriter {
  private timer: NodeJS.Timeout | undefined;
  private writtenGeneration = -1;

  constructor(
    private readonly file: string,
    private readonly report: () => AdmissionCoverageReport,
    private readonly generation: () => number,
    private readonly onError: (err: Error) => void,
  ) {}

  /** Writes now if anything was recorded since the last write (or nothing was ever written). */
  flush(): void {
    const g = this.generation();
    if (g === this.writtenGeneration) return;
    try {
      writeCoverageFileSync(this.file, this.report());
      this.writtenGeneration = g;
    } catch (err) {
      this.onError(err as Error);
    }
  }

  start(intervalMs = defaultCoverageFlushIntervalMs): void {
    this.flush();
    this.timer = setInterval(() => this.flush(), intervalMs);
    // the periodic write must not keep a finished process alive
    this.timer.unref();
  }

  /** The last write, on graceful shutdown: always, so the file says when the run ended. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.writtenGeneration = -1;
    this.flush();
  }
}
