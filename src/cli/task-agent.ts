/**
 * Any task ID works without --agent: a command goes to the gateway's default agent, and when the
 * task is another agent's the gateway answers TaskNotFound naming that agent (to a caller who may
 * see the task; src/tasks/errors.ts), so the command runs again at that agent's endpoint.
 */
import { A2AError, isJsonRpcError } from '@a2a-js/sdk/errors';
import { TASK_AGENT_METADATA } from '../tasks/errors.js';

/** The agent a refusal names as the task's, anywhere in the cause chain. */
function agentNamedBy(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof A2AError) return namedIn(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The SDK's REST and gRPC clients put the ErrorInfo's metadata on the error; its JSON-RPC client
 * keeps the ErrorInfo list in `data`.
 */
function namedIn(error: A2AError): string | undefined {
  const infos = isJsonRpcError(error) && Array.isArray(error.data) ? (error.data as unknown[]) : [error];
  for (const info of infos) {
    const metadata = (info as { metadata?: unknown }).metadata;
    const agent =
      metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>)[TASK_AGENT_METADATA] : undefined;
    if (typeof agent === 'string' && agent) return agent;
  }
  return undefined;
}

/**
 * Runs `call` for the command's agent; without one, and when the gateway says the task is another
 * agent's, once more for that agent. An explicit --agent is taken at its word (the error names the
 * right one).
 */
export async function atTaskAgent<T>(
  agent: string | undefined,
  call: (agent: string | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await call(agent);
  } catch (error) {
    const named = agent === undefined ? agentNamedBy(error) : undefined;
    if (named === undefined) throw error;
    return call(named);
  }
}
