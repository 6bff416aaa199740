/**
 * Reading a task and answering its question, for the inbox, as the signed-in principal: a read is a
 * GetTask through the agent's request handler (the one the transports call, with its guard and
 * metrics); an answer goes to the application service A2A's SendMessage uses
 * (src/gateway/a2a/task-replies.ts), so it meets every check an A2A reply meets (who may see and
 * answer, no self-approval, the deadline, the reply's schema) and nothing else.
 */
import { GetTaskRequest, Task } from '@a2a-js/sdk';
import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Request, Response } from 'express';
import type { RefusedReplyStanding } from '../../protocol/errors.js';
import { standingOf, TemporalBusyError, TemporalRetryLaterError } from '../../tasks/errors.js';
import type { TaskReplies } from '../a2a/task-replies.js';
import { GatewayUser } from '../http/request-context.js';
import { lifetimeOf } from '../http/sdk-compat/index.js';
import { refuse } from './guard.js';
import type { InboxCaller } from './identity.js';

/** The most recent messages a task page shows. */
const PAGE_HISTORY = 20;
const MAX_RESPONDER_CHARS = 200;

/** What the reply form sends: a text answer or a structured one, for the question the page showed. */
export interface ReplyBody {
  text?: string;
  data?: unknown;
  /** The question's askedAt as the page showed it: an answer to a question no longer waiting is refused. */
  askedAt?: string;
  /** The question's id, when the page showed one of several. */
  question?: string;
  /** Development only (no authentication): who answers. */
  responder?: string;
}

export class InboxTasks {
  constructor(
    private readonly handlers: ReadonlyMap<string, A2ARequestHandler>,
    private readonly replies: TaskReplies,
    private readonly authenticated: boolean,
  ) {}

  async read(req: Request, caller: InboxCaller, agent: string, taskId: string): Promise<Record<string, unknown>> {
    const task = await this.handler(agent).getTask(
      GetTaskRequest.fromJSON({ id: taskId, historyLength: PAGE_HISTORY }),
      this.context(req, caller),
    );
    return Task.toJSON(task) as Record<string, unknown>;
  }

  /**
   * One Update: its validator checks what the page showed against the task (the question waiting,
   * who may answer it), and its refusal says what became of the question; accepted, it answers with
   * the task as it settled, which the page renders.
   */
  async reply(req: Request, caller: InboxCaller, agent: string, taskId: string, body: ReplyBody) {
    const parts = replyParts(body);
    const responder = !this.authenticated && body.responder?.trim().slice(0, MAX_RESPONDER_CHARS);
    const answers = typeof body.question === 'string' ? { question: body.question } : body.askedAt;
    const reply = { agent, taskId, parts, ...(responder && { responder }), ...(answers && { answers }) };
    // Blocking, as an A2A reply: the Update itself waits for the task to settle and answers with it
    // (an ended task whole; one waiting again takes one read), so the page shows the outcome from
    // this answer without reading the task again. It keeps the page's history length.
    const wanted = { returnImmediately: false, historyLength: PAGE_HISTORY };
    try {
      const sent = await this.replies.answer(reply, this.user(req, caller), wanted);
      return { task: 'id' in sent ? Task.toJSON(sent as Task) : undefined };
    } catch (error) {
      const standing = standingOf(error);
      // The question the page showed no longer waits: someone else answered it, or the task moved on.
      const lost = standing && lostRace(standing, body.askedAt);
      if (lost) return { lost };
      if (!standing || !(error instanceof UnsupportedOperationError)) throw error;
      return { lost: { state: standing.state } };
    }
  }

  private handler(agent: string): A2ARequestHandler {
    const handler = this.handlers.get(agent);
    if (!handler) throw new TaskNotFoundError(`No agent ${agent} is served here`);
    return handler;
  }

  /** The call context the transports build, with the inbox's principal (or none, in development). */
  private context(req: Request, caller: InboxCaller): ServerCallContext {
    return new ServerCallContext({ user: this.user(req, caller), requestedVersion: '1.0' });
  }

  private user(req: Request, caller: InboxCaller): GatewayUser {
    const { signal, outcome } = lifetimeOf(req);
    return new GatewayUser('inbox', signal, outcome, caller.principal, !this.authenticated);
  }
}

function replyParts(body: ReplyBody): Record<string, unknown>[] {
  if (body.data !== undefined) return [{ data: body.data }];
  if (typeof body.text === 'string' && body.text.trim()) return [{ text: body.text }];
  throw new RequestMalformedError('The answer is empty');
}

/**
 * Whether the question the page showed is no longer the one waiting, and if so what became of it:
 * the first change recorded after it was asked (who answered, or how the task ended, and when).
 */
function lostRace({ state, question, change }: RefusedReplyStanding, askedAt: string | undefined) {
  const waiting = state === 'TASK_STATE_INPUT_REQUIRED' && question?.kind === 'input';
  if (waiting && (askedAt === undefined || question.askedAt === askedAt)) return undefined;
  return {
    state: change?.state ?? state,
    ...(change?.by && { by: change.by }),
    ...(change?.at && { at: change.at }),
    ...(waiting && { newQuestion: true }),
  };
}

/** An A2A error as the page shows it, inline: what went wrong, in the handler's own words. */
export function answerError(res: Response, error: unknown): boolean {
  if (error instanceof TemporalRetryLaterError) {
    const why = error instanceof TemporalBusyError ? 'busy' : 'unreachable';
    refuse(res, 503, `Temporal is ${why}; try again in a moment`, 'unavailable');
    return true;
  }
  if (error instanceof TaskNotFoundError) {
    refuse(res, 404, 'No such task, or it is not yours to see', 'not-found');
    return true;
  }
  if (error instanceof A2AError) {
    refuse(res, 400, error.message, 'refused');
    return true;
  }
  return false;
}
