/**
 * LLM agents' token usage and budgets, against the fake model server's reported usage: every model
 * call's tokens in the task's `metadata.usage` (per call and summed); a budget reached makes the task
 * input-required with the spend in the question, "continue" goes on to complete, "stop" ends it.
 */
import { randomUUID } from 'node:crypto';
import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TaskUsage } from '../../../src/protocol/llm.js';
import { stateOf } from '../../../src/protocol/states.js';
import type { WireTask } from '../../../src/protocol/wire.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { finalTask, reply, startTask, waitForState } from '../../support/tasks.js';
import { useTemporal } from '../../support/use-temporal.js';

let model: FakeModelServer;
beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(() => model?.close());

const temporal = useTemporal(() => ({ baseURL: model.url, model: 'fake-model' }));

const token = () => `t${randomUUID().slice(0, 8)}`;
const usageOf = (task: WireTask) => (task.metadata as { usage?: TaskUsage }).usage;

/** What the fake model server reported for the requests of one test, call by call. */
function reported(match: string) {
  return model.requestsMatching(match).map((request) => ({
    model: 'fake-model',
    inputTokens: request.usage!.prompt_tokens,
    outputTokens: request.usage!.completion_tokens,
    totalTokens: request.usage!.total_tokens,
  }));
}

function lookupThenAnswer(t: string) {
  model.script(
    { match: t, toolCalls: [{ name: 'lookup_price', arguments: { item: t } }] },
    { match: `${t}\\"`, text: `${t} costs 150.` },
  );
}

describe('the usage of an LLM task', () => {
  it("records every model call's tokens, and their sums, as the model reported them", async () => {
    const t = token();
    lookupThenAnswer(t);
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Price ${t}` });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    const calls = reported(t);
    expect(calls).toHaveLength(2);
    const sum = (key: 'inputTokens' | 'outputTokens' | 'totalTokens') => calls.reduce((n, call) => n + call[key], 0);
    expect(usageOf(task)).toEqual({
      inputTokens: sum('inputTokens'),
      outputTokens: sum('outputTokens'),
      totalTokens: sum('totalTokens'),
      modelCalls: 2,
      calls,
    });
    expect(sum('inputTokens')).toBeGreaterThan(0);
  });
});

describe('a model endpoint that reports no usage in its streamed answers', () => {
  it('is warned of once in the worker log, naming the model and includeUsage', async () => {
    const log = vi.spyOn(Runtime.instance().logger, 'log');
    try {
      const t = token();
      model.script(
        { match: t, toolCalls: [{ name: 'lookup_price', arguments: { item: t } }], noUsage: true },
        { match: `${t}\\"`, text: `${t} costs 150.`, noUsage: true },
      );
      const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', {
        text: `Price ${t}`,
      });
      const { task } = await finalTask(handle);
      expect(usageOf(task)).toMatchObject({ totalTokens: 0, modelCalls: 2 });
      const warnings = log.mock.calls.filter(([level, message]) => level === 'WARN' && /no token usage/.test(message));
      expect(warnings.map(([, message]) => message)).toEqual([
        expect.stringMatching(
          /^Model fake-model of the A2A_MODEL_BASE_URL endpoint reported no token usage: .*includeUsage: true/,
        ),
      ]);
    } finally {
      log.mockRestore();
    }
  });
});

describe('a budget', () => {
  it('reached makes the task input-required with the spend in the question; "continue" goes on and completes', async () => {
    const t = token();
    lookupThenAnswer(t);
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-budget', {
      text: `Price ${t}`,
    });
    const waiting = await waitForState(handle, 'input-required');
    const spent = reported(t)[0]!.totalTokens;
    expect(spent).toBeGreaterThanOrEqual(100);
    expect(waiting.status.message?.parts[0]?.text).toBe(
      `This task has used ${spent} tokens in 1 model call, reaching its budget of 100 tokens. Reply "continue" to go on (with the same budget again) or "stop" to end the task.`,
    );
    expect((waiting.metadata as any).pendingQuestion.details).toEqual({
      budget: { maxTokens: 100, maxSteps: 20 },
      spent: { totalTokens: spent, modelCalls: 1 },
      answers: ['continue', 'stop'],
    });
    expect(model.requestsMatching(t)).toHaveLength(1);

    await reply(handle, { text: 'continue' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe(`${t} costs 150.`);
    expect(usageOf(task)?.modelCalls).toBe(2);
  });

  it('of model calls asks before the call over it; "stop" ends the task saying what was spent', async () => {
    const t = token();
    model.script(...[1, 2].map(() => ({ match: t, toolCalls: [{ name: 'lookup_price', arguments: { item: t } }] })), {
      match: t,
      text: 'never asked for',
    });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-call-budget', {
      text: `Price ${t}`,
    });
    const waiting = await waitForState(handle, 'input-required');
    expect(waiting.status.message?.parts[0]?.text).toMatch(/in 2 model calls, reaching its budget of 2 model calls/);
    await reply(handle, { text: 'stop' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('failed');
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^Stopped at the budget of 2 model calls \(\d+ tokens in 2 model calls used\)/,
    );
    expect(model.requestsMatching(t)).toHaveLength(2);
  });

  it('of model calls replaces maxSteps: "continue" goes past it, to the next budget', async () => {
    const t = token();
    const lookup = () => ({ match: t, toolCalls: [{ name: 'lookup_price', arguments: { item: t } }] });
    model.script(lookup(), lookup(), lookup(), lookup(), { match: t, text: `${t} done.` });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-call-budget', {
      text: `Price ${t}`,
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'continue' });
    // The agent's maxSteps is 3: the 4th call is the budget's to allow.
    await expect.poll(() => model.requestsMatching(t).length, { timeout: 30_000 }).toBe(4);
    const again = await waitForState(handle, 'input-required');
    expect(again.status.message?.parts[0]?.text).toMatch(/in 4 model calls, reaching its budget of 4 model calls\./);
    await reply(handle, { text: 'continue' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe(`${t} done.`);
  });
});

describe("an agent's maxSteps", () => {
  it('reached asks like a budget, naming it; "continue" grants as many steps again', async () => {
    const t = token();
    const lookup = () => ({ match: t, toolCalls: [{ name: 'lookup_price', arguments: { item: t } }] });
    model.script(lookup(), lookup(), { match: t, text: `${t} done.` });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-steps', {
      text: `Price ${t}`,
    });
    const waiting = await waitForState(handle, 'input-required');
    expect(waiting.status.message?.parts[0]?.text).toMatch(
      /in 2 model calls, reaching its budget of 2 model calls \(the agent's maxSteps, default 20\)\./,
    );
    expect((waiting.metadata as any).pendingQuestion.details).toMatchObject({
      budget: { maxSteps: 2 },
      spent: { modelCalls: 2 },
    });
    await reply(handle, { text: 'continue' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(model.requestsMatching(t)).toHaveLength(3);
  });
});
