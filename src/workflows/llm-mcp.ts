/**
 * Tools from MCP servers for LLM agents (workflow side). When a task starts, one journal step lists
 * the tools of the agent's servers (an activity per server, in parallel); the lists are kept in the
 * task's journal, which continue-as-new carries, so the tools a model sees stay the same for the
 * whole task, whatever the server lists later, and replay never asks the server. Each call is an
 * activity (src/package-activities/mcp.ts) recorded by the journal: once it has succeeded it is never
 * made again, across worker restarts and continue-as-new. Approval rules are the project tools':
 * by the server's tool name or a predicate, both run in the workflow (deterministic code only).
 */
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { z, type ZodType } from 'zod';
import {
  MCP_LIST_TOOLS_ACTIVITY,
  type McpConnection,
  type McpHttpConnection,
  type McpListToolsInput,
  type McpListToolsResult,
  type McpStdioConnection,
} from '../protocol/mcp.js';
import type { LlmToolSpec } from '../protocol/llm.js';
import { AgentFailure } from './agent-api.js';
import type { AgentJournal } from './agent-journal.js';
import type { AnyLlmTool, ApprovalPolicy, ToolApprovalOptions } from './llm-tools.js';
import { llmActivityOptions } from './llm-activity-options.js';
import { uiText } from '../protocol/ui-text.js';

/** Arguments of an MCP tool call, as the model sent them (the server checks them against its schema; an approver's edits are checked here). */
export type McpToolArguments = Record<string, unknown>;

/**
 * Which calls of a server's tools wait for a human: 'never' (the default) or 'always' for all of
 * them; per tool by the server's own name (`{ create_issue: 'always', merge_pull_request: (args) => ... }`,
 * tools not named: never); or one predicate of the tool's name and arguments returning false, true or
 * the reason shown to the approver. Predicates run in the workflow: deterministic code, no I/O.
 */
export type McpApproval =
  | 'never'
  | 'always'
  | Record<string, ApprovalPolicy<McpToolArguments>>
  | ((tool: string, args: McpToolArguments) => boolean | string);

/** What an LLM agent takes of an MCP server: which tools, under which names, and which calls wait for approval. */
export interface McpServerOptions extends ToolApprovalOptions {
  /** Only these of the server's tools, by its names (a task fails at its start if the server lacks one). Default: all it lists. */
  tools?: string[];
  /** What the model sees before each tool's name. Default: the server's name and `_` (`github_create_issue`). */
  toolPrefix?: string;
  /** Which calls wait for a human's approval. Default 'never'. */
  approval?: McpApproval;
  /** Retries and timeouts of listing and calling, merged field by field with the tools' defaults (5 minutes, 3 attempts, heartbeat timeout 5 s). */
  activityOptions?: ActivityOptions;
}

/**
 * An MCP server of an LLM agent: over Streamable HTTP (`url`, with `bearerTokenEnv` or `headers`),
 * or a stdio server the worker starts (`command`, `args`, `env`). Values `{ env: 'NAME' }` are read
 * from the worker's environment; literal strings are recorded in the task's history (no secrets).
 */
export type McpServer = (McpHttpConnection | McpStdioConnection) & McpServerOptions;

/** An MCP tool as the loop runs it: a tool like the project's, which a server runs. */
export interface McpTool extends AnyLlmTool {
  mcp: { server: string; tool: string; connection: McpConnection };
  /** The server's schema of the arguments: what an approver's edited arguments must match. */
  editedInput: ZodType;
}

/** Tool names as model APIs accept them (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
function toolName(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

/** Mistakes in an agent's `mcp`, found where the config loads the agents (the worker refuses to start). */
export function checkMcpServers(agent: string, servers: Record<string, McpServer>): void {
  for (const [name, server] of Object.entries(servers)) {
    const http = typeof (server as McpHttpConnection).url === 'string';
    const stdio = typeof (server as McpStdioConnection).command === 'string';
    if (http === stdio) {
      throw new Error(
        `The MCP server ${name} of agent ${agent} needs either \`url\` (Streamable HTTP) or \`command\` (stdio)`,
      );
    }
    if (http && !URL.canParse((server as McpHttpConnection).url)) {
      throw new Error(
        `The MCP server ${name} of agent ${agent} has no valid \`url\`: ${(server as McpHttpConnection).url}`,
      );
    }
  }
}

/** The connection settings alone: what the activities get (and the history records). */
function connectionOf(server: McpServer): McpConnection {
  if (typeof (server as McpStdioConnection).command === 'string') {
    const { command, args, env, cwd } = server as McpStdioConnection;
    return { command, ...(args && { args }), ...(env && { env }), ...(cwd && { cwd }) };
  }
  const { url, bearerTokenEnv, headers } = server as McpHttpConnection;
  return { url, ...(bearerTokenEnv && { bearerTokenEnv }), ...(headers && { headers }) };
}

function approvalOf(approval: McpApproval | undefined, tool: string): ApprovalPolicy<McpToolArguments> {
  if (approval === undefined || approval === 'never' || approval === 'always') return approval ?? 'never';
  if (typeof approval === 'function') return (args) => approval(tool, args);
  return Object.hasOwn(approval, tool) ? approval[tool]! : 'never';
}

const argumentsSchema = z.record(z.string(), z.unknown());

/**
 * A tool's `inputSchema` (JSON Schema) as zod checks it. A schema zod cannot read (a remote `$ref`)
 * leaves the check to the server, which refuses invalid arguments itself, after the approval.
 */
function serverSchema(inputSchema: Record<string, unknown>): ZodType {
  try {
    return z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return argumentsSchema;
  }
}

/**
 * Characters of all the servers' tools (names, descriptions, schemas) a task takes: they go into
 * every model call's input and the task's journal, which continue-as-new carries (Temporal refuses
 * payloads over 2 MB). The activity holds each server to half of it.
 */
const MAX_TOOLS_CHARS = 512_000;

/**
 * Lists the servers' tools once per task (a journal step: a run after continue-as-new gets the
 * recorded lists back) and returns them as tools and specs, in the order of `servers`.
 */
export async function mcpTools(
  journal: AgentJournal,
  servers: Record<string, McpServer>,
): Promise<{ tools: Record<string, McpTool>; specs: LlmToolSpec[] }> {
  const entries = Object.entries(servers);
  const lists = await journal.step('mcp:tools', () =>
    Promise.all(
      entries.map(([name, server]) => {
        const list = proxyActivities<Record<string, (input: McpListToolsInput) => Promise<McpListToolsResult>>>(
          llmActivityOptions('tool', server.activityOptions),
        )[MCP_LIST_TOOLS_ACTIVITY]!;
        return list.executeWithOptions({ summary: `mcp ${uiText(name)}: list tools` }, [
          { server: name, connection: connectionOf(server), ...(server.tools && { include: server.tools }) },
        ]);
      }),
    ),
  );
  const tools: Record<string, McpTool> = {};
  const specs: LlmToolSpec[] = [];
  entries.forEach(([name, server], i) => {
    const connection = connectionOf(server);
    for (const listed of lists[i]!.tools) {
      const visible = toolName(server.toolPrefix ?? `${name}_`, listed.name);
      if (tools[visible]) {
        throw new AgentFailure(`Two MCP tools are named ${visible}: give the servers a \`toolPrefix\` of their own`);
      }
      tools[visible] = {
        description: listed.description,
        input: argumentsSchema,
        editedInput: serverSchema(listed.inputSchema),
        activity: '',
        mcp: { server: name, tool: listed.name, connection },
        approval: approvalOf(server.approval, listed.name) as ApprovalPolicy<never>,
        ...(server.approvers && { approvers: server.approvers }),
        ...(server.notByRequester && { notByRequester: true }),
        ...(server.approvalDeadline !== undefined && { approvalDeadline: server.approvalDeadline }),
        ...(server.onApprovalDeadline && { onApprovalDeadline: server.onApprovalDeadline }),
        ...(server.notify && { notify: server.notify }),
        ...(server.remind && { remind: server.remind }),
        ...(server.escalate && { escalate: server.escalate }),
        ...(server.quorum !== undefined && { quorum: server.quorum }),
        ...(server.activityOptions && { activityOptions: server.activityOptions }),
      };
      specs.push({ name: visible, description: listed.description, parameters: listed.inputSchema });
    }
  });
  const size = JSON.stringify(specs).length;
  if (size > MAX_TOOLS_CHARS) {
    throw new AgentFailure(
      `The MCP servers list ${specs.length} tools (${size} characters of descriptions and schemas, over ${MAX_TOOLS_CHARS}): name the ones this agent needs in each server's \`tools\``,
    );
  }
  return { tools, specs };
}
