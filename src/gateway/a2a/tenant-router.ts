/**
 * One gRPC server for every agent: A2A v1.0 requests carry a `tenant`, and each agent's card gives
 * its gRPC interface the agent's name as tenant (SDK clients send it by themselves). Requests with
 * no tenant, as from clients that ignore it, reach the default agent.
 */
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { MAX_ID_CHARS } from '../../protocol/message-checks.js';

/**
 * The longest tenant worth looking up: an identifier's length, or the longest agent name if longer.
 * A longer one names no agent and is refused before its text reaches an error message.
 */
function maxTenantChars(agentNames: Iterable<string>): number {
  return Math.max(MAX_ID_CHARS, ...[...agentNames].map((name) => name.length));
}

export function routeByTenant(
  handlers: ReadonlyMap<string, A2ARequestHandler>,
  fallback: A2ARequestHandler,
): A2ARequestHandler {
  const maxChars = maxTenantChars(handlers.keys());
  const pick = (tenant: string | undefined): A2ARequestHandler => {
    if (!tenant) return fallback;
    if (tenant.length > maxChars) throw new RequestMalformedError(`tenant is longer than ${maxChars} characters`);
    const handler = handlers.get(tenant);
    if (!handler) throw new RequestMalformedError(`No agent named "${tenant}" is served here (tenant names the agent)`);
    return handler;
  };
  return {
    getAgentCard: () => fallback.getAgentCard(),
    getAuthenticatedExtendedAgentCard: async (p, c) => pick(p.tenant).getAuthenticatedExtendedAgentCard(p, c),
    sendMessage: async (p, c) => pick(p.tenant).sendMessage(p, c),
    async *sendMessageStream(p, c) {
      yield* pick(p.tenant).sendMessageStream(p, c);
    },
    getTask: async (p, c) => pick(p.tenant).getTask(p, c),
    cancelTask: async (p, c) => pick(p.tenant).cancelTask(p, c),
    createTaskPushNotificationConfig: async (p, c) => pick(p.tenant).createTaskPushNotificationConfig(p, c),
    getTaskPushNotificationConfig: async (p, c) => pick(p.tenant).getTaskPushNotificationConfig(p, c),
    listTaskPushNotificationConfigs: async (p, c) => pick(p.tenant).listTaskPushNotificationConfigs(p, c),
    deleteTaskPushNotificationConfig: async (p, c) => pick(p.tenant).deleteTaskPushNotificationConfig(p, c),
    async *resubscribe(p, c) {
      yield* pick(p.tenant).resubscribe(p, c);
    },
    listTasks: async (p, c) => pick(p.tenant).listTasks(p, c),
  };
}
