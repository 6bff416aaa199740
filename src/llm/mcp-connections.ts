/**
 * The worker's open MCP client connections, one per server (its connection settings and the
 * secrets they resolve to), shared by the activities that use the server at the same time: a stdio
 * server is started once, not per call, and an HTTP server's session is reused. A connection unused
 * for a minute is closed (a stdio server stopped); one that fails is dropped, and the next activity
 * (or the failed one's retry) opens a new one. Node only.
 */
import { createHash } from 'node:crypto';
import type { Stream } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  isStdioConnection,
  MCP_CREDENTIALS_MISSING,
  MCP_SERVER_UNREACHABLE,
  type McpConnection,
  type McpValue,
} from '../protocol/mcp.js';

const IDLE_CLOSE_MS = 60_000;
const CONNECT_TIMEOUT_MS = 30_000;
/** Characters of a stdio server's stderr that a failure to start it quotes. */
const STDERR_TAIL_CHARS = 2_000;

interface Open {
  client: Promise<Client>;
  users: number;
  idle?: NodeJS.Timeout;
}

export class McpConnections {
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly idleCloseMs = IDLE_CLOSE_MS,
  ) {}

  /**
   * Runs `work` with a connected client of the server. A reused HTTP session the server no longer
   * knows (404: it restarted) is replaced once at once: the server did not run the request.
   */
  async use<T>(
    server: string,
    connection: McpConnection,
    signal: AbortSignal,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const target = this.resolve(server, connection);
    for (let attempt = 1; ; attempt++) {
      const { open, reused } = this.acquire(target);
      try {
        return await work(await open.client);
      } catch (error) {
        // The server's own error answer (unknown tool, invalid arguments) leaves the connection usable.
        const answered = error instanceof McpError && error.code !== ErrorCode.ConnectionClosed;
        if (!answered && !signal.aborted) this.drop(target.key, open);
        const expired = error instanceof StreamableHTTPError && error.code === 404;
        if (!(reused && expired && attempt === 1) || signal.aborted) throw error;
      } finally {
        this.release(target.key, open);
      }
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((open) => closeQuietly(open)));
  }

  private acquire(target: Target): { open: Open; reused: boolean } {
    let open = this.open.get(target.key);
    const reused = open !== undefined;
    if (!open) {
      const client = new Client({ name: 'a2a-temporal', version: '1' });
      const { transport, output } = target.open();
      const created: Open = {
        users: 0,
        client: client.connect(transport, { timeout: CONNECT_TIMEOUT_MS }).then(
          () => client,
          (error: unknown) => {
            throw startFailure(target, error, output?.());
          },
        ),
      };
      // A stdio server that exits, or a session that ends, is dropped: the next use starts afresh.
      client.onclose = () => this.drop(target.key, created);
      created.client.catch(() => this.drop(target.key, created));
      this.open.set(target.key, created);
      open = created;
    }
    clearTimeout(open.idle);
    open.users += 1;
    return { open, reused };
  }

  private release(key: string, open: Open): void {
    open.users -= 1;
    if (open.users > 0 || this.open.get(key) !== open) return;
    open.idle = setTimeout(() => this.drop(key, open), this.idleCloseMs);
    open.idle.unref();
  }

  private drop(key: string, open: Open): void {
    if (this.open.get(key) !== open) return;
    this.open.delete(key);
    void closeQuietly(open);
  }

  /** The transport's settings with the secrets read from the environment, and the key of its connection. */
  private resolve(server: string, connection: McpConnection): Target {
    const value = (given: McpValue, setting: string): string => {
      if (typeof given === 'string') return given;
      const found = this.env[given.env];
      if (found === undefined || found === '') {
        throw ApplicationFailure.nonRetryable(
          `MCP server ${server} needs ${given.env} (its ${setting}) in the worker's environment, which has none`,
          MCP_CREDENTIALS_MISSING,
        );
      }
      return found;
    };
    const values = (given: Record<string, McpValue> | undefined, setting: string) =>
      Object.fromEntries(Object.entries(given ?? {}).map(([name, v]) => [name, value(v, `${setting} ${name}`)]));

    if (isStdioConnection(connection)) {
      const params = {
        command: connection.command,
        args: connection.args ?? [],
        env: values(connection.env, 'env'),
        ...(connection.cwd && { cwd: connection.cwd }),
      };
      return {
        key: keyOf('stdio', params),
        server: `MCP server ${server} (${[params.command, ...params.args].join(' ')})`,
        open: () => {
          const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
          return { transport, output: tailOf(transport.stderr!) };
        },
      };
    }
    const headers = values(connection.headers, 'header');
    if (connection.bearerTokenEnv) {
      headers.Authorization = `Bearer ${value({ env: connection.bearerTokenEnv }, 'bearerTokenEnv')}`;
    }
    const url = new URL(connection.url);
    return {
      key: keyOf('http', { url: url.href, headers }),
      server: `MCP server ${server} at ${url.href}`,
      open: () => ({ transport: new StreamableHTTPClientTransport(url, { requestInit: { headers } }) as Transport }),
    };
  }
}

interface Target {
  /** A digest (the settings include secrets: they are never kept as text). */
  key: string;
  /** The server as failures name it: its name in the agent, and its URL or command. */
  server: string;
  /** A new transport, and for a stdio server the end of what it wrote to stderr so far. */
  open: () => { transport: Transport; output?: () => string };
}

/**
 * Why a server could not be started or reached, naming it: the transports' own errors ("fetch
 * failed", "Connection closed") name neither the server nor the cause, and a stdio server's reason
 * is in its stderr. A server that answered with an HTTP status keeps its error (mcp.ts says which).
 */
function startFailure(target: Target, error: unknown, output: string | undefined): unknown {
  if (error instanceof StreamableHTTPError && error.code !== undefined) return error;
  const said = output?.trim() ? `. Its stderr ends: ${output.trim()}` : '';
  const how = output === undefined ? 'could not be reached' : 'did not start';
  return ApplicationFailure.retryable(`${target.server} ${how}: ${rootMessage(error)}${said}`, MCP_SERVER_UNREACHABLE);
}

/** The innermost cause's message: `connect ECONNREFUSED 127.0.0.1:3000`, not `fetch failed`. */
function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause !== undefined) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/**
 * Keeps the end of a stdio server's stderr and passes it on to the worker's, where the server's
 * messages went before it was piped.
 */
function tailOf(stderr: Stream): () => string {
  let tail = '';
  stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail;
}

function keyOf(kind: string, settings: object): string {
  return `${kind}:${createHash('sha256').update(JSON.stringify(settings)).digest('hex')}`;
}

async function closeQuietly(open: Open): Promise<void> {
  clearTimeout(open.idle);
  try {
    await (await open.client).close();
  } catch {
    // A connection that never opened, or is gone already.
  }
}
