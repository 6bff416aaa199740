/**
 * Deploy safety: tasks waiting for an answer in production were started by the code deployed
 * before, and resume on the code deployed next. This test records a waiting task's history once
 * (test/histories/: commit it) and replays every recording on the code as it is now, so a change
 * that would break waiting tasks fails here. Guard such a change with `ctx.patched('...')`; remove a
 * recording only once no task of that code is still open (`npm run check-deploy` tells).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  describeDeployCheck,
  replayHistoryFiles,
  saveTaskHistory,
  startTestEnvironment,
  stateOf,
} from 'a2a-temporal/testing';

const HISTORIES = 'test/histories';
const WAITING_APPROVAL = `${HISTORIES}/purchase-approval-waiting.json`;

it('replays recorded waiting tasks on the current code', async () => {
  if (!existsSync(WAITING_APPROVAL)) await recordWaitingApproval();
  const check = await replayHistoryFiles({ histories: HISTORIES }); // reads ./a2a-temporal.config.ts
  expect(check.broken, describeDeployCheck(check, `the recordings in ${HISTORIES}`).join('\n')).toEqual([]);
});

async function recordWaitingApproval(): Promise<void> {
  const env = await startTestEnvironment();
  try {
    const task = await env.agent('purchase-approval').send('Buy 3 monitors for 450 EUR');
    expect(stateOf(task)).toBe('input-required');
    mkdirSync(HISTORIES, { recursive: true });
    await saveTaskHistory(env.temporal, task.id, WAITING_APPROVAL);
  } finally {
    await env.stop();
  }
}
