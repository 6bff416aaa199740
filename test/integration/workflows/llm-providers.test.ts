/**
 * An LLM agent on a second AI SDK provider: the worker names `anthropic` (the real
 * `@ai-sdk/anthropic`, pointed at a local fake of Anthropic's Messages API), the agent asks for
 * `anthropic:claude-sonnet-4-5` with settings of its own. The request reaches the Messages API with the
 * model and settings, the answer completes the task, and its usage is the one the server reported.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerModel } from '../../../src/llm/model-settings.js';
import type { TaskUsage } from '../../../src/protocol/llm.js';
import { stateOf } from '../../../src/protocol/states.js';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '../../support/fake-anthropic-server.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { finalTask, startTask } from '../../support/tasks.js';
import { startTestWorker, testClient } from '../../support/worker.js';
import { useTemporal } from '../../support/use-temporal.js';

let anthropic: FakeAnthropicServer;
let compatible: FakeModelServer;
beforeAll(async () => {
  [anthropic, compatible] = await Promise.all([startFakeAnthropicServer(), startFakeModelServer()]);
});
afterAll(() => Promise.all([anthropic?.close(), compatible?.close()]));

/** As README's model providers module names an OpenAI-compatible server. */
const local = (baseURL: string) => createOpenAICompatible({ name: 'local', baseURL, includeUsage: true });

const temporal = useTemporal(() => ({
  providers: {
    anthropic: createAnthropic({ baseURL: anthropic.url, apiKey: 'test-key' }),
    local: local(compatible.url),
  },
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

  it("runs on an OpenAI-compatible server named with createOpenAICompatible, with the server's usage", async () => {
    compatible.script({ match: 'Capital of Italy', text: 'Rome.' });
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-compatible-provider', {
      text: 'Capital of Italy?',
    });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe('Rome.');
    const [request] = compatible.requestsMatching('Capital of Italy');
    expect(request!.body).toMatchObject({ model: 'fake-model', stream: true, stream_options: { include_usage: true } });
    expect((task.metadata as { usage?: TaskUsage }).usage?.totalTokens).toBe(request!.usage!.total_tokens);
  });

  it('that refuses the request fails the task naming the provider, the model and the URL', async () => {
    const wrongURL = `${new URL(compatible.url).origin}/nothing/v1`;
    const worker = await startTestWorker(undefined, { model: { providers: { local: local(wrongURL) } } });
    const client = await testClient();
    try {
      const { handle } = await startTask(client, worker.taskQueue, 'test-llm-compatible-provider', { text: 'Hi' });
      const { task } = await finalTask(handle);
      expect(stateOf(task)).toBe('failed');
      expect(task.status.message?.parts[0]?.text).toBe(
        `The model call failed: model local:fake-model of provider local at ${wrongURL}/chat/completions answered 404: Unknown request URL: POST /nothing/v1/chat/completions`,
      );
    } finally {
      await worker.shutdown();
      await client.connection.close();
    }
  });
});
