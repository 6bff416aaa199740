/**
 * Checks JSON-RPC requests before the SDK adapter sees them, so that clients get the precise
 * error the spec names: -32600 for a malformed envelope, and -32602 naming the bad field for
 * params of the v1.0 methods (the SDK's own parsing coerces or ignores them). Unknown fields pass:
 * clients may send them and they must be ignored. Both camelCase and snake_case keys are accepted.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';

const count = z.number().int().nonnegative();
const taskId = z.string().min(1);

const message = z.looseObject({
  messageId: z.string().min(1),
  role: z.string(),
  parts: z.array(z.looseObject({})).min(1),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
});

/** v1.0 methods with params worth checking; the keys are camelCased before the check. */
const PARAMS: Record<string, z.ZodType> = {
  SendMessage: z.looseObject({
    message,
    configuration: z
      .looseObject({ historyLength: count.optional(), returnImmediately: z.boolean().optional() })
      .optional(),
  }),
  SendStreamingMessage: z.looseObject({ message }),
  GetTask: z.looseObject({ id: taskId, historyLength: count.optional() }),
  CancelTask: z.looseObject({ id: taskId }),
  SubscribeToTask: z.looseObject({ id: taskId }),
  ListTasks: z.looseObject({
    pageSize: z.number().int().min(1).max(100).optional(),
    historyLength: count.optional(),
    includeArtifacts: z.boolean().optional(),
  }),
};

const envelope = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string().min(1),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  params: z.unknown().optional(),
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function camelKeys(value: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), inner]),
  );
}

/** Params with camelCase keys at the top and in `configuration`, where clients use snake_case. */
function normalized(params: unknown): unknown {
  const top = camelKeys(params);
  return isObject(top) && isObject(top.configuration) ? { ...top, configuration: camelKeys(top.configuration) } : top;
}

function fieldOf(issue: z.core.$ZodIssue): string {
  return ['params', ...issue.path.map(String)].join('.');
}

function errorBody(id: unknown, code: number, reason: string, text: string) {
  const errorInfo = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' };
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message: text, data: [errorInfo] } };
}

export const validateJsonRpc: RequestHandler = (req, res, next) => {
  // Other media types are the SDK's to refuse (-32005).
  if (!req.is('application/json')) return next();
  const body: unknown = req.body;
  const id = isObject(body) ? body.id : null;
  const parsed = envelope.safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`);
    res.json(errorBody(id, -32600, 'INVALID_REQUEST', `Invalid JSON-RPC request (${detail.join('; ')})`));
    return;
  }
  const schema = PARAMS[parsed.data.method];
  if (schema) {
    const checked = schema.safeParse(normalized(parsed.data.params ?? {}));
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      res.json(errorBody(id, -32602, 'INVALID_PARAMS', `Invalid ${fieldOf(issue)}: ${issue.message}`));
      return;
    }
  }
  next();
};
