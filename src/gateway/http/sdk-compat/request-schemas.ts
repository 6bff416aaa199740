/**
 * The params of A2A methods, checked before the SDK's generated `fromJSON` helpers and its v0.3
 * converter see them: those coerce wrong types to strings, ignore them, or throw TypeErrors that
 * would reach clients as internal errors. JSON-RPC (params) and HTTP+JSON (the body) share this one
 * schema, so both refuse the same mistakes and name the same field. Unknown fields pass (clients may
 * send them and they must be ignored), snake_case keys are accepted as proto3 JSON parsers must, and
 * null stands for an absent optional field, as in proto3 JSON.
 *
 * Written against @a2a-js/sdk 1.3.0 (the `fromJSON` of its generated types, its compat/v0_3
 * converter). Goes away when the SDK checks a request against the method's schema before reading
 * it and answers RequestMalformedError naming the field; the message content rules are
 * message-checks' (shared with the workflow) and stay.
 */
import { z } from 'zod';
import { fieldPath, idProblem, messageProblem } from '../../../protocol/message-checks.js';

/** A refinement from one of message-checks' problem functions, so each rule has one home. */
function checkedBy<T>(problem: (value: T) => string | undefined) {
  return (value: T, ctx: z.core.$RefinementCtx<T>) => {
    const found = problem(value);
    if (found) ctx.addIssue({ code: 'custom', message: found });
  };
}

const count = z.number().int().nonnegative();
const taskId = z
  .string()
  .min(1)
  .superRefine(checkedBy((id: string) => idProblem(id, 'The ID')));

/** Proto3 JSON accepts an enum by name or by number; unspecified is no role at all. */
const role = z.union([z.enum(['ROLE_USER', 'ROLE_AGENT']), z.literal(1), z.literal(2)], {
  error: 'must be ROLE_USER or ROLE_AGENT',
});

/** What the SDK reads of a message; its content rules are message-checks', shared with the workflow. */
const message = z
  .looseObject({
    messageId: z.string().min(1),
    role,
    parts: z.array(z.unknown()).min(1),
    taskId: taskId.nullish(),
    extensions: z.array(z.string()).nullish(),
  })
  .superRefine(
    checkedBy(({ messageId, contextId, parts, metadata, referenceTaskIds }: Record<string, unknown>) =>
      messageProblem(withoutNulls({ messageId, contextId, parts, metadata, referenceTaskIds })),
    ),
  );

const sendMessage = z.looseObject({
  message,
  configuration: z
    .looseObject({
      historyLength: count.nullish(),
      returnImmediately: z.boolean().nullish(),
      acceptedOutputModes: z.array(z.string()).nullish(),
    })
    .nullish(),
});

/**
 * v0.3 sends (the SDK's compatibility layer): what its converter would crash on (a file part without
 * a file, bytes that are no string, lists that are no arrays). The converted message gets the checks
 * every message gets.
 */
const legacyFile = z.looseObject({ bytes: z.string().optional(), uri: z.string().optional() });
const legacySendMessage = z.looseObject({
  message: z.looseObject({
    parts: z.array(
      z
        .looseObject({ kind: z.enum(['text', 'file', 'data']), file: legacyFile.optional() })
        .refine((part) => part.kind !== 'file' || part.file !== undefined, { message: 'is required', path: ['file'] }),
    ),
    extensions: z.array(z.string()).nullish(),
    referenceTaskIds: z.array(z.string()).nullish(),
  }),
  configuration: z
    .looseObject({
      acceptedOutputModes: z.array(z.string()).nullish(),
      pushNotificationConfig: z.looseObject({}).nullish(),
    })
    .nullish(),
});

/**
 * The other v0.3 methods: the SDK's converter reads their params unchecked and throws TypeErrors
 * (`tasks/pushNotificationConfig/set` without its config) that reach clients as internal errors.
 */
const legacyTaskId = z.looseObject({ id: taskId });
const legacyPushConfigSet = z.looseObject({
  taskId,
  pushNotificationConfig: z.looseObject({
    url: z.string().min(1),
    id: z.string().nullish(),
    token: z.string().nullish(),
    authentication: z
      .looseObject({ schemes: z.array(z.string()).nullish(), credentials: z.string().nullish() })
      .nullish(),
  }),
});

/**
 * v0.3 methods with params worth checking, checked as sent: v0.3 JSON has no snake_case spelling,
 * and the SDK's converter reads the camelCase keys only.
 */
const LEGACY_PARAMS = new Map<string, z.ZodType>([
  ['message/send', legacySendMessage],
  ['message/stream', legacySendMessage],
  ['tasks/get', z.looseObject({ id: taskId, historyLength: count.optional() })],
  ['tasks/cancel', legacyTaskId],
  ['tasks/resubscribe', legacyTaskId],
  ['tasks/pushNotificationConfig/set', legacyPushConfigSet],
  ['tasks/pushNotificationConfig/get', z.looseObject({ id: taskId, pushNotificationConfigId: z.string().nullish() })],
  ['tasks/pushNotificationConfig/list', legacyTaskId],
  ['tasks/pushNotificationConfig/delete', z.looseObject({ id: taskId, pushNotificationConfigId: z.string().min(1) })],
]);

/** v1.0 methods with params worth checking. Maps: method names come from clients ("__proto__"). */
const PARAMS = new Map<string, z.ZodType>([
  ['SendMessage', sendMessage],
  ['SendStreamingMessage', sendMessage],
  ['GetTask', z.looseObject({ id: taskId, historyLength: count.nullish() })],
  ['CancelTask', z.looseObject({ id: taskId })],
  ['SubscribeToTask', z.looseObject({ id: taskId })],
  [
    'CreateTaskPushNotificationConfig',
    z.looseObject({
      taskId,
      id: z.string().nullish(),
      url: z.string().min(1),
      token: z.string().nullish(),
      authentication: z.looseObject({ scheme: z.string().min(1), credentials: z.string().nullish() }).nullish(),
    }),
  ],
  ['GetTaskPushNotificationConfig', z.looseObject({ taskId, id: z.string().min(1) })],
  ['DeleteTaskPushNotificationConfig', z.looseObject({ taskId, id: z.string().min(1) })],
  [
    'ListTaskPushNotificationConfigs',
    z.looseObject({ taskId, pageSize: count.nullish(), pageToken: z.string().nullish() }),
  ],
  [
    'ListTasks',
    z.looseObject({
      contextId: z.string().nullish(),
      status: z.union([z.string(), z.number().int()]).nullish(),
      pageSize: z.number().int().min(1).max(100).nullish(),
      pageToken: z.string().nullish(),
      historyLength: count.nullish(),
      statusTimestampAfter: z.string().nullish(),
      includeArtifacts: z.boolean().nullish(),
    }),
  ],
]);

/**
 * What is wrong with the params of `method`, naming the field from `prefix` ("params" for JSON-RPC,
 * nothing for an HTTP+JSON body); undefined when they pass or the method is not checked here.
 */
export function paramsProblem(method: string, params: unknown, prefix?: string): string | undefined {
  const checked = PARAMS.get(method)?.safeParse(normalized(params)) ?? LEGACY_PARAMS.get(method)?.safeParse(params);
  if (!checked || checked.success) return undefined;
  const issue = checked.error.issues[0]!;
  const path = [...(prefix ? [prefix] : []), ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))];
  return `Invalid ${path.length > 0 ? fieldPath(path) : 'request'}: ${issue.message}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null && inner !== undefined));
}

/** camelCase keys, the camelCase spelling winning when a client sends both (as the SDK reads them). */
function camelKeys(value: unknown): unknown {
  if (!isObject(value)) return value;
  const entries = Object.entries(value)
    .map(([key, inner]): [string, string, unknown] => [camelCase(key), key, inner])
    .filter(([camel, key]) => camel === key || !Object.hasOwn(value, camel));
  // fromEntries defines own properties: a "__proto__" key stays data.
  return Object.fromEntries(entries.map(([camel, , inner]) => [camel, inner]));
}

function camelCase(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Params with camelCase keys wherever the checks above look. */
function normalized(params: unknown): unknown {
  const top = camelKeys(params);
  if (!isObject(top)) return top;
  const { message, configuration } = top;
  const parts = isObject(message) && Array.isArray(message.parts) ? message.parts.map(camelKeys) : undefined;
  return {
    ...top,
    ...(configuration !== undefined && { configuration: camelKeys(configuration) }),
    ...(message !== undefined && {
      message: parts ? { ...(camelKeys(message) as object), parts } : camelKeys(message),
    }),
  };
}
