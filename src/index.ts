/**
 * `a2a-temporal`: what an agent is written against. Everything here is safe inside Temporal's
 * deterministic workflow sandbox, where an agent's `run(ctx)` executes: no Node built-ins, no I/O.
 * Node-side pieces live in their own subpaths: `a2a-temporal/activity`, `/worker`, `/gateway`, `/testing`.
 *
 * @example
 * import { defineAgent } from 'a2a-temporal';
 *
 * export const greeter = defineAgent({
 *   name: 'greeter',
 *   description: 'Asks for your name, then greets you.',
 *   skills: [{ id: 'greet', name: 'Greet', description: 'Greets you by name', tags: ['example'] }],
 *   async run(ctx) {
 *     const reply = await ctx.ask('What is your name?'); // input-required, durably
 *     return `Hello, ${reply.text}!`; // completed
 *   },
 * });
 *
 * @module a2a-temporal
 */
export {
  AgentFailure,
  defineAgent,
  RemoteAgentFailed,
  type AgentContext,
  type AgentDefinition,
  type AgentExtensionDeclaration,
  type AgentResult,
  type AgentSkill,
  type ArtifactInput,
  type AskAuthOptions,
  type AskOptions,
  type CallAgentOptions,
  type DeadlineOutcome,
  type EscalationRule,
  type RemoteAgentResult,
  type RemotePushTarget,
  type RemoteMessage,
  type Reply,
  type UserMessage,
} from './workflows/agent-api.js';
export type { AgentVersioning } from './protocol/versioning.js';
export type { EscalationMode } from './protocol/question.js';
export type { QuorumOptions, QuorumRule, QuorumState, Vote, VoteDecision } from './protocol/quorum.js';
export type { AnswerChannel } from './protocol/answer-channel.js';
export { APPROVAL_CHANNELS, type ApprovalChannel } from './protocol/approvals.js';
export type { PushEventSelection } from './protocol/push.js';
export type { ModelCallSettings } from './protocol/llm.js';
export type { RemoteAgentConfig, RemoteCardKeys, RemoteCredentials, RemoteTransport } from './protocol/delegation.js';
export { defineLlmAgent, type LlmAgentDefinition } from './workflows/llm-agent.js';
export {
  defineRemoteAgentTool,
  defineTool,
  type AnyLlmTool,
  type ApprovalPolicy,
  type LlmTool,
  type ToolApprovalOptions,
  type RemoteAgentTarget,
  type RemoteAgentToolDefinition,
  type RemoteAgentToolInput,
} from './workflows/llm-tools.js';
export type { BudgetLimits } from './workflows/llm-budget.js';
export type { McpApproval, McpServer, McpServerOptions, McpToolArguments } from './workflows/llm-mcp.js';
export type { McpHttpConnection, McpStdioConnection, McpValue } from './protocol/mcp.js';
export {
  defineConfig,
  SCHEDULE_OVERLAPS,
  type A2ATemporalConfig,
  type ScheduledTask,
  type ScheduleOverlap,
} from './config/define-config.js';
export type { JsonObject, WirePart } from './protocol/wire.js';
export type { Duration } from '@temporalio/common';
export type { ActivityOptions } from '@temporalio/workflow';
