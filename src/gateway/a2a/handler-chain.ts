/**
 * Each agent's A2A request handler is the Temporal one inside a chain of small wrappers, each an
 * `A2ARequestHandler` over the next one (the chain is listed in gateway/app.ts, outermost first). A
 * wrapper says what it does around one call, unary or streaming; `aroundEachCall` applies that to
 * every method of the handler interface, named here once. People's answers on the gateway's own
 * pages and channels do not come in through it: task-replies.ts observes and guards them the same way.
 */
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';

/** The methods that answer with a stream of events. */
type StreamingMethod = 'sendMessageStream' | 'resubscribe';
/** The methods that answer once. */
export type UnaryMethod = Exclude<keyof A2ARequestHandler, StreamingMethod>;

/** What a wrapper does around each call; `call` calls the next handler with the same arguments. */
interface CallWrapper {
  unary<T>(
    method: UnaryMethod,
    params: unknown,
    context: ServerCallContext | undefined,
    call: () => Promise<T>,
  ): Promise<T>;
  stream<T>(
    method: StreamingMethod,
    params: unknown,
    context: ServerCallContext | undefined,
    call: () => AsyncGenerator<T, void, undefined>,
  ): AsyncGenerator<T, void, undefined>;
}

/** One link of the chain: the handler around `next`. */
export type HandlerLayer = (next: A2ARequestHandler) => A2ARequestHandler;

/** `handler` inside `layers`, the first one outermost: it sees each call first and its answer last. */
export function chainHandler(handler: A2ARequestHandler, layers: readonly HandlerLayer[]): A2ARequestHandler {
  return layers.reduceRight((next, layer) => layer(next), handler);
}

/** The handler that makes every call of `next` through `wrapper`. */
export function aroundEachCall(next: A2ARequestHandler, wrapper: CallWrapper): A2ARequestHandler {
  return {
    getAgentCard: () => wrapper.unary('getAgentCard', undefined, undefined, () => next.getAgentCard()),
    getAuthenticatedExtendedAgentCard: (p, c) =>
      wrapper.unary('getAuthenticatedExtendedAgentCard', p, c, () => next.getAuthenticatedExtendedAgentCard(p, c)),
    sendMessage: (p, c) => wrapper.unary('sendMessage', p, c, () => next.sendMessage(p, c)),
    sendMessageStream: (p, c) => wrapper.stream('sendMessageStream', p, c, () => next.sendMessageStream(p, c)),
    getTask: (p, c) => wrapper.unary('getTask', p, c, () => next.getTask(p, c)),
    cancelTask: (p, c) => wrapper.unary('cancelTask', p, c, () => next.cancelTask(p, c)),
    createTaskPushNotificationConfig: (p, c) =>
      wrapper.unary('createTaskPushNotificationConfig', p, c, () => next.createTaskPushNotificationConfig(p, c)),
    getTaskPushNotificationConfig: (p, c) =>
      wrapper.unary('getTaskPushNotificationConfig', p, c, () => next.getTaskPushNotificationConfig(p, c)),
    listTaskPushNotificationConfigs: (p, c) =>
      wrapper.unary('listTaskPushNotificationConfigs', p, c, () => next.listTaskPushNotificationConfigs(p, c)),
    deleteTaskPushNotificationConfig: (p, c) =>
      wrapper.unary('deleteTaskPushNotificationConfig', p, c, () => next.deleteTaskPushNotificationConfig(p, c)),
    resubscribe: (p, c) => wrapper.stream('resubscribe', p, c, () => next.resubscribe(p, c)),
    listTasks: (p, c) => wrapper.unary('listTasks', p, c, () => next.listTasks(p, c)),
  };
}

// eslint-disable-next-line require-yield -- a stream that fails before its first event
export async function* refusedStream(error: Error): AsyncGenerator<never> {
  throw error;
}
