/**
 * A local fake of an OpenAI-compatible model server, for tests (`a2a-temporal/testing`, and this
 * repository's own): it speaks the real Chat Completions HTTP API (`POST /v1/chat/completions`, JSON
 * or server-sent events, usage when asked) over loopback, answering with scripted turns: text or
 * tool calls. Real providers (the AI SDK's openai-compatible one) talk to it as to a hosted model.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A tool call a scripted turn makes. */
export interface ScriptedToolCall {
  /** The tool's name, as the agent lists it. */
  name: string;
  /** JSON text exactly as the model would send it (may be malformed on purpose), or an object to stringify */
  arguments: string | object;
  /** The call's ID (default: one made up per call). */
  id?: string;
}

/** One scripted model turn: text, tool calls, or both (or an HTTP error). */
export interface ScriptedReply {
  /** Only requests whose JSON body contains this substring take this reply (lets concurrent tasks use one server). */
  match?: string;
  /** The model's text answer. */
  text?: string;
  /** The tools the model calls. */
  toolCalls?: ScriptedToolCall[];
  /** Streamed responses: characters per content chunk (default 4). */
  chunkSize?: number;
  /** Streamed responses: delay between content chunks in ms (default 0). */
  chunkDelayMs?: number;
  /** Answer with this HTTP error status and an OpenAI-style error body instead. */
  status?: number;
  /** Streamed responses: drop the connection after this many content chunks (a model call that breaks mid-answer). */
  dropAfterChunks?: number;
  /** Streamed responses: no usage, even when asked (stream_options.include_usage), as some servers do. */
  noUsage?: boolean;
}

/** A Chat Completions request's body: the fields the fake reads, and the rest as sent. */
export interface ChatCompletionsBody {
  /** The model asked for. */
  model?: unknown;
  /** The conversation so far. */
  messages: unknown[];
  /** The tools offered to the model. */
  tools?: ChatCompletionsTool[];
  /** Whether the answer is streamed (server-sent events). */
  stream?: unknown;
  /** Streaming options: `include_usage` asks for token usage at the stream's end. */
  stream_options?: {
    /** Truthy: the stream ends with the token usage. */
    include_usage?: unknown;
  };
  /** Every other field, as sent. */
  [field: string]: unknown;
}

/** A tool as a Chat Completions request offers it. */
export interface ChatCompletionsTool {
  /** Always `function`. */
  type: 'function';
  /** The function: its name, description and JSON Schema of its parameters. */
  function: {
    /** The tool's name. */
    name: string;
    /** What the tool does, for the model. */
    description?: string;
    /** The JSON Schema of its arguments. */
    parameters?: object;
  };
}

/** A model call the fake received. */
export interface RecordedRequest {
  /** The request's JSON body. */
  body: ChatCompletionsBody;
  /** As received, e.g. the W3C `traceparent` a traced worker sends. */
  headers: IncomingHttpHeaders;
  /** true when the client disconnected before the response ended */
  aborted: boolean;
  /** The token usage the response reported (a JSON answer always; a stream when asked with stream_options.include_usage). */
  usage?: {
    /** Tokens of the request. */
    prompt_tokens: number;
    /** Tokens of the answer. */
    completion_tokens: number;
    /** Both. */
    total_tokens: number;
  };
}

/** A running fake model server: its URL, its script and what it was asked. */
export interface FakeModelServer {
  /** Base URL including /v1, e.g. http://127.0.0.1:43121/v1 */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queue replies. A request takes the first queued reply whose `match` (if any) its body contains; with none queued it gets text "(no scripted reply)". */
  script(...replies: ScriptedReply[]): void;
  /** Requests whose body contains `match` (all when omitted). */
  requestsMatching(match?: string): RecordedRequest[];
  /** Stops the server. */
  close(): Promise<void>;
}

const NO_SCRIPTED_REPLY: ScriptedReply = { text: '(no scripted reply)' };

interface ToolCallWire {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Starts a fake model server on a free loopback port.
 *
 * @example
 * const model = await startFakeModelServer();
 * model.script({ text: 'Hello.' });
 * const env = await startTestEnvironment({ model: { baseURL: model.url, model: 'fake-model' } });
 */
export async function startFakeModelServer(): Promise<FakeModelServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  /** The raw body text of each recorded request, which `match` is tested against. */
  const rawBodies = new WeakMap<RecordedRequest, string>();
  let sequence = 0;

  const takeReply = (raw: string): ScriptedReply => {
    const at = queue.findIndex((reply) => reply.match === undefined || raw.includes(reply.match));
    return at === -1 ? NO_SCRIPTED_REPLY : queue.splice(at, 1)[0]!;
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const sendError = (res: ServerResponse, status: number, message: string, type: string): void =>
    sendJson(res, status, { error: { message, type, param: null, code: null } });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendError(res, 404, `Unknown request URL: ${req.method} ${path}`, 'invalid_request_error');
      return;
    }

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: ChatCompletionsBody;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, 400, 'Request body is not valid JSON.', 'invalid_request_error');
      return;
    }

    const recorded: RecordedRequest = { body, headers: req.headers, aborted: false };
    rawBodies.set(recorded, raw);
    requests.push(recorded);
    res.on('close', () => {
      if (!res.writableEnded) recorded.aborted = true;
    });

    const reply = takeReply(raw);
    if (reply.status !== undefined) {
      sendError(res, reply.status, `Scripted error (HTTP ${reply.status}).`, 'server_error');
      return;
    }

    const id = `chatcmpl-fake-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body?.model === 'string' ? body.model : 'fake-model';
    const toolCalls: ToolCallWire[] = (reply.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_${sequence}_${i}`,
      type: 'function',
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
    }));
    const text = reply.text ?? '';
    const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const completionTokens =
      Math.ceil(text.length / 4) + toolCalls.reduce((n, c) => n + Math.ceil(c.function.arguments.length / 4), 0);
    const promptTokens = Math.ceil(raw.length / 4);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };

    if (body?.stream !== true) {
      recorded.usage = usage;
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? (toolCalls.length > 0 ? null : ''),
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      return;
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();

    const chunkSize = Math.max(1, reply.chunkSize ?? 4);
    const delayMs = reply.chunkDelayMs ?? 0;
    const gone = () => recorded.aborted || res.destroyed;
    /** Writes one event, after the scripted delay when asked; false once the client has gone. */
    const send = async (payload: unknown, delay: boolean): Promise<boolean> => {
      if (delay && delayMs > 0) await sleep(delayMs);
      if (gone()) return false;
      res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      return true;
    };
    const chunk = (delta: object, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });

    if (!(await send(chunk({ role: 'assistant', content: '' }), false))) return;
    for (let at = 0; at < text.length; at += chunkSize) {
      if (reply.dropAfterChunks !== undefined && at / chunkSize >= reply.dropAfterChunks) {
        res.destroy();
        return;
      }
      if (!(await send(chunk({ content: text.slice(at, at + chunkSize) }), at > 0))) return;
    }
    for (const [index, call] of toolCalls.entries()) {
      const start = { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } };
      if (!(await send(chunk({ tool_calls: [start] }), true))) return;
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      for (const part of args.length > 1 ? [args.slice(0, half), args.slice(half)] : [args]) {
        if (!(await send(chunk({ tool_calls: [{ index, function: { arguments: part } }] }), true))) return;
      }
    }
    if (!(await send(chunk({}, finishReason), true))) return;
    if (body.stream_options?.include_usage === true && !reply.noUsage) {
      recorded.usage = usage;
      if (!(await send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }, false))) return;
    }
    if (!(await send('[DONE]', false))) return;
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, String(error), 'server_error');
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(...replies) {
      queue.push(...replies);
    },
    requestsMatching(match) {
      return match === undefined ? [...requests] : requests.filter((r) => rawBodies.get(r)!.includes(match));
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
