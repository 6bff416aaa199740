/** What every benchmark path gets, and what it returns. */
import type { BenchOptions } from '../options.js';
import type { Row } from '../report.js';
import type { Stack } from '../stack.js';

interface BenchContext {
  stack: Stack;
  options: BenchOptions;
  log: (line: string) => void;
}

export interface BenchPath {
  title: string;
  run(context: BenchContext): Promise<Row[]>;
}
