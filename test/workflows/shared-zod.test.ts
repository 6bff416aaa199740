/**
 * The worker evaluates zod once and every task shares it (src/workflows/shared-zod.ts). Temporal's
 * sandbox deep-freezes the modules it preloads, and zod's format checks (email, ISO date, URL, IP,
 * GUID) reset `lastIndex` on its regexes, which would then throw: the shared copy stays out of
 * reach of the freeze. This checks that task after task sees the same zod, unfrozen, and that its
 * checks and formats work.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/protocol/wire.js';
import { useTaskWorker } from '../support/tasks.js';

const tasks = useTaskWorker();

describe('zod in agent code', () => {
  it('is shared among workflows, unfrozen, and its checks and formats work task after task', async () => {
    for (let run = 0; run < 3; run++) {
      const { accepted } = await tasks.start('test-zod', { text: 'go', untilSettled: true });
      expect(accepted.settled?.state).toBe('completed');
      const report: unknown = JSON.parse(textOf(accepted.settled!.task!.status.message!.parts));
      // The first task of this worker may be the first to leave the mark.
      expect(report).toEqual({
        shared: run > 0 ? true : expect.any(Boolean),
        frozen: false,
        valid: true,
        invalid: 2,
        formats: [true, true, true, true, true],
      });
    }
  });
});
