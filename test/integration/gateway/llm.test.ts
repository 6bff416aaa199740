/**
 * LLM agents over A2A: an answer reaches a streaming client while the model still writes it
 * (artifact chunks in order, batched, ending with lastChunk, joined = the answer); and the example
 * purchasing assistant's approval round trip through the gateway.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purchasingAssistant } from '../../../examples/agents/purchasing-assistant.js';
import { llmBatchedAgent } from '../../support/agents/llm-agents.js';
import { llmAgent } from '../../support/agents/test-agents.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { sseRpc, stateOf } from '../../support/sse.js';

let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(async () => {
  await model?.close();
});
// Started after the model server above, whose address its worker needs.
const harness = useGatewayHarness(() => ({
  model: { baseURL: model.url, model: 'fake-model' },
  gateway: { agents: [llmAgent, llmBatchedAgent, purchasingAssistant], grpcPort: false },
}));

describe('a streamed LLM answer', () => {
  it('arrives as ordered artifact chunks before the task completes; the chunks joined are the answer', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    const answer = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    // About 5 s of streaming: under the whole suite's load the first updates may take a second or two
    // to reach the client (at 40 ms a chunk, 2.4 s, one CI run saw only 2 chunks before the end).
    model.script({ match: token, text: answer, chunkSize: 8, chunkDelayMs: 80 });

    const chunks: { text: string; at: number; lastChunk: boolean }[] = [];
    let completedAt: number | undefined;
    let finalText: string | undefined;
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `Tell me about ${token}` }] };
    for await (const event of sseRpc(`${harness.gateway.url}/agents/test-llm`, 'SendStreamingMessage', { message })) {
      if (event.artifactUpdate) {
        chunks.push({
          text: event.artifactUpdate.artifact.parts.map((part: any) => part.text).join(''),
          at: Date.now(),
          lastChunk: event.artifactUpdate.lastChunk === true,
        });
      }
      if (stateOf(event) === 'TASK_STATE_COMPLETED') {
        completedAt = Date.now();
        finalText =
          event.statusUpdate?.status?.message?.parts?.[0]?.text ?? event.task?.status?.message?.parts?.[0]?.text;
      }
    }
    expect(completedAt).toBeDefined();
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(answer);
    expect(finalText).toBe(answer);
    // Several chunks reached the client before the answer was complete, and far fewer than one per token.
    expect(chunks.filter((chunk) => chunk.at < completedAt! - 200).length).toBeGreaterThanOrEqual(3);
    expect(chunks.length).toBeLessThan(answer.length / 8);
    expect(chunks.map((chunk) => chunk.lastChunk)).toEqual([...chunks.slice(1).map(() => false), true]);
  });
});

describe('the first streamed text', () => {
  it("reaches a streaming client at once, as its own chunk, however far apart the agent's batches are", async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    const answer = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
    // 1.5 s of streaming: the agent's next batch (5 s) would come only with the end of the answer.
    model.script({ match: token, text: answer, chunkSize: 8, chunkDelayMs: 100 });
    const chunks: { text: string; at: number }[] = [];
    let completedAt: number | undefined;
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `Tell me about ${token}` }] };
    const url = `${harness.gateway.url}/agents/test-llm-batched`;
    for await (const event of sseRpc(url, 'SendStreamingMessage', { message })) {
      if (event.artifactUpdate) {
        const text = event.artifactUpdate.artifact.parts.map((part: any) => part.text).join('');
        chunks.push({ text, at: Date.now() });
      }
      if (stateOf(event) === 'TASK_STATE_COMPLETED') completedAt = Date.now();
    }
    expect(chunks.map((chunk) => chunk.text)).toEqual([answer.slice(0, 8), answer.slice(8)]);
    expect(completedAt! - chunks[0]!.at).toBeGreaterThan(800);
  });
});

describe('the purchasing assistant example', () => {
  it('looks up, asks for approval of an order over 100 EUR with the call in the question, and orders after approve', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    model.script(
      { match: token, toolCalls: [{ name: 'lookup_product', arguments: { query: 'keyboard' } }] },
      {
        match: token,
        toolCalls: [{ name: 'place_order', arguments: { sku: 'KB-ERGO-01', quantity: 3, unitPrice: 89 } }],
      },
      { match: token, text: 'Ordered 3 ergonomic keyboards.' },
    );
    const url = `${harness.gateway.url}/agents/purchasing-assistant`;
    const waiting = await rpc(url, { parts: [{ text: `Order 3 keyboards ${token}` }] });
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const question = waiting.status.message.parts.find((part: any) => part.data).data;
    expect(question).toMatchObject({
      tool: 'place_order',
      arguments: { sku: 'KB-ERGO-01', quantity: 3, unitPrice: 89 },
      reason: 'the order totals 267 EUR, over the 100 EUR limit',
    });
    // The model saw the catalog entry before it ordered.
    expect(JSON.stringify(model.requestsMatching(token)[1]!.body.messages)).toContain('Ergonomic keyboard');

    const done = await rpc(url, { taskId: waiting.id, parts: [{ text: 'approve' }] });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.status.message.parts[0].text).toBe('Ordered 3 ergonomic keyboards.');
    expect(JSON.stringify(model.requestsMatching(token)[2]!.body.messages.at(-1))).toContain('orderId');
  });
});

async function rpc(url: string, message: Record<string, unknown>): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } },
    }),
  });
  const body = (await response.json()) as any;
  if (!body.result?.task) throw new Error(JSON.stringify(body));
  return body.result.task;
}
