/**
 * The approvals inbox, served by the gateway at /inbox/: pages where the people who answer find the
 * questions waiting for them across agents and answer them. Its API is one more client of the
 * agents' request handlers (reads), of the service A2A's replies go to (answers, a2a/task-replies.ts)
 * and of the one visibility listing that says what waits for whom
 * (src/tasks/waiting-for.ts); it holds no state of its own but signed session cookies, and
 * in Temporal the sign-outs (sign-outs.ts).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Client } from '@temporalio/client';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { logger } from '../../logging.js';
import { BadPageCursorError, mayAnswer, type QuestionOrder, type WaitingQuestions } from '../../tasks/index.js';
import type { TaskReplies } from '../a2a/task-replies.js';
import type { GatewayMetrics } from '../monitoring/metrics.js';
import { questionsShown, type PendingQuestion, type Question } from '../../protocol/question.js';
import type { Authenticator } from '../auth/authenticator.js';
import { servePages } from './assets.js';
import { refuse, securityHeaders } from './guard.js';
import {
  callerOf,
  checkCsrf,
  identify,
  requirePrincipal,
  sessionRoutes,
  type IdentityOptions,
  type InboxCaller,
} from './identity.js';
import { LiveLists, openEventStream, type ListKey, type PageRequest } from './live-list.js';
import { SessionKeeper, sessionSecretFromEnv, SESSION_SECRET_ENV } from './session.js';
import { SessionStreams } from './session-streams.js';
import { SignInLimit } from './sign-in-limit.js';
import { SignOuts } from './sign-outs.js';
import { answerError, InboxTasks, type ReplyBody } from './tasks.js';

export const INBOX_PATH = '/inbox';

/** The approvals inbox's sessions and live lists (docs/inbox.md). */
export interface InboxSettings {
  /** HMAC key of the session cookies, 32+ bytes; default: A2A_INBOX_SESSION_SECRET, else random per process. */
  sessionSecret?: string;
  /** How long a session lasts (default 8 h). */
  sessionTtlMs?: number;
  /** How often an open page's list is re-listed (default 1 s). */
  pollMs?: number;
}

export interface InboxOptions extends InboxSettings {
  client: Client;
  /** The gateway's index of waiting questions (its TaskChanges'), which the live lists page through. */
  questions: WaitingQuestions;
  /** The agents' request handlers, guarded and measured as the transports use them: the task pages' reads. */
  handlers: ReadonlyMap<string, A2ARequestHandler>;
  /** Where answers go: the service A2A's SendMessage uses, guarded and measured as its calls are. */
  replies: TaskReplies;
  authenticator: Authenticator;
  /** The gateway's public base URL. */
  publicBaseUrl: string;
  /** Times each question's first view by one who may answer it. */
  metrics?: GatewayMetrics;
}

/** Replies carry a typed answer or edited tool arguments: small. */
const API_BODY_LIMIT = '256kb';

export function inboxRouter(options: InboxOptions): express.Router {
  const agents = [...options.handlers.keys()];
  const { authenticator } = options;
  const signOuts = new SignOuts(options.client);
  const identity: IdentityOptions = {
    authenticator,
    sessions: new SessionKeeper(sessionSecret(options), authenticator.acceptedCredentials, options.sessionTtlMs),
    signOuts,
    streams: new SessionStreams(signOuts),
    signInLimit: new SignInLimit(authenticator),
    publicOrigin: new URL(options.publicBaseUrl).origin,
    agents,
  };
  const router = express.Router();
  router.use(securityHeaders);
  router.use('/api', apiRouter(options, identity, agents));
  router.use(servePages());
  return router;
}

function sessionSecret(options: InboxSettings & { authenticator: Authenticator }): Buffer {
  // A2A_INBOX_SESSION_SECRET reaches here as `sessionSecret` (src/gateway/config.ts).
  const { secret, ephemeral } = sessionSecretFromEnv(
    options.sessionSecret === undefined ? {} : { [SESSION_SECRET_ENV]: options.sessionSecret },
  );
  // Info, not warn: the default level shows it, and a development gateway has no sessions to lose.
  if (ephemeral && options.authenticator.required) {
    logger.info(
      { component: 'inbox' },
      `Inbox sessions are signed with a random key: they do not survive a restart nor span gateways (set ${SESSION_SECRET_ENV})`,
    );
  }
  return secret;
}

function apiRouter(options: InboxOptions, identity: IdentityOptions, agents: readonly string[]): express.Router {
  const router = express.Router();
  const lists = new LiveLists(options.questions, options.pollMs);
  const tasks = new InboxTasks(options.handlers, options.replies, options.authenticator.required);
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(express.json({ limit: API_BODY_LIMIT }));
  router.use(identify(identity));
  router.use(sessionRoutes(identity));
  router.use(requirePrincipal(options.authenticator));
  router.get('/questions', (req, res, next) => {
    lists.list(listKey(req, res, agents), pageRequest(req)).then(
      (page) => res.json(page),
      (error: unknown) => {
        if (error instanceof BadPageCursorError) return refuse(res, 400, error.message);
        next(error);
      },
    );
  });
  router.get('/live', (req, res) => {
    openEventStream(res);
    lists.follow(listKey(req, res, agents), res);
    identity.streams.hold(callerOf(res).session, res);
  });
  router.get('/tasks/:agent/:taskId', (req, res, next) => {
    const { agent, taskId } = req.params as { agent: string; taskId: string };
    const caller = callerOf(res);
    tasks.read(req, caller, agent, taskId).then(
      (task) => {
        if (options.metrics) viewedBy(options.metrics, agent, task, caller);
        res.json({ task });
      },
      failed(res, next),
    );
  });
  router.post('/tasks/:agent/:taskId/reply', checkCsrf(identity), (req, res, next) => {
    const { agent, taskId } = req.params as { agent: string; taskId: string };
    tasks.reply(req, callerOf(res), agent, taskId, (req.body ?? {}) as ReplyBody).then(
      (answer) => {
        if (answer.lost) return void res.status(409).json({ error: { kind: 'answered', ...answer.lost } });
        res.json(answer);
      },
      failed(res, next),
    );
  });
  router.use((_req, res) => refuse(res, 404, 'No such endpoint', 'not-found'));
  router.use(badBody);
  return router;
}

/** A body express.json could not read is the client's mistake, not an internal error. */
function badBody(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const status = (error as { status?: unknown }).status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return next(error);
  refuse(res, status, status === 413 ? 'The answer is too large' : 'The request body is not valid JSON');
}

function listKey(req: Request, res: Response, agents: readonly string[]): ListKey {
  const order: QuestionOrder = req.query['order'] === 'age' ? 'age' : 'deadline';
  const agent = typeof req.query['agent'] === 'string' && agents.includes(req.query['agent']) ? req.query['agent'] : '';
  const principal = callerOf(res).principal;
  return {
    order,
    ...(agent && { agent }),
    ...(principal && { caller: { id: principal.id, groups: principal.groups } }),
  };
}

/** `?after=` (a page's `next`) and `?limit=`: a page further down the list, or a shorter one. */
function pageRequest(req: Request): PageRequest {
  const { after, limit } = req.query;
  const rows = typeof limit === 'string' ? Number.parseInt(limit, 10) : NaN;
  return { ...(typeof after === 'string' && after && { after }), ...(rows > 0 && { limit: rows }) };
}

function failed(res: Response, next: NextFunction) {
  return (error: unknown) => {
    if (!answerError(res, error)) next(error);
  };
}

/** A task page read by one who may answer its waiting questions: each one's view, for the approval SLA metrics. */
function viewedBy(metrics: GatewayMetrics, agent: string, task: Record<string, unknown>, caller: InboxCaller): void {
  const metadata = task.metadata as
    { owner?: string; pendingQuestion?: PendingQuestion; pendingQuestions?: Question[] } | undefined;
  for (const question of questionsShown(metadata)) {
    if (question.kind === 'input' && mayAnswer(question, metadata?.owner, caller.principal)) {
      metrics.questionViewed(agent, String(task.id), question);
    }
  }
}
