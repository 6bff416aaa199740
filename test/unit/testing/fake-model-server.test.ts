import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';

let server: FakeModelServer;
let model: ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;

beforeAll(async () => {
  server = await startFakeModelServer();
  model = createOpenAICompatible({ name: 'fake', baseURL: server.url, apiKey: 'test' }).chatModel('fake-model');
});

afterAll(async () => {
  await server.close();
});

/** A tool without `execute`: the SDK hands its calls back instead of running them. */
const tools = {
  search: tool({
    description: 'Search the web.',
    inputSchema: jsonSchema<{ q: string }>({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    }),
  }),
};

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('fake model server, through the real AI SDK openai-compatible provider', () => {
  it('answers generateText with the scripted text', async () => {
    server.script({ match: 'case-a', text: 'Hello from the fake model.' });
    const result = await generateText({ model, prompt: 'case-a', maxRetries: 0 });
    expect(result.text).toBe('Hello from the fake model.');
    expect(result.finishReason).toBe('stop');
    const [request] = server.requestsMatching('case-a');
    expect(request?.body.model).toBe('fake-model');
    expect(request?.body.stream).toBeUndefined();
    expect(request?.body.messages).toEqual([{ role: 'user', content: 'case-a' }]);
    expect(request?.aborted).toBe(false);
  });

  it('streams the scripted text as several deltas', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    server.script({ match: 'case-b', text, chunkSize: 5 });
    const result = streamText({ model, prompt: 'case-b', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas.length).toBe(Math.ceil(text.length / 5));
    expect(deltas.join('')).toBe(text);
    expect(await result.finishReason).toBe('stop');
    expect(server.requestsMatching('case-b')[0]?.body.stream).toBe(true);
  });

  it('sends a usage chunk when the client asks for stream usage', async () => {
    const withUsage = createOpenAICompatible({
      name: 'fake',
      baseURL: server.url,
      apiKey: 'test',
      includeUsage: true,
    }).chatModel('fake-model');
    server.script({ match: 'case-usage', text: 'twelve chars' });
    const result = streamText({ model: withUsage, prompt: 'case-usage', maxRetries: 0 });
    expect(await result.text).toBe('twelve chars');
    expect(server.requestsMatching('case-usage')[0]?.body.stream_options).toEqual({ include_usage: true });
    expect((await result.usage).outputTokens).toBe(3);
  });

  it('returns a scripted tool call, parsed, from generateText', async () => {
    server.script({ match: 'case-c1', toolCalls: [{ name: 'search', arguments: { q: 'temporal' }, id: 'call_c1' }] });
    const result = await generateText({ model, prompt: 'case-c1', tools, maxRetries: 0 });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        type: 'tool-call',
        toolCallId: 'call_c1',
        toolName: 'search',
        input: { q: 'temporal' },
      }),
    ]);
    expect(result.toolResults).toEqual([]);
    expect(server.requestsMatching('case-c1')[0]?.body.tools![0]!.function.name).toBe('search');
  });

  it('returns a scripted tool call, parsed, from streamText', async () => {
    server.script({
      match: 'case-c2',
      text: 'Let me look.',
      toolCalls: [{ name: 'search', arguments: '{"q":"durable execution"}' }],
    });
    const result = streamText({ model, prompt: 'case-c2', tools, maxRetries: 0 });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain('tool-input-start');
    expect(types.filter((t) => t === 'tool-input-delta')).toHaveLength(2);
    expect(await result.text).toBe('Let me look.');
    expect(await result.finishReason).toBe('tool-calls');
    // Same shape as generateText's: static, validated calls with the input already parsed.
    expect(await result.toolCalls).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.stringMatching(/^call_/),
        toolName: 'search',
        input: { q: 'durable execution' },
      },
    ]);
  });

  it('surfaces malformed tool arguments as an invalid tool call plus a tool-error, without throwing', async () => {
    // Observed (ai 6, openai-compatible 2): nothing throws; the call comes back in `toolCalls` with `invalid: true`,
    // `dynamic: true`, the raw text as `input` and an AI_InvalidToolInputError as `error`, and `content` also holds a
    // `tool-error` part whose `error` is that error's message string; finishReason stays 'tool-calls'.
    const malformed = '{"q": ';
    server.script({ match: 'case-d1', toolCalls: [{ name: 'search', arguments: malformed }] });
    const generated = await generateText({ model, prompt: 'case-d1', tools, maxRetries: 0 });
    expect(generated.finishReason).toBe('tool-calls');
    expect(generated.toolCalls).toHaveLength(1);
    const call: any = generated.toolCalls[0];
    expect(call).toMatchObject({ toolName: 'search', input: malformed, invalid: true, dynamic: true });
    expect(call.error.name).toBe('AI_InvalidToolInputError');
    const toolError: any = generated.content.find((p) => p.type === 'tool-error');
    expect(toolError).toMatchObject({ toolCallId: call.toolCallId, toolName: 'search', input: malformed });
    expect(toolError.error).toEqual(expect.stringContaining('JSON parsing failed'));
    expect(generated.toolResults).toEqual([]);

    server.script({ match: 'case-d2', toolCalls: [{ name: 'search', arguments: malformed }] });
    const streamed = streamText({ model, prompt: 'case-d2', tools, maxRetries: 0 });
    const parts: any[] = [];
    for await (const part of streamed.fullStream) parts.push(part);
    expect(parts.map((p) => p.type)).not.toContain('error');
    const streamedCall = parts.find((p) => p.type === 'tool-call');
    expect(streamedCall).toMatchObject({ input: malformed, invalid: true, dynamic: true });
    expect(streamedCall.error.name).toBe('AI_InvalidToolInputError');
    expect(parts.find((p) => p.type === 'tool-error')).toMatchObject({ toolCallId: streamedCall.toolCallId });
    expect(await streamed.toolCalls).toEqual([expect.objectContaining({ invalid: true, input: malformed })]);
  });

  it('marks the request aborted when the client aborts a slow stream', async () => {
    server.script({ match: 'case-e', text: 'x'.repeat(200), chunkSize: 2, chunkDelayMs: 50 });
    const controller = new AbortController();
    const result = streamText({ model, prompt: 'case-e', maxRetries: 0, abortSignal: controller.signal });
    const deltas: string[] = [];
    try {
      for await (const delta of result.textStream) {
        deltas.push(delta);
        controller.abort();
      }
    } catch {
      // Whether the iteration ends quietly or throws on abort is the SDK's business; the server side is tested here.
    }
    const [request] = server.requestsMatching('case-e');
    await until(() => request?.aborted === true);
    expect(deltas.length).toBeLessThan(100);
  });

  it('rejects the call when the scripted reply is an HTTP error', async () => {
    server.script({ match: 'case-f', status: 500 });
    const error = await generateText({ model, prompt: 'case-f', maxRetries: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(500);
    expect((error as APICallError).message).toContain('Scripted error');
  });

  it('routes replies by match, whatever order the requests arrive in', async () => {
    server.script({ match: 'route-one', text: 'one' }, { match: 'route-two', text: 'two' });
    const [two, one, other] = await Promise.all([
      generateText({ model, prompt: 'route-two', maxRetries: 0 }),
      generateText({ model, prompt: 'route-one', maxRetries: 0 }),
      generateText({ model, prompt: 'route-none', maxRetries: 0 }),
    ]);
    expect(two.text).toBe('two');
    expect(one.text).toBe('one');
    expect(other.text).toBe('(no scripted reply)');
    expect(server.requestsMatching('route-')).toHaveLength(3);
    expect(server.requestsMatching('route-one')).toHaveLength(1);
    expect(server.requests.length).toBeGreaterThanOrEqual(server.requestsMatching('route-').length);
  });

  it('answers unknown paths with a 404 JSON error', async () => {
    const response = await fetch(`${server.url}/models`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.message).toContain('/v1/models');
  });
});
