/** A per-principal limit on new tasks (each one is a workflow), one token a task (rate-limit.ts). */
import * as grpc from '@grpc/grpc-js';
import type { Request, RequestHandler } from 'express';
import { grpcRefusal, sendRefusal } from './refusals.js';
import { RateLimit } from '../auth/rate-limit.js';
import type { Settings } from '../../config/settings.js';

export function newTaskRateLimitFromEnv(env: Pick<Settings, 'A2A_NEW_TASKS_PER_MINUTE'>): RateLimit {
  return new RateLimit(env.A2A_NEW_TASKS_PER_MINUTE);
}

const NEW_TASK_METHODS = new Set(['SendMessage', 'SendStreamingMessage']);
const LEGACY_NEW_TASK_METHODS = new Set(['message/send', 'message/stream']);

/**
 * Whether a request would start a task: a message without a task ID, read the way the SDK reads it
 * (v1.0: `taskId` when the key is there, else `task_id`; v0.3: `taskId` only). Anything that is not
 * a non-empty string is no task ID, so odd values are counted as new tasks, never waved through.
 */
function startsTask(method: string | undefined, params: unknown): boolean {
  const legacy = method !== undefined && LEGACY_NEW_TASK_METHODS.has(method);
  if (method !== undefined && !legacy && !NEW_TASK_METHODS.has(method)) return false;
  const message = (params as { message?: Record<string, unknown> } | undefined)?.message;
  if (typeof message !== 'object' || message === null) return false;
  const taskId = legacy || 'taskId' in message ? message.taskId : message.task_id;
  return !(typeof taskId === 'string' && taskId !== '');
}

const retryMessage = (seconds: number) => `Too many new tasks; retry in ${seconds} s`;

/** Express middleware after body parsing: 429 with Retry-After when the caller starts tasks too fast. */
export function limitNewTasksHttp(
  limit: RateLimit | undefined,
  principalOf: (req: Request) => string | undefined,
  shape: 'jsonrpc' | 'rest',
): RequestHandler {
  return (req, res, next) => {
    const principal = principalOf(req);
    if (!limit || principal === undefined) return next();
    const body = req.body as { method?: string; params?: unknown; id?: unknown } | undefined;
    const starts =
      shape === 'jsonrpc'
        ? startsTask(body?.method ?? '', body?.params)
        : /\/message:(send|stream)\/?$/i.test(req.path) && startsTask(undefined, body);
    const wait = starts ? limit.take(principal) : 0;
    if (wait === 0) return next();
    const refusal = {
      httpStatus: 429,
      status: 'RESOURCE_EXHAUSTED',
      jsonRpcCode: -32603,
      message: retryMessage(wait),
      retryAfterSeconds: wait,
    };
    sendRefusal(res, shape, refusal, body?.id ?? null);
  };
}

/** gRPC's side: RESOURCE_EXHAUSTED when the caller starts tasks too fast. */
export function limitNewTasksGrpc(
  limit: RateLimit | undefined,
  principal: string | undefined,
  method: string,
  request: unknown,
): grpc.ServiceError | undefined {
  const name = method.charAt(0).toUpperCase() + method.slice(1);
  if (!limit || principal === undefined || !startsTask(name, request)) return undefined;
  const wait = limit.take(principal);
  if (wait === 0) return undefined;
  return grpcRefusal(grpc.status.RESOURCE_EXHAUSTED, retryMessage(wait));
}
