import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUGGEST_CONTINUE_AS_NEW_AFTER } from '../../support/global-setup.js';
import { textOf, type WireTask } from '../../../src/protocol/wire.js';
import { reply, startTask, waitForState } from '../../support/tasks.js';
import { startTestWorker, testClient } from '../../support/worker.js';

let client: Client;
beforeAll(async () => {
  client = await testClient();
});
afterAll(async () => {
  await client?.connection.close();
});

describe('durability', () => {
  it('a task waiting for input survives its worker: stop it, start a new one, reply, it completes', async () => {
    const first = await startTestWorker();
    const { handle } = await startTask(client, first.taskQueue, 'expense-approval', {
      text: 'Please approve an expense of 120 USD for a team lunch',
    });
    await waitForState(handle, 'input-required');
    await first.shutdown();

    const second = await startTestWorker(first.taskQueue);
    try {
      await reply(handle, { text: 'approve', responder: 'grace' });
      const done = (await handle.result()) as WireTask;
      expect(done.artifacts![0]!.parts[0]!.data).toMatchObject({ decision: 'approved', decidedBy: 'grace' });
    } finally {
      await second.shutdown();
    }
  });

  it('a long conversation continues as new when Temporal suggests it and keeps the task whole', async () => {
    const worker = await startTestWorker();
    try {
      const turns = 30;
      const { handle } = await startTask(client, worker.taskQueue, 'test-chat', { text: 'chat', data: { turns } });
      const firstRunId = (await handle.describe()).runId;
      for (let turn = 1; turn <= turns; turn++) {
        await waitForState(handle, 'input-required');
        await reply(handle, { text: `a${turn}`, messageId: `turn-${turn}` });
      }
      const done = (await handle.result()) as WireTask;
      const answers = Array.from({ length: turns }, (_, i) => `a${i + 1}`);
      expect(textOf(done.status.message!.parts)).toBe(answers.join(','));
      // Every message, artifact chunk and transition made it across the runs, once.
      const userTexts = done.history!.filter((m) => m.role === 'ROLE_USER').map((m) => textOf(m.parts));
      expect(userTexts).toEqual(['chat', ...answers]);
      // Appended text continues the artifact's text part.
      expect(done.artifacts![0]!.parts).toEqual([
        { text: Array.from({ length: turns }, (_, i) => `${i + 1};`).join('') },
      ]);
      const timeline = done.metadata!.timeline as { state: string }[];
      expect(timeline.filter((e) => e.state === 'input-required')).toHaveLength(turns);

      const description = await handle.describe();
      expect(description.runId).not.toBe(firstRunId);
      const history = await handle.fetchHistory();
      expect(history.events!.length).toBeLessThanOrEqual(SUGGEST_CONTINUE_AS_NEW_AFTER + 40);
    } finally {
      await worker.shutdown();
    }
  });
});
