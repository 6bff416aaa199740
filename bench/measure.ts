/**
 * Timing helpers shared by every path: a clock comparable across processes, bounded waits,
 * a bounded worker pool, percentiles and the raw/project interleaving.
 */

/** Milliseconds since the epoch, sub-millisecond resolution: comparable between processes on one host. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Rejects after `ms` (the operation itself is not cancelled; its result is then ignored). */
export async function withTimeout<T>(what: string, ms: number, operation: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `count` operations, at most `concurrency` at a time; the first failure rejects. */
export async function pool(count: number, concurrency: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await run(next++);
  });
  await Promise.all(lanes);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? sorted[0]!;
}

/** Latencies of one side, and the wall time its batches took (for throughput). */
export class Sample {
  readonly latencies: number[] = [];
  operations = 0;
  elapsedMs = 0;

  /** Times one operation: its latency. */
  async time<T>(operation: () => Promise<T>): Promise<T> {
    const start = performance.now();
    const result = await operation();
    this.latencies.push(performance.now() - start);
    return result;
  }

  /** Times a batch of operations for throughput. */
  async batch(operations: number, run: () => Promise<void>): Promise<void> {
    const start = performance.now();
    await run();
    this.elapsedMs += performance.now() - start;
    this.operations += operations;
  }

  p(percent: number): number {
    return percentile(this.latencies, percent);
  }

  /** Operations per second over the batches' wall time. */
  get throughput(): number {
    return this.elapsedMs > 0 ? (this.operations * 1000) / this.elapsedMs : NaN;
  }
}

/**
 * Splits `total` operations per side into `batches` batches of each side, the order rotating each
 * round (raw, project, then project, raw, ...; with a third side, each leads in turn) so that drift
 * in load hits every side.
 */
export async function interleave(
  total: number,
  batches: number,
  run: { raw: (size: number) => Promise<void>; project: (size: number) => Promise<void> } & Record<
    string,
    (size: number) => Promise<void>
  >,
): Promise<void> {
  const sides = Object.values(run);
  // At least one round led by each side, when there are operations enough.
  const rounds = Math.max(1, Math.min(Math.max(batches, sides.length), total));
  for (let round = 0; round < rounds; round++) {
    const size = Math.floor(total / rounds) + (round < total % rounds ? 1 : 0);
    for (let turn = 0; turn < sides.length; turn++) await sides[(round + turn) % sides.length]!(size);
  }
}
