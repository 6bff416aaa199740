/**
 * An LLM agent on a second AI SDK provider: the worker names `anthropic` (the real
 * `@ai-sdk/anthropic`, pointed at a local fake of Anthropic's Messages API), the agent asks for
 * `anthropic:claude-sonnet-4-5` with settings of its own. The request reaches the Messages API with the
 * model and settings, the answer completes the task, and its usage is the one the server reported.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerModel } from '../../src/llm/model-settings.js';
import type { TaskUsage } from '../../src/protocol/llm.js';
import { stateOf } from '../../src/protocol/states.js';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '../support/fake-anthropic-server.js';
import { finalTask, startTask } from '../support/tasks.js';
import { useTemporal } from './test-context.js';

let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  anthropic = await startFakeAnthropicServer();
});
afterAll(() => anthropic?.close());

const temporal = useTemporal(() => ({
  providers: { anthropic: createAnthropic({ baseURL: anthropic.url, apiKey: 'test-key' }) },
}));

describe('a model of a configured provider', () => {
  it("runs the agent's model calls on that provider, with the agent's settings", async () => {
    anthropic.answer('Paris is the capital of France.', { input: 42, output: 7 });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-provider', {
      text: 'Capital of France?',
    });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe('Paris is the capital of France.');
    expect(anthropic.requests).toHaveLength(1);
    expect(anthropic.requests[0]).toMatchObject({
      model: 'claude-sonnet-4-5',
      temperature: 0.2,
      max_tokens: 321,
      stream: true,
    });
    expect((task.metadata as { usage?: TaskUsage }).usage).toMatchObject({
      inputTokens: 42,
      outputTokens: 7,
      totalTokens: 49,
      modelCalls: 1,
      calls: [{ model: 'anthropic:claude-sonnet-4-5', inputTokens: 42, outputTokens: 7 }],
    });
  });

  it('reads a colon as a provider only when one of that name is configured', () => {
    const settings = { providers: { anthropic: createAnthropic({ apiKey: 'k' }) } };
    expect(providerModel(settings, 'anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
    });
    expect(providerModel(settings, 'llama3.1:8b')).toBeUndefined();
    expect(providerModel({}, 'anthropic:claude-sonnet-4-5')).toBeUndefined();
  });
});
