import type { BenchContext } from '../context.js';
import type { Figure } from '../figures.js';

/** Where a case puts its figures as it goes, so that a failure part-way keeps what was measured. */
export interface CaseOutput {
  figures: Figure[];
  notes: string[];
}

export interface BenchCase {
  /** for `--case NAME` */
  name: string;
  title: string;
  run(ctx: BenchContext, out: CaseOutput): Promise<void>;
}
