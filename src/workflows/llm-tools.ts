/**
 * An LLM agent's tools (defineTool): what a tool is, whether a call of it waits for a human, and the
 * tools that call a remote A2A agent. The loop that calls them is llm-agent.ts; MCP servers' tools, llm-mcp.ts.
 */
import type { ActivityOptions } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { z, type ZodType } from 'zod';
import type { ApprovalChannel } from '../protocol/approvals.js';
import type { QuorumOptions } from '../protocol/quorum.js';
import { type CallAgentOptions, type DeadlineOutcome, type EscalationRule } from './agent-api.js';

/** Whether a call waits for a human: 'never', 'always', or a function of the arguments returning false, true or the reason. */
export type ApprovalPolicy<I> = 'never' | 'always' | ((args: I) => boolean | string);

/** Who approves a tool's calls and how they hear of them: the same for project tools and MCP servers' tools. */
export interface ToolApprovalOptions {
  /** Who may approve (as `ctx.ask`'s responders: principals, and groups as `group:NAME`). */
  approvers?: string[];
  /** The task's requester may not approve their own call. */
  notByRequester?: boolean;
  /** How long an approval may wait. */
  approvalDeadline?: Duration;
  /** When the deadline passes. Default: the call is denied and the model is told so. */
  onApprovalDeadline?: DeadlineOutcome;
  /** How the approvers hear of a call waiting for them, as `ctx.ask`'s `notify` (default: the config's `approvals.notify`). */
  notify?: ApprovalChannel[];
  /** Reminders before `approvalDeadline`, as `ctx.ask`'s `remind`, e.g. `['1 hour before']`. */
  remind?: string[];
  /** Who else (or instead) may approve when nobody did in time, as `ctx.ask`'s `escalate`. */
  escalate?: EscalationRule[];
  /**
   * Several must approve each call, as `ctx.ask`'s `quorum`; a number `n` is `{ required: n }`. With
   * a quorum, an approval cannot edit the arguments (the others approved these).
   */
  quorum?: number | QuorumOptions;
}

/**
 * A tool the model may call: its description and argument schema (what the model sees), the activity
 * that runs it, and whether a call waits for a human's approval. Make one with {@link defineTool}.
 *
 * @typeParam I - the arguments, as `input` parses them.
 */
export interface LlmTool<I = unknown> extends ToolApprovalOptions {
  /** What the model reads: what the tool does and when to call it. */
  description: string;
  /** The arguments' schema: the model sees it as JSON Schema; calls that do not match go back to the model as errors. */
  input: ZodType<I>;
  /** Name of the activity that runs the tool (exported by the project's activities module); it gets the arguments. */
  activity: string;
  /** Set by defineRemoteAgentTool: a remote A2A agent runs the tool (`ctx.callAgent`) instead of an activity. */
  remoteAgent?: RemoteAgentTarget;
  /** Default 'never'. A reason the function returns is shown to the approver. */
  approval?: ApprovalPolicy<I>;
  /** Retries and timeouts of the tool's activity, merged field by field with the defaults (llm-activity-options.ts: 5 minutes, 3 attempts, heartbeat timeout 5 s). */
  activityOptions?: ActivityOptions;
}

/** A remote A2A agent as a tool: where it is, how to reach it, and who answers its questions. */
export interface RemoteAgentTarget extends CallAgentOptions {
  /** As ctx.callAgent's: a URL, or the name of a remote agent in the project config. */
  url: string;
}

/** What the model sends a remote agent's tool. */
export interface RemoteAgentToolInput {
  /** What the model asks the remote agent, in full. */
  message: string;
}

/** A remote A2A agent as an LLM agent's tool, for {@link defineRemoteAgentTool}. */
export interface RemoteAgentToolDefinition extends RemoteAgentTarget {
  /** What the model reads: what the agent does and when to call it. */
  description: string;
  /** As a tool's: whether the call itself waits for a human's approval first. Default 'never'. */
  approval?: ApprovalPolicy<RemoteAgentToolInput>;
  /** Who may approve the call, as a tool's `approvers`. */
  approvers?: string[];
}

/**
 * A tool with which the model delegates to a remote A2A agent: it sends `message` and gets the
 * remote task's answer and artifacts back. The remote agent's questions become this task's, as in
 * `ctx.callAgent`; a remote failure comes back to the model as the tool's error.
 *
 * @example
 * tools: {
 *   finance: defineRemoteAgentTool({
 *     url: 'finance', // a name in the config's remoteAgents, or a URL
 *     description: 'Asks finance to approve a purchase',
 *   }),
 * }
 */
export function defineRemoteAgentTool(definition: RemoteAgentToolDefinition): LlmTool<RemoteAgentToolInput> {
  const { description, approval, approvers, ...remoteAgent } = definition;
  return {
    description,
    input: z.object({ message: z.string().min(1).describe('What to ask the agent, in full') }),
    // No activity: the loop runs a remote agent's tool with ctx.callAgent (LlmLoop.delegate).
    activity: '',
    remoteAgent,
    ...(approval && { approval }),
    ...(approvers && { approvers }),
  };
}

/** A tool of whatever argument type, as an agent's `tools` holds them. */
export type AnyLlmTool = Omit<LlmTool, 'approval'> & {
  /** Whether a call waits for a human, as {@link LlmTool.approval}. */
  approval?: ApprovalPolicy<never>;
};

/**
 * Types a tool: `approval` sees the arguments as the schema parses them.
 *
 * @example
 * place_order: defineTool({
 *   description: 'Orders a quantity of one product by SKU',
 *   input: z.object({ sku: z.string(), quantity: z.number().int().positive(), unitPrice: z.number() }),
 *   activity: 'placeOrder', // one of the project's activities; it gets the parsed arguments
 *   approval: ({ quantity, unitPrice }) => (quantity * unitPrice > 100 ? 'the order is over 100 EUR' : false),
 *   approvers: ['group:purchasing'],
 *   approvalDeadline: '2 days',
 * }),
 */
export function defineTool<I>(tool: LlmTool<I>): LlmTool<I> {
  return tool;
}
