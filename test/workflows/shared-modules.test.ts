/**
 * The worker loads zod once and every workflow shares it (src/workflows/shared-modules.ts): agent
 * code importing zod gets the shared, frozen copy, and validation works in each task after the first.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/protocol/wire.js';
import { useTaskWorker } from '../support/tasks.js';

const tasks = useTaskWorker();

describe('modules shared by all workflows', () => {
  it("gives each task the worker's one zod, which still parses and reports issues", async () => {
    for (let run = 0; run < 3; run++) {
      const { accepted } = await tasks.start('test-shared-zod', { text: 'go', untilSettled: true });
      expect(accepted.settled?.state).toBe('completed');
      const report: unknown = JSON.parse(textOf(accepted.settled!.task!.status.message!.parts));
      expect(report).toEqual({ shared: true, valid: true, invalid: 2 });
    }
  });
});
