/**
 * A reply may name the question it answers (`a2a-temporal/answers`, the question's askedAt): one
 * naming a question that no longer waits is refused, so an answer to what a page, a mail or a chat
 * message showed never lands on the question the agent asked after it.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_QUESTION_METADATA } from '../../../src/protocol/contract.js';
import type { PendingQuestion } from '../../../src/protocol/question.js';
import { TaskErrorType } from '../../../src/protocol/errors.js';
import { reply, startTask, waitForState } from '../../support/tasks.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';

let client: Client;
let worker: TestWorker;

beforeAll(async () => {
  client = await testClient();
  worker = await startTestWorker();
});

afterAll(async () => {
  await worker?.shutdown();
  await client?.connection.close();
});

describe('a reply that names its question', () => {
  it('is taken for the waiting question and refused for one answered before', async () => {
    const { handle } = await startTask(client, worker.taskQueue, 'test-chat', { text: 'chat', data: { turns: 2 } });
    const askedAt = async () =>
      ((await waitForState(handle, 'input-required')).metadata?.pendingQuestion as PendingQuestion).askedAt;
    const first = await askedAt();
    await reply(handle, { text: 'a1', metadata: { [ANSWERS_QUESTION_METADATA]: first } });
    await waitForState(handle, 'input-required');
    const second = await askedAt();
    expect(second).not.toBe(first);

    const late = reply(handle, { text: 'a1 again', metadata: { [ANSWERS_QUESTION_METADATA]: first } });
    await expect(late).rejects.toMatchObject({
      cause: {
        type: TaskErrorType.TaskNotWaitingForInput,
        message: expect.stringContaining(`now waits on the one asked at ${second}`),
      },
    });

    await reply(handle, { text: 'a2', metadata: { [ANSWERS_QUESTION_METADATA]: second } });
    expect(await handle.result()).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  });
});
