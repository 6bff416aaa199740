/**
 * A sender that waits (untilSettled) gets its answer in the message update's own result: the whole
 * task once it ended and is small enough, else only the state to read it by.
 */
import { describe, expect, it } from 'vitest';
import { taskIdOfWorkflow, workflowIdForTask } from '../../../src/protocol/contract.js';
import { CONTEXT_ID_ATTRIBUTE } from '../../../src/protocol/search-attributes.js';
import { textOf } from '../../../src/protocol/wire.js';
import { cancelTask, reply, stateOf, waitForState, useTaskWorker } from '../../support/tasks.js';

const tasks = useTaskWorker();

describe('the settled answer of a message update', () => {
  it('holds an ended task whole', async () => {
    const { accepted } = await tasks.start('echo', { text: 'hello', untilSettled: true });
    expect(accepted.settled?.state).toBe('completed');
    expect(stateOf(accepted.settled!.task!)).toBe('completed');
    expect(textOf(accepted.settled!.task!.status.message!.parts)).toBe('hello');
    expect(accepted.settled!.notifying).toBeUndefined();
  });

  it('leaves out an ended task larger than 256 KB (the sender reads it)', async () => {
    const text = 'x'.repeat(200 * 1024); // in the history and again in the status message
    const { accepted } = await tasks.start('echo', { text, untilSettled: true });
    expect(accepted.settled).toEqual({ state: 'completed' });
  });

  it('holds a new task where it first waits, leaves out one that waits again, and holds it once it ends', async () => {
    const { handle, accepted } = await tasks.start('test-chat', {
      text: 'chat',
      data: { turns: 2 },
      untilSettled: true,
    });
    expect(accepted.settled?.state).toBe('input-required');
    expect(accepted.settled?.task?.metadata?.['pendingQuestion']).toMatchObject({ prompt: 'Question 1?' });
    const again = await reply(handle, { text: 'one', untilSettled: true });
    expect(again.settled).toEqual({ state: 'input-required' });
    const answered = await reply(handle, { text: 'two', untilSettled: true });
    expect(answered.settled?.state).toBe('completed');
    expect(stateOf(answered.settled!.task!)).toBe('completed');
  });

  it('answers a sender waiting on a task that is canceled meanwhile with the canceled task', async () => {
    const contextId = `settled-cancel-${Date.now()}`;
    const waiting = tasks.start('test-block', { text: 'go', contextId, untilSettled: true });
    const taskId = await taskIdOfContext(contextId);
    await waitForState(tasks.client.workflow.getHandle(workflowIdForTask(taskId)), 'working');
    await cancelTask(tasks.client, taskId, {});
    const { accepted } = await waiting;
    expect(accepted.settled?.state).toBe('canceled');
    expect(stateOf(accepted.settled!.task!)).toBe('canceled');
  });

  it('answers it with the canceled task when Temporal cancels the workflow meanwhile', async () => {
    const contextId = `settled-temporal-cancel-${Date.now()}`;
    const waiting = tasks.start('test-block', { text: 'go', contextId, untilSettled: true });
    const handle = tasks.client.workflow.getHandle(workflowIdForTask(await taskIdOfContext(contextId)));
    await waitForState(handle, 'working');
    await handle.cancel();
    const { accepted } = await waiting;
    expect(accepted.settled?.state).toBe('canceled');
    expect(stateOf(accepted.settled!.task!)).toBe('canceled');
  });

  it('says when the task notifies webhooks (its workflow may stay open after it ended)', async () => {
    const pushConfig = { id: 'hook', url: 'http://127.0.0.1:9/unreachable' };
    const { accepted, handle } = await tasks.start('echo', {
      text: 'hello',
      untilSettled: true,
      pushConfig,
    });
    expect(accepted.settled).toMatchObject({ state: 'completed', notifying: true });
    await handle.terminate('test over: nothing listens on the webhook');
  });
});

/** The task of a context, found through visibility (the start is still waiting for its answer). */
async function taskIdOfContext(contextId: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    for await (const workflow of tasks.client.workflow.list({
      query: `${CONTEXT_ID_ATTRIBUTE.name} = "${contextId}"`,
    })) {
      return taskIdOfWorkflow(workflow.workflowId)!;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`No task of context ${contextId} became visible`);
}
