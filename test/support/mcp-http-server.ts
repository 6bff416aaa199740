/**
 * A real MCP server for tests: the official SDK's McpServer over Streamable HTTP (sessions, as
 * hosted servers run it) on a loopback port, behind a bearer token. Its tools: `lookup_order`
 * (read-only), `create_issue`, and `slow_report`, which runs until the client cancels it; it records every tool call and every JSON-RPC method it receives,
 * and can change the tools it lists, as a server redeployed under a running task would.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

interface McpToolCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface FakeMcpHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:43121/mcp */
  readonly url: string;
  /** Tool calls in the order they ran. */
  readonly calls: McpToolCall[];
  /** JSON-RPC methods received, in order ('initialize', 'tools/list', 'tools/call', ...). */
  readonly methods: string[];
  /** The arguments of `slow_report` calls the client canceled (`notifications/cancelled`). */
  readonly canceled: Record<string, unknown>[];
  /** Runs when a tool is called, before it answers (a test can stop a worker there). */
  onCall?: (call: McpToolCall) => void;
  /** From now on: `lookup_order` replaced by `archive_order` (true), or the first tools again (false). */
  changeTools(changed: boolean): void;
  /** Forgets every session, as a restarted server does: their next requests get 404. */
  dropSessions(): Promise<void>;
  close(): Promise<void>;
}

export async function startMcpHttpServer(token: string): Promise<FakeMcpHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<ReturnType<typeof toolServer>>();
  let changed = false;
  let issues = 0;

  const state: FakeMcpHttpServer = {
    url: '',
    calls: [],
    methods: [],
    canceled: [],
    changeTools(value) {
      changed = value;
      for (const server of servers) server.apply();
    },
    dropSessions: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((transport) => transport.close()));
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };

  const called = (tool: string, args: Record<string, unknown>) => {
    const call = { tool, args };
    state.calls.push(call);
    state.onCall?.(call);
  };

  /** One McpServer per session (an McpServer serves one transport), with the tools of the moment. */
  function toolServer() {
    const mcp = new McpServer({ name: 'shop', version: '1.0.0' });
    mcp.registerTool(
      'create_issue',
      {
        description: 'Files an issue in the tracker',
        inputSchema: { title: z.string().describe('One line'), body: z.string().optional() },
      },
      async (args) => {
        called('create_issue', args);
        issues += 1;
        return { content: [{ type: 'text', text: `Created issue #${issues}: ${args.title}` }] };
      },
    );
    mcp.registerTool(
      'slow_report',
      { description: 'Builds a report (slowly)', inputSchema: { topic: z.string() } },
      async (args, extra) => {
        called('slow_report', args);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 60_000);
          extra.signal.addEventListener('abort', () => {
            state.canceled.push(args);
            clearTimeout(timer);
            resolve();
          });
        });
        return { content: [{ type: 'text', text: `Report on ${args.topic}` }] };
      },
    );
    let lookup: RegisteredTool | undefined;
    let archive: RegisteredTool | undefined;
    const apply = () => {
      if (!changed && !lookup) {
        archive?.remove();
        archive = undefined;
        lookup = mcp.registerTool(
          'lookup_order',
          { description: 'Looks an order up by its ID', inputSchema: { orderId: z.string() } },
          async (args) => {
            called('lookup_order', args);
            return { content: [{ type: 'text', text: `Order ${args.orderId}: 2 keyboards, shipped` }] };
          },
        );
      } else if (changed && !archive) {
        lookup?.remove();
        lookup = undefined;
        archive = mcp.registerTool(
          'archive_order',
          { description: 'Archives an order', inputSchema: { orderId: z.string() } },
          async (args) => {
            called('archive_order', args);
            return { content: [{ type: 'text', text: `Archived ${args.orderId}` }] };
          },
        );
      }
    };
    apply();
    return Object.assign(mcp, { apply });
  }

  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const body = req.method === 'POST' ? JSON.parse(await bodyOf(req)) : undefined;
    for (const message of [body ?? []].flat()) if (message.method) state.methods.push(message.method);
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || !isInitializeRequest(body)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown session"}');
        return;
      }
      const server = toolServer();
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
        servers.delete(server);
      };
      servers.add(server);
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return Object.assign(state, { url: `http://127.0.0.1:${port}/mcp` });
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}
