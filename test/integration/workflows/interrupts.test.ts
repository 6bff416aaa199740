import { WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { completeAuthUpdate, type AuthCompletion } from '../../../src/protocol/contract.js';
import { textOf } from '../../../src/protocol/wire.js';
import { reply, startTask, stateOf, waitForState } from '../../support/tasks.js';
import { startTestWorker } from '../../support/worker.js';
import { useTemporal } from '../../support/use-temporal.js';

const temporal = useTemporal();

async function failureType(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as { type?: string } | undefined)?.type;
}

function resultOf(task: { status: { message?: { parts: { text?: string }[] } } }) {
  return JSON.parse(textOf(task.status.message!.parts)) as Record<string, unknown>;
}

describe('input-required and auth-required', () => {
  it('input-required -> working -> completed', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'ask me' });
    const waiting = await waitForState(handle, 'input-required');
    expect(waiting.metadata!.pendingQuestion).toMatchObject({ kind: 'input', prompt: 'Your answer?' });
    await reply(handle, { text: 'forty-two', responder: 'carol' });
    const done = await waitForState(handle, 'completed');
    expect(resultOf(done)).toMatchObject({ text: 'forty-two', responder: 'carol', timedOut: false });
    const states = (done.metadata!.timeline as { state: string; by?: string }[]).map((e) => `${e.state}:${e.by ?? ''}`);
    expect(states).toEqual(['submitted:', 'working:agent', 'input-required:agent', 'working:carol', 'completed:agent']);
  });

  it('a follow-up to a working task is rejected: never two agent runs at once', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-block', { text: 'go' });
    await waitForState(handle, 'working');
    expect(await failureType(reply(handle, { text: 'more' }))).toBe('TaskNotWaitingForInput');
    await handle.terminate('test done');
  });

  it('a message to a terminal task and a mismatched contextId are rejected', async () => {
    const { handle, accepted } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    expect(await failureType(reply(handle, { text: 'y', contextId: 'another-context' }))).toBe('ContextMismatch');
    await reply(handle, { text: 'y', contextId: accepted.task.contextId });
    await handle.result();
    // The workflow closes as its task ends: Temporal itself refuses the update (the gateway maps it).
    await expect(reply(handle, { text: 'z' })).rejects.toThrow(/already completed/);
  });

  it('an invalid structured reply is rejected and the task keeps waiting', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', {
      text: 'structured',
      data: { structured: true },
    });
    const waiting = await waitForState(handle, 'input-required');
    expect(waiting.metadata!.pendingQuestion).toMatchObject({ expects: '{approved, comment?}' });
    expect(await failureType(reply(handle, { data: { approved: 'yes' } }))).toBe('InvalidReply');
    expect(await failureType(reply(handle, { text: 'approved' }))).toBe('InvalidReply');
    expect(stateOf(await waitForState(handle, 'input-required'))).toBe('input-required');
    await reply(handle, { data: { approved: true, comment: 'fine' } });
    const done = await waitForState(handle, 'completed');
    expect(resultOf(done).value).toEqual({ approved: true, comment: 'fine' });
  });

  it('only allowed responders may answer', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', {
      text: 'who',
      data: { responders: ['dana'] },
    });
    await waitForState(handle, 'input-required');
    expect(await failureType(reply(handle, { text: 'me', responder: 'eve' }))).toBe('ResponderNotAllowed');
    await reply(handle, { text: 'me', responder: 'dana' });
    expect(resultOf(await waitForState(handle, 'completed')).responder).toBe('dana');
  });

  it('the same follow-up sent three times concurrently is applied once; a new message reusing its messageId is applied', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-chat', {
      text: 'chat',
      data: { turns: 2 },
    });
    await waitForState(handle, 'input-required');
    const results = await Promise.all(
      [1, 2, 3].map(() => reply(handle, { text: 'first answer', messageId: 'reused' }, 'reused:digest-a')),
    );
    expect(results.filter((r) => !r.duplicate).length).toBeGreaterThanOrEqual(1);
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'second answer', messageId: 'reused' }, 'reused:digest-b');
    const done = await waitForState(handle, 'completed');
    expect(textOf(done.status.message!.parts)).toBe('first answer,second answer');
    const userTexts = done.history!.filter((m) => m.role === 'ROLE_USER').map((m) => textOf(m.parts));
    expect(userTexts).toEqual(['chat', 'first answer', 'second answer']);
  });

  it('a short deadline passes and the configured outcome applies', async () => {
    const rejected = await startTask(temporal.client, temporal.worker.taskQueue, 'expense-approval-short', {
      text: 'Please approve an expense of 10 USD for coffee',
    });
    const waiting = await waitForState(rejected.handle, 'input-required');
    expect(waiting.metadata!.pendingQuestion).toHaveProperty('deadline');
    const task = await waitForState(rejected.handle, 'rejected');
    expect(textOf(task.status.message!.parts)).toBe('Approval deadline passed');

    const defaulted = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', {
      text: 'default',
      data: { deadline: '1 second', onDeadline: { kind: 'answer', text: 'no objection' } },
    });
    const done = await waitForState(defaulted.handle, 'completed');
    expect(resultOf(done)).toMatchObject({ text: 'no objection', responder: 'deadline', timedOut: true });

    const failed = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', {
      text: 'fail',
      data: { deadline: '1 second' },
    });
    expect(textOf((await waitForState(failed.handle, 'failed')).status.message!.parts)).toBe(
      'No answer before the deadline',
    );
  });

  it('auth-required in-band: the credentials arrive in the next message', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-auth', { text: 'in-band' });
    const waiting = await waitForState(handle, 'auth-required');
    expect(waiting.metadata!.pendingQuestion).toMatchObject({ kind: 'auth', outOfBand: false });
    await reply(handle, { data: { token: 'opaque' } });
    expect(resultOf(await waitForState(handle, 'completed'))).toMatchObject({
      mode: 'in-band',
      data: { token: 'opaque' },
    });
  });

  it('auth-required out-of-band: a callback completes it, messages are refused meanwhile', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-auth', { text: 'oob' });
    await waitForState(handle, 'auth-required');
    expect(await failureType(reply(handle, { text: 'here is my password' }))).toBe('TaskNotWaitingForInput');
    await handle.executeUpdate(completeAuthUpdate, { args: [{ by: 'oauth-callback', data: { grant: 'calendar' } }] });
    expect(resultOf(await waitForState(handle, 'completed'))).toMatchObject({
      mode: 'out-of-band',
      data: { grant: 'calendar' },
      responder: 'oauth-callback',
    });
  });

  it('an out-of-band completion gets the checks a reply gets: who may see the task, and its agent', async () => {
    const alice = { id: 'alice', groups: [] };
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-auth', {
      text: 'oob',
      caller: alice,
    });
    await waitForState(handle, 'auth-required');
    const complete = (completion: AuthCompletion) => handle.executeUpdate(completeAuthUpdate, { args: [completion] });
    expect(await failureType(complete({ caller: { id: 'mallory', groups: [] } }))).toBe('NotVisibleToCaller');
    expect(await failureType(complete({ caller: alice, agent: 'echo' }))).toBe('WrongAgent');
    await complete({ caller: alice, agent: 'test-auth', data: { grant: 'calendar' } });
    expect(resultOf(await waitForState(handle, 'completed'))).toMatchObject({ responder: 'alice' });
  });

  it('a completion sent after the deadline passed while the worker was down is refused, as a late reply is', async () => {
    const worker = await startTestWorker();
    const { handle } = await startTask(temporal.client, worker.taskQueue, 'test-auth', {
      text: 'oob',
      data: { deadline: '2 seconds', onDeadline: { kind: 'reject', reason: 'Sign-in deadline passed' } },
    });
    await waitForState(handle, 'auth-required');
    await worker.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Accepted or refused only once a worker is back: then the deadline has passed in the workflow's time too.
    const late = failureType(handle.executeUpdate(completeAuthUpdate, { args: [{ by: 'oauth-callback' }] }));
    const restarted = await startTestWorker(worker.taskQueue);
    try {
      expect(await late).toBe('TaskNotWaitingForInput');
      const task = await waitForState(handle, 'rejected');
      expect(textOf(task.status.message!.parts)).toBe('Sign-in deadline passed');
    } finally {
      await restarted.shutdown();
    }
  });

  it('a malformed or oversized answer typed by an operator is refused, and the task keeps waiting', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    const raw = (arg: unknown) => handle.executeUpdate('message', { args: [arg] });
    expect(await failureType(raw({ parts: [null] }))).toBe('InvalidReply');
    expect(await failureType(raw('approve'))).toBe('InvalidReply');
    expect(await failureType(raw({ text: 'x'.repeat(600 * 1024) }))).toBe('InvalidReply');
    expect(await failureType(handle.executeUpdate('completeAuth', { args: [] }))).toBe('TaskNotWaitingForInput');
    await reply(handle, { text: 'fine' });
    expect(resultOf(await waitForState(handle, 'completed')).text).toBe('fine');
  });

  it('refuses a message addressed through another agent', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    expect(await failureType(reply(handle, { text: 'y', agent: 'echo' }))).toBe('WrongAgent');
    await reply(handle, { text: 'y', agent: 'test-ask' });
    await waitForState(handle, 'completed');
  });
});
