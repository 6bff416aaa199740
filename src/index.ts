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
  type RemoteAgentResult,
  type RemoteMessage,
  type Reply,
  type UserMessage,
} from './workflows/agent-api.js';
export type { AgentVersioning } from './protocol/versioning.js';
export type { ApprovalChannel } from './protocol/approvals.js';
export type { RemoteAgentConfig, RemoteCardKeys, RemoteCredentials, RemoteTransport } from './protocol/delegation.js';
export {
  defineLlmAgent,
  defineRemoteAgentTool,
  defineTool,
  type AnyLlmTool,
  type ApprovalPolicy,
  type LlmAgentDefinition,
  type LlmTool,
  type ToolApprovalOptions,
  type RemoteAgentToolDefinition,
} from './workflows/llm-agent.js';
export type { McpApproval, McpServer, McpServerOptions, McpToolArguments } from './workflows/llm-mcp.js';
export type { McpHttpConnection, McpStdioConnection, McpValue } from './protocol/mcp.js';
export { defineConfig, type A2ATemporalConfig } from './config/define-config.js';
export type { JsonObject, WirePart } from './protocol/wire.js';
export type { Duration } from '@temporalio/common';
export type { ActivityOptions } from '@temporalio/workflow';
