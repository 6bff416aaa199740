/**
 * Each task evaluates its own zod. Sharing one among workflows (Temporal's bundler `preloadModules`)
 * cuts the worker's CPU per new task by about a fifth and its memory per cached task by more than
 * half, but the sandbox deep-freezes shared modules, and zod's format checks (email, ISO date, URL,
 * IP, GUID) reset `lastIndex` on its exported regexes, which then throws: a tool schema with
 * `z.email()` would fail its task. This keeps zod's checks working in every task, and fails if zod
 * is ever preloaded.
 */
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/protocol/wire.js';
import { useTaskWorker } from '../support/tasks.js';

const tasks = useTaskWorker();

describe('zod in agent code', () => {
  it('is not shared among workflows, and its checks and formats work task after task', async () => {
    for (let run = 0; run < 3; run++) {
      const { accepted } = await tasks.start('test-zod', { text: 'go', untilSettled: true });
      expect(accepted.settled?.state).toBe('completed');
      const report: unknown = JSON.parse(textOf(accepted.settled!.task!.status.message!.parts));
      expect(report).toEqual({ shared: false, valid: true, invalid: 2, formats: [true, true, true, true, true] });
    }
  });
});
