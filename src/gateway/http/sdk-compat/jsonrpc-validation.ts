/**
 * Checks JSON-RPC requests before the SDK adapter sees them, so that clients get the precise
 * error the spec names: -32600 for a malformed envelope, and -32602 naming the bad field for
 * params of the v1.0 methods (request-schemas.ts, shared with HTTP+JSON) and of the v0.3 ones.
 *
 * Written against @a2a-js/sdk 1.3.0: its `JsonRpcTransportHandler` answers a malformed envelope
 * with RequestMalformedError, which it maps to -32602 rather than -32600, checks only that params
 * are an object, and leaves the rest to generated `fromJSON` helpers that coerce or ignore wrong
 * types; its v0.3 converter reads missing params unchecked (a TypeError, answered -32603). Goes
 * away when the SDK answers a bad envelope -32600 and checks params against the method's schema
 * (-32602 naming the field); the hint for a v1.0 method sent without A2A-Version is this gateway's
 * own and would stay.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { paramsProblem } from './request-schemas.js';

const requestId = z.union([z.string(), z.number(), z.null()]);

const envelope = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  id: requestId.optional(),
  params: z.unknown().optional(),
});

function errorBody(id: unknown, code: number, reason: string, text: string) {
  const errorInfo = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' };
  return { jsonrpc: '2.0', id, error: { code, message: text, data: [errorInfo] } };
}

/** A2A v1.0 method names, with their v0.3 counterparts where v0.3 had one. */
const V1_METHODS = new Map<string, string | undefined>([
  ['SendMessage', 'message/send'],
  ['SendStreamingMessage', 'message/stream'],
  ['GetTask', 'tasks/get'],
  ['CancelTask', 'tasks/cancel'],
  ['SubscribeToTask', 'tasks/resubscribe'],
  ['ListTasks', undefined],
  ['CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set'],
  ['GetTaskPushNotificationConfig', 'tasks/pushNotificationConfig/get'],
  ['ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list'],
  ['DeleteTaskPushNotificationConfig', 'tasks/pushNotificationConfig/delete'],
  ['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard'],
]);

/**
 * A request without an A2A-Version header is v0.3, where a v1.0 method name is unknown; the SDK
 * would answer a bare "Method not found". The v1.0 names are unambiguous: say what to add.
 */
function missingVersionHint(method: string): string | undefined {
  if (!V1_METHODS.has(method)) return undefined;
  const legacy = V1_METHODS.get(method);
  return (
    `Method not found: ${method} is an A2A v1.0 method; send the header "A2A-Version: 1.0" ` +
    `(a request without it is read as v0.3${legacy ? `, where this method is ${legacy}` : ''})`
  );
}

const V03_METHODS = new Set([...V1_METHODS.values()].filter((name) => name !== undefined));

/**
 * Whether `method` is one of the request's protocol, as the SDK routes it: a request without
 * A2A-Version, or with 0.3, is v0.3. The other protocol's names are unknown there (the SDK's -32601),
 * so their params are not checked.
 */
function isMethodOf(version: string | undefined, method: string): boolean {
  return (version || '0.3') === '0.3' ? !V1_METHODS.has(method) : !V03_METHODS.has(method);
}

/** The request's id when it is one a response may echo; null otherwise (it may be any JSON at all). */
function echoableId(body: unknown): unknown {
  const id: unknown =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? Reflect.get(body, 'id') : null;
  return requestId.safeParse(id).success ? id : null;
}

export const validateJsonRpc: RequestHandler = (req, res, next) => {
  // Other media types are the SDK's to refuse (-32005).
  if (!req.is('application/json')) return next();
  const body: unknown = req.body;
  const id = echoableId(body);
  const parsed = envelope.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`);
    res.json(errorBody(id, -32600, 'INVALID_REQUEST', `Invalid JSON-RPC request (${detail.join('; ')})`));
    return;
  }
  const { method, params } = parsed.data;
  const version = req.get('a2a-version');
  const hint = version ? undefined : missingVersionHint(method);
  if (hint) {
    res.json(errorBody(id, -32601, 'METHOD_NOT_FOUND', hint));
    return;
  }
  const problem = isMethodOf(version, method) ? paramsProblem(method, params ?? {}, 'params') : undefined;
  if (problem) {
    res.json(errorBody(id, -32602, 'INVALID_PARAMS', problem));
    return;
  }
  next();
};
