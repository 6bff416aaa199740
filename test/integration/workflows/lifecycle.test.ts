import { describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import { taskQuery, type TimelineEntry } from '../../../src/protocol/contract.js';
import { textOf, type WireTask } from '../../../src/protocol/wire.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { reportRetries } from '../../../src/worker/retry-reports.js';
import { eventsOf, finalTask, reply, stateOf, waitForState, useTaskWorker } from '../../support/tasks.js';

const tasks = useTaskWorker();

describe('task lifecycle', () => {
  it('submitted -> working -> completed (echo)', async () => {
    const { handle, accepted } = await tasks.start('echo', { text: 'hello', messageId: 'm1' });
    expect(accepted.duplicate).toBe(false);
    const { task, status } = await finalTask(handle);
    expect(status).toBe('COMPLETED');
    expect(stateOf(task)).toBe('completed');
    expect(textOf(task.status.message!.parts)).toBe('hello');
    const timeline = (task.metadata!.timeline as { state: string }[]).map((e) => e.state);
    expect(timeline).toEqual(['submitted', 'working', 'completed']);
    expect(task.history![0]!.messageId).toBe('m1');
  });

  it('an internal agent error ends failed with a safe message, FAILED in Temporal', async () => {
    const { handle } = await tasks.start('test-crash', { text: 'go' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('FAILED');
    expect(stateOf(task)).toBe('failed');
    const text = textOf(task.status.message!.parts);
    expect(text).toMatch(/internal error/);
    expect(text).not.toMatch(/hunter2/);
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'TaskFailed', message: text } });
  });

  it('an activity being retried shows in the task within seconds (which one, not why), then the task completes', async () => {
    const { handle } = await tasks.start('test-flaky', { text: 'go' });
    const retrying = await waitForStatus(handle, /flakyStep failed \(attempt 1\) and is being retried/);
    expect(stateOf(retrying)).toBe('working');
    expect(JSON.stringify(retrying.status)).not.toContain('upstream timeout');
    const done = await waitForState(handle, 'completed');
    expect(textOf(done.status.message!.parts)).toBe('done on attempt 3');
  });

  it('an activity that fails 500 times leaves a bounded history: the task hears of attempts 1, 2, 4, 8, ...', async () => {
    // A working task, and the worker's retry reporter run over 500 failed attempts of one of its
    // activities (Temporal itself waits at least a second between retries: 500 would take minutes).
    const { handle } = await tasks.start('test-block', { text: 'go' });
    await waitForStatus(handle, /Blocking/);
    const before = (await handle.fetchHistory()).events!.length;
    for (let attempt = 1; attempt <= 500; attempt++) {
      const activity = new MockActivityEnvironment(
        { activityType: 'callSupplier', attempt, workflowExecution: { workflowId: handle.workflowId, runId: '' } },
        // Its log of each expected failure stays out of the test output.
        { client: tasks.client, interceptors: [reportRetries], logger: new DefaultLogger('ERROR', () => {}) },
      );
      await expect(activity.run(() => Promise.reject(new Error('still down')))).rejects.toThrow('still down');
    }
    // Sorted: the reports are signals sent without waiting, and here they all leave at once.
    const reported = async () =>
      ((await handle.query(taskQuery, {})).metadata!.timeline as TimelineEntry[])
        .flatMap((entry) => {
          const attempt = /callSupplier failed \(attempt (\d+)\)/.exec(entry.message ?? '')?.[1];
          return attempt ? [Number(attempt)] : [];
        })
        .sort((a, b) => a - b);
    await expect.poll(reported).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    // Each report is a signal and a status change: a few events each, 9 reports in all.
    expect((await handle.fetchHistory()).events!.length - before).toBeLessThan(9 * 8);
    await handle.cancel();
  });

  it('an activity that runs out of attempts fails the task naming it, not why', async () => {
    const { handle } = await tasks.start('test-out-of-retries', { text: 'go' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('failed');
    const text = textOf(task.status.message!.parts);
    expect(text).toMatch(
      /^The agent's activity flakyStep failed and ran out of retries \(workflow .*\); the worker's log says why$/,
    );
    expect(text).not.toContain('upstream timeout');
  });

  it('an agent calling an activity no worker registers fails at once, naming it (not working for ever)', async () => {
    const { handle } = await tasks.start('test-unknown-activity', { text: 'go' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('failed');
    expect(textOf(task.status.message!.parts)).toMatch(/No activity named "lookupOrder" is registered on this worker/);
    const history = await handle.fetchHistory();
    const attempts = history.events?.filter((event) => event.activityTaskStartedEventAttributes) ?? [];
    expect(attempts.map((event) => event.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
  });

  it('an AgentFailure ends failed with its message', async () => {
    const { handle } = await tasks.start('test-fail', { text: 'go' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('FAILED');
    expect(textOf(task.status.message!.parts)).toBe('The budget service is unavailable');
  });

  it('ctx.reject ends rejected, FAILED in Temporal with the reason', async () => {
    const { handle } = await tasks.start('test-reject', { text: 'go' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('FAILED');
    expect(stateOf(task)).toBe('rejected');
    expect(textOf(task.status.message!.parts)).toBe('Out of scope');
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'TaskRejected', message: 'Out of scope' } });
  });

  it('expense approval: input-required -> approve -> completed with an approval record', async () => {
    const { handle } = await tasks.start('expense-approval', {
      text: 'Please approve an expense of 120 USD for a team lunch',
    });
    const waiting = await waitForState(handle, 'input-required');
    expect(textOf(waiting.status.message!.parts)).toContain('120 USD');
    // What the Temporal UI shows as the workflow's current details.
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toMatch(
      /^\*\*input-required\*\*: .*120 USD.*\(deadline \d{4}-\d\d-\d\d \d\d:\d\d UTC, 3d after it was asked\)$/s,
    );
    const accepted = await reply(handle, { text: 'approve', responder: 'alice' });
    expect(stateOf(accepted.task)).toBe('working');
    const done = await waitForState(handle, 'completed');
    const record = done.artifacts![0]!;
    expect(record.name).toBe('approval-record');
    expect(record.parts[0]!.data).toMatchObject({
      amount: 120,
      currency: 'USD',
      decision: 'approved',
      decidedBy: 'alice',
    });
    const events = await eventsOf(handle);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('expense approval: an answer that names nobody is decided by "user", as the timeline records it', async () => {
    const { handle } = await tasks.start('expense-approval', {
      text: 'Please approve an expense of 15 USD for taxis',
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'approve' });
    const done = await waitForState(handle, 'completed');
    expect(done.artifacts![0]!.parts[0]!.data).toMatchObject({ decidedBy: 'user' });
    const timeline = (done.metadata as { timeline: TimelineEntry[] }).timeline;
    const answered = timeline.findIndex((entry) => entry.state === 'input-required') + 1;
    expect(timeline[answered]).toMatchObject({ state: 'working', by: 'user' });
  });

  it('expense approval: deny -> rejected', async () => {
    const { handle } = await tasks.start('expense-approval', {
      text: 'Please approve an expense of 99 EUR for a conference',
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'deny', responder: 'bob' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('FAILED');
    expect(stateOf(task)).toBe('rejected');
    expect(textOf(task.status.message!.parts)).toBe('Denied by bob.');
  });
});

/** The task once its status message matches `text` (polled by query). */
async function waitForStatus(handle: WorkflowHandle, text: RegExp, timeoutMs = 15_000): Promise<WireTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await handle.query(taskQuery, {});
    if (text.test(textOf(task.status.message?.parts ?? []))) return task;
    if (Date.now() > deadline)
      throw new Error(`The status never said ${text}: it says "${textOf(task.status.message?.parts ?? [])}"`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
