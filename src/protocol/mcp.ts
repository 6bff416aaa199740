/**
 * Tools from MCP servers: what an LLM agent's loop (workflow) and the MCP activities (Node,
 * src/package-activities/mcp.ts) say to each other. How to reach a server travels in the activities'
 * input, so it is in the task's history: secrets never are. A value `{ env: 'NAME' }` is read from
 * the worker's environment by the activity when it connects; only the name is recorded. Pure.
 */

/** The MCP activities, registered by the agents plugin beside the project's own. */
export const MCP_LIST_TOOLS_ACTIVITY = 'a2aTemporal.mcp.listTools';
export const MCP_CALL_TOOL_ACTIVITY = 'a2aTemporal.mcp.callTool';

/** Failure types the activities end with. */
export const MCP_CREDENTIALS_MISSING = 'McpCredentialsMissing';
export const MCP_SERVER_REFUSED = 'McpServerRefused';
/** A failure retrying may help: the server could not be reached, or its process ended before it answered. */
export const MCP_SERVER_UNREACHABLE = 'McpServerUnreachable';

/** A literal value (recorded in history: nothing secret), or the name of a variable of the worker's environment. */
export type McpValue =
  | string
  | {
      /** The variable of the worker's environment whose value is used. */
      env: string;
    };

/** A server reached over Streamable HTTP. */
export interface McpHttpConnection {
  /** The server's Streamable HTTP endpoint. */
  url: string;
  /** Sent as `Authorization: Bearer <value of this variable>`. */
  bearerTokenEnv?: string;
  /** More headers: `{ 'X-Api-Key': { env: 'SEARCH_API_KEY' } }`, or literal values that are no secret. */
  headers?: Record<string, McpValue>;
}

/** A server the worker starts as a child process and talks to over its stdin and stdout. */
export interface McpStdioConnection {
  /** The program the worker starts, e.g. `npx`. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /**
   * The process's environment beyond the MCP SDK's safe defaults (PATH, HOME, ...; never the
   * worker's whole environment): `{ GITHUB_PERSONAL_ACCESS_TOKEN: { env: 'GITHUB_TOKEN' } }`.
   */
  env?: Record<string, McpValue>;
  /** The folder it starts in; default the worker's. */
  cwd?: string;
}

export type McpConnection = McpHttpConnection | McpStdioConnection;

export interface McpListToolsInput {
  /** The server's name in the agent's `mcp` (for messages). */
  server: string;
  connection: McpConnection;
  /** Only these tools, by the server's names; all when absent. */
  include?: string[];
}

/** One tool as the server lists it, as the task keeps it for its whole lifetime. */
export interface McpToolInfo {
  name: string;
  description: string;
  /** JSON Schema of the arguments (always an object schema). */
  inputSchema: Record<string, unknown>;
}

export interface McpListToolsResult {
  tools: McpToolInfo[];
}

export interface McpCallToolInput {
  server: string;
  connection: McpConnection;
  /** The server's own name of the tool. */
  tool: string;
  arguments: Record<string, unknown>;
  /** The output (as text) beyond this is cut with a note. */
  maxOutputChars: number;
  /** The call's retry attempts: the last failure comes back as an error result instead of failing the activity. */
  maxAttempts: number;
}

export function isStdioConnection(connection: McpConnection): connection is McpStdioConnection {
  return typeof (connection as McpStdioConnection).command === 'string';
}
