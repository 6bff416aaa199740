/**
 * The activities this package itself runs for the task workflow, beside (never over) the project's
 * own: LLM agents' model calls and tool runner, MCP tools, push deliveries, delegation to remote A2A
 * agents, approver notices, and decision receipts. The worker's agents plugin registers them
 * (src/worker/agents-plugin.ts). What an agent's code may call on its own side is the public
 * `a2a-temporal/activity` (src/activity-helpers).
 */
import { publicUrlFromEnv } from '../channels/notice-text.js';
import type { Settings } from '../config/settings.js';
import { modelSettingsFromEnv, type ModelSettings } from '../llm/model-settings.js';
import { pushUrlPolicyFromEnv } from '../push/url-policy.js';
import type { RemoteAgentConfig } from '../protocol/delegation.js';
import { createApproverActivities, type ApproverChannelOptions } from './approver-notices.js';
import { createLlmActivities } from './llm.js';
import { createMcpActivities } from './mcp.js';
import { createPushActivities } from './push.js';
import { createDelegationActivities } from './delegation-activities.js';
import { createReceiptActivities } from './receipts.js';

export interface PackageActivitiesOptions {
  /** The project's activities: the LLM tool runner calls them by name. */
  projectActivities?: object;
  model?: ModelSettings;
  approvals?: ApproverChannelOptions | undefined;
  /** The remote A2A agents that delegation calls may name. */
  remoteAgents?: Record<string, RemoteAgentConfig>;
  /** The worker's environment, read by its entrypoint: what the options above leave unsaid. */
  settings: Settings;
}

export interface PackageActivities {
  activities: Record<string, (input: never) => Promise<unknown>>;
  /** Ends what the activities hold open (MCP connections, stdio servers the worker started). */
  close(): Promise<void>;
}

/** Reads its settings now: a bad A2A_SMTP_* setting stops the worker at start, not at a question's first notice. */
export function createPackageActivities(options: PackageActivitiesOptions): PackageActivities {
  const { settings } = options;
  const approverActivities = createApproverActivities(options.approvals, settings);
  const mcp = createMcpActivities();
  return {
    activities: {
      // LLM agents' model calls and tool runner (src/workflows/llm-agent.ts).
      ...createLlmActivities(options.projectActivities, options.model ?? modelSettingsFromEnv(settings)),
      // Tools from MCP servers: listing and calling (src/workflows/llm-mcp.ts).
      ...mcp.activities,
      // Push notification deliveries of the task workflow (src/workflows/push-deliveries.ts).
      ...createPushActivities(pushUrlPolicyFromEnv(settings), settings.A2A_PUSH_SIGNING_KEY),
      // Delegation to remote A2A agents (ctx.callAgent, src/workflows/remote-agent-call.ts).
      ...createDelegationActivities(options.remoteAgents ?? {}, publicUrlFromEnv(settings)),
      // Approver notices of waiting questions (src/workflows/approver-notifications.ts).
      ...approverActivities,
      // Signed receipts of decided questions (src/workflows/decision-receipts.ts).
      ...createReceiptActivities(settings.A2A_RECEIPT_SIGNING_KEY),
    },
    close: () => mcp.close(),
  };
}
