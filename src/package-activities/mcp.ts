/**
 * The activities of LLM agents' MCP tools, with the official MCP SDK's client: listing a server's
 * tools (once per task, at its start) and calling one. Both heartbeat and hand the activity's
 * cancellation signal to the request, so a canceled task stops a running call (the SDK then tells
 * the server `notifications/cancelled`). Secrets are read here, from the worker's environment,
 * never from the activity's input. Node only.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { McpError, ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withHeartbeats } from '../activity-helpers/heartbeat.js';
import { cap, type ToolRunResult } from '../protocol/llm.js';
import {
  MCP_CALL_TOOL_ACTIVITY,
  MCP_LIST_TOOLS_ACTIVITY,
  MCP_SERVER_REFUSED,
  type McpCallToolInput,
  type McpListToolsInput,
  type McpListToolsResult,
  type McpToolInfo,
} from '../protocol/mcp.js';
import { McpConnections } from '../llm/mcp-connections.js';

/** Characters of one tool's description the task keeps. */
const MAX_DESCRIPTION_CHARS = 4_000;
/** A server's tool list, as JSON, beyond which the agent must pick the tools it needs. */
const MAX_TOOL_LIST_CHARS = 256_000;

export interface McpActivities {
  activities: Record<string, (input: never) => Promise<unknown>>;
  /** Closes the open connections and stops the stdio servers (when the worker stops). */
  close(): Promise<void>;
}

export function createMcpActivities(connections = new McpConnections()): McpActivities {
  return {
    activities: {
      [MCP_LIST_TOOLS_ACTIVITY]: (input: McpListToolsInput) => listTools(connections, input),
      [MCP_CALL_TOOL_ACTIVITY]: (input: McpCallToolInput) => callTool(connections, input),
    },
    close: () => connections.closeAll(),
  };
}

async function listTools(connections: McpConnections, input: McpListToolsInput): Promise<McpListToolsResult> {
  const listed = await withHeartbeats((signal) =>
    connections.use(input.server, input.connection, signal, async (client) => {
      const all: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, requestOptions(signal));
        for (const tool of page.tools) {
          all.push({
            name: tool.name,
            description: cap(tool.description ?? tool.title ?? tool.name, MAX_DESCRIPTION_CHARS),
            inputSchema: tool.inputSchema as Record<string, unknown>,
          });
        }
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    }),
  ).catch((error: unknown) => {
    throw canceled() ?? failure(input.server, error);
  });
  const tools = input.include ? listed.filter((tool) => input.include!.includes(tool.name)) : listed;
  const missing = (input.include ?? []).filter((name) => !listed.some((tool) => tool.name === name));
  if (missing.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `MCP server ${input.server} has no tool ${missing.join(', ')} (it lists: ${listed.map((tool) => tool.name).join(', ') || 'none'})`,
      MCP_SERVER_REFUSED,
    );
  }
  const size = JSON.stringify(tools).length;
  if (size > MAX_TOOL_LIST_CHARS) {
    throw ApplicationFailure.nonRetryable(
      `MCP server ${input.server} lists ${tools.length} tools (${size} characters of descriptions and schemas, over ${MAX_TOOL_LIST_CHARS}): ` +
        'name the ones this agent needs in its `tools`',
      MCP_SERVER_REFUSED,
    );
  }
  return { tools };
}

/** Calls the tool; the server's own error results, and the last failure, come back as error results for the model. */
async function callTool(connections: McpConnections, input: McpCallToolInput): Promise<ToolRunResult> {
  const context = Context.current();
  try {
    const result = await withHeartbeats((signal) =>
      connections.use(input.server, input.connection, signal, (client) =>
        client.callTool({ name: input.tool, arguments: input.arguments }, undefined, requestOptions(signal)),
      ),
    );
    const output = cap(resultText(result as CallToolResult), input.maxOutputChars);
    return { output, ...(result.isError === true && { isError: true }) };
  } catch (caught) {
    const error = canceled() ?? failure(input.server, caught);
    const lastAttempt = input.maxAttempts > 0 && context.info.attempt >= input.maxAttempts;
    const nonRetryable = error instanceof ApplicationFailure && error.nonRetryable;
    if (context.cancellationSignal.aborted || !(lastAttempt || nonRetryable)) throw error;
    return { output: cap(`The tool failed: ${(error as Error).message}`, input.maxOutputChars), isError: true };
  }
}

/**
 * The activity's cancellation, once it is canceled: the SDK rejects an aborted request with an
 * McpError, which Temporal would record as a failed attempt instead of a canceled activity.
 */
function canceled(): unknown {
  const { cancellationSignal } = Context.current();
  return cancellationSignal.aborted ? cancellationSignal.reason : undefined;
}

/** The activity's own limits rule (startToClose, cancellation), not the SDK's 60 s default per request. */
function requestOptions(signal: AbortSignal) {
  const timeout = Context.current().info.startToCloseTimeoutMs || undefined;
  return { signal, ...(timeout && { timeout, maxTotalTimeout: timeout }) };
}

/** What the model reads of a tool's result: its text, with placeholders for what is not text. */
function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((item) => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'resource':
        return 'text' in item.resource
          ? item.resource.text
          : `[resource ${item.resource.uri}${item.resource.mimeType ? ` (${item.resource.mimeType})` : ''}: binary, not shown]`;
      case 'resource_link':
        return `[resource link ${item.uri}${item.name ? ` (${item.name})` : ''}]`;
      default:
        return `[${item.type} (${item.mimeType}): ${item.data.length} characters of base64, not shown]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

/**
 * Whether retrying can help: a server that refuses the request (bad credentials, a bad URL, a
 * JSON-RPC error such as unknown tool or invalid arguments) will refuse it again.
 */
function failure(server: string, error: unknown): unknown {
  if (error instanceof ApplicationFailure) return error;
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    const { code } = error;
    if (code === 401 || code === 403) {
      return ApplicationFailure.nonRetryable(
        `MCP server ${server} refused the worker's credentials (HTTP ${code}): ${error.message}`,
        MCP_SERVER_REFUSED,
      );
    }
    if (code >= 400 && code < 500 && code !== 408 && code !== 429) {
      return ApplicationFailure.nonRetryable(
        `MCP server ${server} answered HTTP ${code}: ${error.message}`,
        MCP_SERVER_REFUSED,
      );
    }
  }
  if (
    error instanceof McpError &&
    error.code !== ErrorCode.ConnectionClosed &&
    error.code !== ErrorCode.RequestTimeout &&
    error.code !== ErrorCode.InternalError
  ) {
    return ApplicationFailure.nonRetryable(`MCP server ${server}: ${error.message}`, MCP_SERVER_REFUSED);
  }
  return error;
}
