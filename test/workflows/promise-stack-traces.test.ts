/**
 * The worker's workflows create promises without Temporal capturing and source-mapping a stack trace
 * for each (src/workflows/promise-stack-traces.ts: a quarter of the workflow thread's CPU in the
 * bench), while an Error workflow code makes itself keeps its source-mapped stack. The promise
 * stacks are what Temporal's `__stack_trace` query lists; without them it lists none.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/protocol/wire.js';
import { useTaskWorker } from '../support/tasks.js';

for (const reuseV8Context of [true, false]) {
  describe(`promise stack traces, ${reuseV8Context ? 'in the reused sandbox' : 'in a sandbox per workflow'}`, () => {
    const tasks = useTaskWorker({ reuseV8Context });

    it('are not captured for the promises of a waiting task', async () => {
      const { handle, accepted } = await tasks.start('test-ask', { text: 'pay it', untilSettled: true });
      expect(accepted.settled?.state).toBe('input-required');
      expect(await handle.query<string>('__stack_trace')).toBe('');
    });

    it('are kept, source-mapped, for the Errors workflow code makes', async () => {
      const { accepted } = await tasks.start('test-stack', { text: 'go', untilSettled: true });
      const stack = textOf(accepted.settled!.task!.status.message!.parts);
      expect(stack).toMatch(/^Error: made here\n\s+at .*test\/agents\/test-agents\.ts:\d+:\d+/);
    });
  });
}
