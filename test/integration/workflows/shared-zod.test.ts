/**
 * The worker evaluates zod once and every task shares it (src/workflows/shared-zod.ts). Temporal's
 * sandbox deep-freezes the modules it preloads, and zod's format checks (email, ISO date, URL, IP,
 * GUID) reset `lastIndex` on its regexes, which would then throw: the shared copy stays out of
 * reach of the freeze. These check that tasks see one zod, unfrozen, and that its checks and formats
 * work task after task; and that a worker which gives every workflow a fresh sandbox still works.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../../src/protocol/wire.js';
import { useTaskWorker } from '../../support/tasks.js';

interface ZodReport {
  shared: boolean;
  frozen: boolean;
  valid: boolean;
  invalid: number;
  formats: boolean[];
}

async function zodReports(tasks: ReturnType<typeof useTaskWorker>, count: number): Promise<ZodReport[]> {
  const reports: ZodReport[] = [];
  for (let run = 0; run < count; run++) {
    const { accepted } = await tasks.start('test-zod', { text: 'go', untilSettled: true });
    expect(accepted.settled?.state).toBe('completed');
    reports.push(JSON.parse(textOf(accepted.settled!.task!.status.message!.parts)) as ZodReport);
  }
  return reports;
}

const WORKING = { frozen: false, valid: true, invalid: 2, formats: [true, true, true, true, true] };

describe('zod in agent code', () => {
  const tasks = useTaskWorker();

  it('is one copy for all the tasks of a sandbox, unfrozen, its checks and formats working task after task', async () => {
    const reports = await zodReports(tasks, 3);
    for (const report of reports) expect(report).toMatchObject(WORKING);
    // A later task finds the mark an earlier one left (three tasks: one of the worker's sandboxes ran two).
    expect(reports.some((report) => report.shared)).toBe(true);
  });
});

describe('zod in agent code, on a worker without the reusable sandbox', () => {
  const tasks = useTaskWorker({ reuseV8Context: false });

  it('is evaluated for each workflow, and works', async () => {
    const reports = await zodReports(tasks, 2);
    for (const report of reports) expect(report).toEqual({ ...WORKING, shared: false });
  });
});
