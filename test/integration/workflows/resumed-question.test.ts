/**
 * A reply that reaches a task in the first workflow task of a continued-as-new run, before the agent
 * (re-run by its journal) waits for its question again: checked against the question the task shows,
 * held, and handed over once the agent waits, instead of being refused as "not waiting for input".
 *
 * The race is made certain rather than hoped for: the continued run's own start input is captured
 * from a real task, and a copy of that run is started with no worker up, so the reply is admitted
 * before the run's first workflow task and arrives in it.
 */
import { defaultPayloadConverter, type Client, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForTask, type TaskWorkflowInput } from '../../../src/protocol/contract.js';
import { reply, startTask, waitForState } from '../../support/tasks.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';

let client: Client;
let worker: TestWorker | undefined;

beforeAll(async () => {
  client = await testClient();
});

afterAll(async () => {
  await worker?.shutdown();
  await client?.connection.close();
});

/** Answers turns until the task continues as new; the continued run's workflow type and input. */
async function continuedRun(handle: WorkflowHandle): Promise<{ workflowType: string; input: unknown }> {
  const firstRunId = (await handle.describe()).runId;
  for (let turn = 1; ; turn++) {
    await waitForState(handle, 'input-required');
    const { runId, type } = await handle.describe();
    if (runId !== firstRunId) {
      const history = await client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
      return { workflowType: type, input: defaultPayloadConverter.fromPayload(started.input!.payloads![0]!) };
    }
    await reply(handle, { text: `a${turn}`, responder: 'erin', messageId: `turn-${turn}` });
    if (turn > 100) throw new Error('The task never continued as new');
  }
}

/** A copy of the continued run under a new task's workflow ID, started while no worker runs. */
async function copyOfContinuedRun(taskQueue: string, run: { workflowType: string; input: unknown }) {
  const { taskId } = run.input as Extract<TaskWorkflowInput, { taskId: string }>;
  const handle = await client.workflow.start(run.workflowType, {
    taskQueue,
    workflowId: workflowIdForTask(taskId),
    args: [run.input],
  });
  return handle;
}

describe('a reply as the question resumes after continue-as-new', () => {
  it('is accepted, handed to the question, and the task goes on', async () => {
    worker = await startTestWorker();
    const { handle } = await startTask(client, worker.taskQueue, 'test-chat', {
      text: 'chat',
      responder: 'erin',
      data: { turns: 200 },
    });
    const run = await continuedRun(handle);
    await worker.shutdown();
    // The copy's task ID is the original's: the original must be gone first.
    await handle.terminate('replaced by a copy of its continued run');
    const copy = await copyOfContinuedRun(worker.taskQueue, run);

    const early = reply(copy, { text: 'early', responder: 'erin', messageId: 'early-reply' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    worker = await startTestWorker(worker.taskQueue);

    const accepted = await early;
    expect(accepted.duplicate).toBe(false);
    const task = await waitForState(copy, 'input-required');
    const transcript = task.history!.filter((message) => message.role === 'ROLE_USER').map((m) => m.parts[0]?.text);
    expect(transcript).toContain('early');
    await copy.terminate('done');
  });
});
