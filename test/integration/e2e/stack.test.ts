/**
 * `npm start` end to end: start the stack, drive an expense approval to input-required over A2A,
 * stop the stack, start it again on the same database file, reply, and the task completes.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runStack, stackPorts } from '../../support/run-stack.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const temp = useTempDirs();

interface RpcTask {
  id: string;
  contextId: string;
  status: { state: string };
  artifacts?: { name?: string; parts: { data?: unknown }[] }[];
}

async function sendMessage(url: string, message: Record<string, unknown>): Promise<RpcTask> {
  const response = await fetch(`${url}/agents/expense-approval`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomUUID(),
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } },
    }),
  });
  const body = (await response.json()) as { result?: { task?: RpcTask }; error?: unknown };
  if (!body.result?.task) throw new Error(`SendMessage failed: ${JSON.stringify(body)}`);
  return body.result.task;
}

describe('npm start', () => {
  it('keeps a waiting approval across a restart of the whole stack', { timeout: 240_000 }, async () => {
    const ports = await stackPorts(join(temp.make('a2a-stack-'), 'temporal.db'));

    const first = await runStack(ports);
    const waiting = await sendMessage(first.url, {
      parts: [{ text: 'Please approve an expense of 120 USD for a team lunch' }],
    });
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.output()).toContain(`/agents/expense-approval`);
    expect(first.output()).toMatch(/purchasing-assistant: No model endpoint is configured: set A2A_MODEL_BASE_URL/);
    expect(first.output()).toContain('No authentication (development mode)');
    expect(await first.stop()).toBe(0);

    const second = await runStack(ports);
    try {
      const done = await sendMessage(second.url, { taskId: waiting.id, parts: [{ text: 'approve' }] });
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.contextId).toBe(waiting.contextId);
      expect(done.artifacts?.[0]?.name).toBe('approval-record');
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
