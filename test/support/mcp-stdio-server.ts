/**
 * A real MCP server over stdio for tests, started by the worker as an agent's `mcp` server
 * (`node --import tsx test/support/mcp-stdio-server.ts`): the official SDK's McpServer with the tools
 * `add_note` and `delete_notes`. It appends each call, as a JSON line, to the file its environment's
 * NOTES_CALLS_FILE names (the agent passes the worker's A2A_TEST_NOTES_CALLS_FILE on), so that the
 * test process can count the calls of a server that runs in another process.
 */
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const callsFile = process.env.NOTES_CALLS_FILE;
if (!callsFile) throw new Error('NOTES_CALLS_FILE is not set');
const notes: string[] = [];
const record = (tool: string, args: object) => appendFileSync(callsFile, `${JSON.stringify({ tool, ...args })}\n`);

const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerTool('add_note', { description: 'Adds a note', inputSchema: { text: z.string() } }, async ({ text }) => {
  record('add_note', { text });
  notes.push(text);
  return { content: [{ type: 'text', text: `Noted. ${notes.length} notes.` }] };
});
server.registerTool(
  'delete_notes',
  { description: 'Deletes every note', inputSchema: { reason: z.string() } },
  async ({ reason }) => {
    record('delete_notes', { reason });
    const count = notes.splice(0).length;
    return { content: [{ type: 'text', text: `Deleted ${count} notes (${reason}).` }] };
  },
);
await server.connect(new StdioServerTransport());
