/**
 * LLM agents against a local fake OpenAI-compatible server (real HTTP, through the AI SDK's
 * provider) and the real Temporal dev server: approvals, denials, edited arguments, deadlines,
 * a worker restart mid-approval, a model that is down, malformed tool arguments, cancel mid-stream.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskQuery } from '../../../src/protocol/contract.js';
import { stateOf } from '../../../src/protocol/states.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { cancelTask, finalTask, refusal, reply, startTask, waitForState } from '../../support/tasks.js';
import { abortedActivities, placedOrders } from '../../support/test-activities.js';
import { startTestWorker, testClient } from '../../support/worker.js';
import { useTemporal } from '../../support/use-temporal.js';

let model: FakeModelServer;
beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(() => model?.close());

const temporal = useTemporal(() => ({ baseURL: model.url, model: 'fake-model' }));

/** A unique word in the user's request, so each test's scripted replies and requests are its own. */
function token(): string {
  return `t${randomUUID().slice(0, 8)}`;
}

function order(match: string, args: object | string, id = `call-${match}`) {
  return { match, toolCalls: [{ name: 'place_order', arguments: args, id }] };
}

function ordersFor(item: string) {
  return placedOrders.filter((placed) => placed.item === item);
}

describe('an LLM agent', () => {
  it('waits for approval of a tool call, runs it once after approve, and completes with the model answer', async () => {
    const t = token();
    model.script(order(t, { item: t, quantity: 3, total: 450 }), {
      match: `${t}\\"` /* the tool result mentions the item */,
      text: `Ordered 3 ${t}.`,
    });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Buy 3 ${t}` });
    const waiting = await waitForState(handle, 'input-required');
    const question = (waiting.metadata as any).pendingQuestion;
    expect(question.details).toMatchObject({
      tool: 'place_order',
      arguments: { item: t, quantity: 3, total: 450 },
      reason: 'the total 450 is over 100',
    });
    expect(waiting.status.message?.parts.some((part) => part.data !== undefined)).toBe(true);
    expect(ordersFor(t)).toEqual([]);

    await reply(handle, { text: 'approve', responder: 'alice' });
    const done = await handle.result();
    expect(stateOf(done)).toBe('completed');
    expect(done.status.message?.parts[0]?.text).toBe(`Ordered 3 ${t}.`);
    expect(ordersFor(t)).toHaveLength(1);
    const second = model.requestsMatching(t)[1]!.body;
    expect(JSON.stringify(second.messages.at(-1))).toContain('order-');
  });

  it("keeps a streamed answer as one text part of the task's answer artifact", async () => {
    const t = token();
    const answer = `The answer about ${t}, streamed in chunks of four characters.`;
    model.script({ match: t, text: answer, chunkSize: 4 });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Tell ${t}` });
    const { task } = await finalTask(handle);
    expect(task.artifacts?.map(({ name, parts }) => ({ name, parts }))).toEqual([
      { name: 'answer', parts: [{ text: answer }] },
    ]);
  });

  it('sends a denial back to the model as the tool result', async () => {
    const t = token();
    model.script(order(t, { item: t, quantity: 1, total: 500 }), { match: 'denied', text: 'Understood, no order.' });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Buy ${t}` });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'deny too expensive' });
    const done = await handle.result();
    expect(done.status.message?.parts[0]?.text).toBe('Understood, no order.');
    expect(ordersFor(t)).toEqual([]);
    const toolResult = JSON.stringify(model.requestsMatching(t)[1]!.body.messages.at(-1));
    expect(toolResult).toMatch(/denied this call: too expensive/);
  });

  it('runs approved edited arguments; refuses edited arguments that do not match the schema and keeps waiting', async () => {
    const t = token();
    model.script(order(t, { item: t, quantity: 5, total: 750 }), { match: `${t}\\"`, text: 'Done.' });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Buy ${t}` });
    await waitForState(handle, 'input-required');

    const invalid = reply(handle, {
      text: '',
      data: { decision: 'approve', arguments: { item: t, quantity: 'two', total: 300 } },
    });
    expect(await refusal(invalid)).toMatch(/arguments\.quantity/);
    expect(stateOf(await waitForState(handle, 'input-required'))).toBe('input-required');

    await reply(handle, { text: '', data: { decision: 'approve', arguments: { item: t, quantity: 2, total: 300 } } });
    expect(stateOf(await handle.result())).toBe('completed');
    expect(ordersFor(t)).toEqual([{ item: t, quantity: 2, total: 300 }]);
  });

  it('denies the call when the approval deadline passes, and tells the model', async () => {
    const t = token();
    model.script(order(t, { item: t, quantity: 1, total: 5 }), {
      match: 'approval deadline',
      text: 'Nobody approved.',
    });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-deadline', {
      text: `Buy ${t}`,
    });
    const waiting = await waitForState(handle, 'input-required');
    expect((waiting.metadata as any).pendingQuestion.responders).toEqual(['alice']);
    expect(await refusal(reply(handle, { text: 'approve', responder: 'mallory' }))).toMatch(/Only alice/);
    const done = await handle.result();
    expect(done.status.message?.parts[0]?.text).toBe('Nobody approved.');
    expect(ordersFor(t)).toEqual([]);
  });

  it('sends malformed tool arguments back to the model instead of failing', async () => {
    const t = token();
    model.script(order(t, '{"item": '), { match: 'not valid JSON', text: 'Let me stop here.' });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Buy ${t}` });
    const done = await handle.result();
    expect(stateOf(done)).toBe('completed');
    expect(done.status.message?.parts[0]?.text).toBe('Let me stop here.');
  });

  it('keeps a proposed call across a worker restart without calling the model again', async () => {
    const t = token();
    model.script(order(t, { item: t, quantity: 2, total: 300 }), {
      match: `${t}\\"`,
      text: 'Ordered after the restart.',
    });
    const worker = await startTestWorker(undefined, { model: { baseURL: model.url, model: 'fake-model' } });
    const { handle } = await startTask(temporal.client, worker.taskQueue, 'test-llm', { text: `Buy ${t}` });
    await waitForState(handle, 'input-required');
    await worker.shutdown();
    expect(model.requestsMatching(t)).toHaveLength(1);

    const again = await startTestWorker(worker.taskQueue, { model: { baseURL: model.url, model: 'fake-model' } });
    try {
      await reply(handle, { text: 'approve' });
      expect(stateOf(await handle.result())).toBe('completed');
      expect(model.requestsMatching(t)).toHaveLength(2);
      expect(ordersFor(t)).toHaveLength(1);
    } finally {
      await again.shutdown();
    }
  });

  it('cancel during a slow streamed answer aborts the model request and ends canceled', async () => {
    const t = token();
    model.script({ match: t, text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 50 });
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', {
      text: `Write ${t}`,
    });
    await waitForState(handle, 'working');
    // The answer streams in: some of it has reached the task before the cancel.
    for (let i = 0; i < 100 && !(await handle.query(taskQuery)).artifacts; i++) await sleep(100);
    const canceled = await cancelTask(temporal.client, taskId, { by: 'alice' });
    expect(stateOf(canceled)).toBe('canceled');
    // The task ends canceled only once the activity has stopped: the request is already gone.
    expect(model.requestsMatching(t).map((request) => request.aborted)).toEqual([true]);
  });
});

describe('cancelling an LLM agent', () => {
  it('stops the running tool (its activity sees the abort) and ends canceled', async () => {
    const t = token();
    model.script({ match: t, toolCalls: [{ name: 'wait', arguments: { key: t } }] });
    const { taskId } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Wait ${t}` });
    await expect.poll(() => model.requestsMatching(t).length).toBe(1);
    await sleep(500); // the tool's activity is running
    const canceled = await cancelTask(temporal.client, taskId, { by: 'alice' });
    expect(stateOf(canceled)).toBe('canceled');
    expect(abortedActivities.has(t)).toBe(true);
  });
});

describe('a long LLM session', () => {
  it('cuts oversized tool output with a note before the model sees it', async () => {
    const t = token();
    model.script(
      { match: t, toolCalls: [{ name: 'read_log', arguments: {} }] },
      { match: 'truncated', text: 'Read it.' },
    );
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Read ${t}` });
    expect(stateOf(await handle.result())).toBe('completed');
    const toolMessage = JSON.stringify(model.requestsMatching(t)[1]!.body.messages.at(-1));
    expect(toolMessage).toContain('[truncated: 34000 more characters]');
    expect(toolMessage.length).toBeLessThan(17_000);
  });

  it('continues as new while the model waits for the user, without calling the model again', async () => {
    const t = token();
    const turns = 14;
    model.script(
      ...Array.from({ length: turns }, (_, i) => ({
        match: t,
        toolCalls: [{ name: 'ask_user', arguments: { question: `Question ${i + 1}?` } }],
      })),
      { match: t, text: 'Thanks for all the answers.' },
    );
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Chat ${t}` });
    const firstRunId = (await handle.describe()).runId;
    for (let turn = 1; turn <= turns; turn++) {
      const waiting = await waitForState(handle, 'input-required');
      expect(waiting.status.message?.parts[0]?.text).toBe(`Question ${turn}?`);
      await reply(handle, { text: `answer ${turn}` });
    }
    const done = await handle.result();
    expect(done.status.message?.parts[0]?.text).toBe('Thanks for all the answers.');
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    const requests = model.requestsMatching(t);
    expect(requests).toHaveLength(turns + 1);
    expect(JSON.stringify(requests.at(-1)!.body.messages)).toContain(`answer ${turns}`);
  });
});

describe('an LLM agent without a usable model', () => {
  it('fails with a message naming the variable to set when no endpoint is configured', async () => {
    const worker = await startTestWorker(undefined, { model: {} });
    const client = await testClient();
    try {
      const { handle } = await startTask(client, worker.taskQueue, 'test-llm', { text: 'Buy something' });
      const { task: done, status } = await finalTask(handle);
      expect(status).toBe('FAILED');
      expect(stateOf(done)).toBe('failed');
      expect(done.status.message?.parts[0]?.text).toMatch(/set A2A_MODEL_BASE_URL/);
    } finally {
      await worker.shutdown();
      await client.connection.close();
    }
  });

  it('retries a model server that is down, then fails with a clear message', async () => {
    const down = await startFakeModelServer();
    const url = down.url;
    await down.close();
    const worker = await startTestWorker(undefined, { model: { baseURL: url, model: 'fake-model' } });
    const client = await testClient();
    try {
      const { handle } = await startTask(client, worker.taskQueue, 'test-llm', { text: 'Buy something' });
      const { task: done } = await finalTask(handle);
      expect(stateOf(done)).toBe('failed');
      expect(done.status.message?.parts[0]?.text).toMatch(/^The model call failed: /);
      const history = await handle.fetchHistory();
      const attempts = history.events?.filter((event) => event.activityTaskStartedEventAttributes);
      expect(attempts?.at(-1)?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    } finally {
      await worker.shutdown();
      await client.connection.close();
    }
  });
});

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
