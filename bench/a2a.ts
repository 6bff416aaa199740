/** The project side: A2A JSON-RPC over HTTP with fetch, as any client would call the gateway. */
import { randomUUID } from 'node:crypto';
import { postJson } from './http.js';

export const EXPENSE_REQUEST = 'Please approve an expense of 120 USD for a team lunch';

export async function rpc(agentUrl: string, method: string, params: unknown): Promise<any> {
  const { status, body } = await postJson(
    agentUrl,
    { jsonrpc: '2.0', id: randomUUID(), method, params },
    { 'A2A-Version': '1.0' },
  );
  if (!body.result) throw new Error(`${method} failed (HTTP ${status}): ${JSON.stringify(body.error)}`);
  return body.result;
}

export function message(text: string, taskId?: string) {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) } };
}

/** The task a SendMessage answered with, checked to be in `state`. */
function taskIn(result: any, state: string, what: string): any {
  const task = result?.task;
  if (task?.status?.state !== state) {
    throw new Error(`${what}: expected ${state}, got ${JSON.stringify(task?.status?.state ?? result).slice(0, 300)}`);
  }
  return task;
}

/** Blocking SendMessage of a new task; resolves with its ID once the task is in `state`. */
export async function sendBlocking(agentUrl: string, text: string, state: string): Promise<string> {
  return taskIn(await rpc(agentUrl, 'SendMessage', message(text)), state, 'SendMessage').id as string;
}

/** A new expense-approval task, waiting (input-required) for its approver. */
export function waitingExpenseTask(agentUrl: string): Promise<string> {
  return sendBlocking(agentUrl, EXPENSE_REQUEST, 'TASK_STATE_INPUT_REQUIRED');
}

/** Blocking reply to a waiting task; resolves once the gateway answers with the task completed. */
export async function replyBlocking(agentUrl: string, taskId: string, text: string): Promise<void> {
  taskIn(await rpc(agentUrl, 'SendMessage', message(text, taskId)), 'TASK_STATE_COMPLETED', 'reply');
}

/** Non-blocking reply: returns once the gateway has accepted it. */
export async function replyAndReturn(agentUrl: string, taskId: string, text: string): Promise<void> {
  await rpc(agentUrl, 'SendMessage', { ...message(text, taskId), configuration: { returnImmediately: true } });
}
