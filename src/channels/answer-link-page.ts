/**
 * The confirmation page of an email's one-click answer (answer-links.ts), at ANSWER_LINKS_PATH on
 * the gateway. A GET only shows the question and the answer the link would give, with a button:
 * mail scanners and link previews follow links, and must not answer. The button POSTs the token
 * itself (the form's only field: no session, so no other CSRF token is needed; a forged form would
 * need the token, which answers anyway) from a page of this origin (Sec-Fetch-Site / Origin, as the
 * inbox checks). The answer then goes where an A2A reply goes (src/gateway/a2a/task-replies.ts), as
 * the token's principal (its groups from the approver directory): who may answer, no self-approval,
 * the deadline; the page reads the question through the agent's request handler. A token answers
 * only its own question while that question waits: replayed after the answer, or against a later
 * question of the task, it is refused.
 */
import { GetTaskRequest, Task } from '@a2a-js/sdk';
import { A2AError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import express, { Router, type Request, type Response } from 'express';
import type { PendingQuestion, Question } from '../protocol/question.js';
import { fromThisOrigin, securityHeaders } from '../gateway/inbox/guard.js';
import { ResponderNotAllowedError, standingOf, TemporalBusyError, TemporalRetryLaterError } from '../tasks/errors.js';
import type { TaskReplies } from '../gateway/a2a/task-replies.js';
import { GatewayUser } from '../gateway/http/request-context.js';
import { lifetimeOf } from '../gateway/http/sdk-compat/index.js';
import { ANSWER_LINK_SECRET_ENV, readAnswerToken, type AnswerClaims } from './answer-links.js';
import {
  APPROVER_DIRECTORY_ENV,
  approverDirectorySource,
  groupsOf,
  loadDirectory,
  type ApproverDirectory,
} from './directory.js';
import { escapeHtml } from './notice-text.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

/** The confirmation page of approval emails' one-click answers, at /inbox/answer. */
export interface AnswerLinkPageSettings {
  /** The HMAC key the workers sign the links with (A2A_APPROVAL_LINK_SECRET). */
  secret: Buffer;
  /** The approver directory (a file's path, or the directory): the groups of the token's principal. */
  directory: string | ApproverDirectory;
}

/**
 * The page's settings, or undefined when A2A_APPROVAL_LINK_SECRET is unset (no page). The directory is
 * the worker's (`configured`: the project config's approvals.directory, else A2A_APPROVER_DIRECTORY);
 * without one a link's principal would have no groups, and a valid link for a group's question would
 * be refused (as used up, or as not the principal's to answer): a ConfigError instead, at start.
 */
export function answerLinkPageFromEnv(
  env: Pick<Settings, typeof ANSWER_LINK_SECRET_ENV | typeof APPROVER_DIRECTORY_ENV>,
  configured: string | undefined,
): AnswerLinkPageSettings | undefined {
  const secretText = env[ANSWER_LINK_SECRET_ENV];
  if (!secretText) return undefined;
  const secret = Buffer.from(secretText, 'utf8');
  const directory = approverDirectorySource(configured, env);
  if (directory === undefined) {
    throw new ConfigError(
      `${ANSWER_LINK_SECRET_ENV} is set (one-click answers in emails), but no approver directory is: name the ` +
        `workers' one, approvals.directory in the project config or ${APPROVER_DIRECTORY_ENV}, so that a link ` +
        `answers with its approver's groups.`,
    );
  }
  return { secret, directory };
}

interface TaskView {
  status?: { state?: string };
  metadata?: { pendingQuestion?: PendingQuestion; pendingQuestions?: Question[] };
}

interface Refusal {
  status: number;
  title: string;
  text: string;
}

export function answerLinkPageRouter(
  settings: AnswerLinkPageSettings,
  handlers: ReadonlyMap<string, A2ARequestHandler>,
  replies: TaskReplies,
  publicBaseUrl: string,
): Router {
  const publicOrigin = new URL(publicBaseUrl).origin;
  const router = Router();
  router.use(securityHeaders, (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.get('/', (req, res, next) => {
    show(req, res).catch(next);
  });
  router.post('/', express.urlencoded({ extended: false, limit: '8kb' }), (req, res, next) => {
    answer(req, res).catch(next);
  });

  async function show(req: Request, res: Response): Promise<void> {
    const token = req.query['token'];
    const checked = await check(req, token);
    if ('status' in checked) return page(res, checked.status, checked.title, `<p>${escapeHtml(checked.text)}</p>`);
    const { claims, question } = checked;
    const verb = claims.decision === 'approve' ? 'Approve' : 'Deny';
    page(
      res,
      200,
      `${verb}?`,
      `<p>The ${escapeHtml(claims.agent)} agent asks:</p><blockquote>${escapeHtml(question.prompt)}</blockquote>` +
        `<p>You answer <strong>${claims.decision}</strong>, as ${escapeHtml(claims.approver)}.</p>` +
        `<form method="post" action="answer"><input type="hidden" name="token" value="${escapeHtml(String(token))}">` +
        `<button type="submit">${verb}</button></form>`,
    );
  }

  /**
   * One Update: its validator checks the question the token names against the task (still waiting,
   * who may answer it), and its refusal says where the task stands, as `show` reads it.
   */
  async function answer(req: Request, res: Response): Promise<void> {
    if (!fromThisOrigin(req, publicOrigin)) {
      return page(res, 403, 'Refused', '<p>This answer did not come from the confirmation page.</p>');
    }
    const token = (req.body as Record<string, unknown> | undefined)?.['token'];
    const checked = await verify(req, token);
    if ('status' in checked) return page(res, checked.status, checked.title, `<p>${escapeHtml(checked.text)}</p>`);
    const { claims, user } = checked;
    const answers = claims.question ? { question: claims.question } : claims.askedAt;
    const reply = { agent: claims.agent, taskId: claims.taskId, parts: [{ text: claims.decision }], answers };
    try {
      // No history: the page shows none, and the Update's own answer is then enough.
      await replies.answer(reply, user, { returnImmediately: true, historyLength: 0 });
    } catch (error) {
      // Refused as an A2A reply would be (not an approver, answered meanwhile, past the deadline).
      const refused = refusalOf(error, claims);
      if (!refused) throw error;
      return page(res, refused.status, refused.title, `<p>${escapeHtml(refused.text)}</p>`);
    }
    page(res, 200, 'Recorded', `<p>Recorded: ${claims.decision}, as ${escapeHtml(claims.approver)}.</p>`);
  }

  /** The token's claims, its agent's handler and the principal it answers as, when it is good. */
  async function verify(req: Request, token: unknown) {
    const reading = readAnswerToken(settings.secret, token);
    if ('problem' in reading) {
      return reading.problem === 'expired'
        ? refusal(410, 'Link expired', 'This link has expired: answer in the approvals inbox.')
        : refusal(403, 'Invalid link', 'This link is not valid: answer in the approvals inbox.');
    }
    const { claims } = reading;
    const handler = handlers.get(claims.agent);
    if (!handler) return refusal(404, 'Unknown agent', `No agent ${claims.agent} is served here.`);
    const groups = groupsOf(await loadDirectory(settings.directory), claims.approver);
    const { signal, outcome } = lifetimeOf(req);
    const user = new GatewayUser('email', signal, outcome, { id: claims.approver, groups, via: 'email' }, false);
    return { claims, handler, user };
  }

  /** The token's claims, and its question when it still waits, read as the token's principal. */
  async function check(req: Request, token: unknown) {
    const verified = await verify(req, token);
    if ('status' in verified) return verified;
    const { claims, handler, user } = verified;
    try {
      const waiting = await waitingQuestion(handler, user, claims);
      return 'question' in waiting ? { claims, user, question: waiting.question } : waiting;
    } catch (error) {
      const refused = refusalOf(error, claims);
      if (!refused) throw error;
      return refused;
    }
  }
  return router;
}

/** The refusal of a token whose question no longer waits: the task ended (its state), or moved on. */
function noLongerWaits(state: string | undefined): Refusal {
  const ended = state !== undefined && Object.hasOwn(ENDED, state) ? ENDED[state] : undefined;
  const why = ended ? `${ended}, so its question` : 'This question';
  return refusal(409, 'Nothing to answer', `${why} no longer waits for an answer: this link is used up.`);
}

/**
 * An A2A refusal as the page tells it, as the inbox does (gateway/inbox/tasks.ts); undefined for an
 * error that is none (a fault: the error page).
 */
function refusalOf(error: unknown, claims: AnswerClaims): Refusal | undefined {
  if (error instanceof TemporalRetryLaterError) {
    const why = error instanceof TemporalBusyError ? 'busy' : 'unreachable';
    return refusal(503, 'Try again', `Temporal is ${why}: open this link again in a moment.`);
  }
  // A task the principal may not see has no question for it.
  if (error instanceof TaskNotFoundError) return noLongerWaits(undefined);
  if (!(error instanceof A2AError)) return undefined;
  const { message } = error;
  const standing = standingOf(error);
  if (standing && !waitsFor(standing.state, standing.question, claims)) return noLongerWaits(standing.state);
  // The refusal says who may answer (or that the requester may not).
  if (error instanceof ResponderNotAllowedError) return refusal(403, 'Not yours to answer', message);
  // Still waiting, but no longer for answers (its deadline passed).
  if (error instanceof UnsupportedOperationError) return refusal(409, 'Not recorded', `Not recorded: ${message}`);
  return refusal(400, 'Not recorded', `Not recorded: ${message}`);
}

function refusal(status: number, title: string, text: string): Refusal {
  return { status, title, text };
}

/** How the page says that the task ended, by its terminal state. */
const ENDED: Readonly<Record<string, string>> = {
  TASK_STATE_COMPLETED: 'This task is completed',
  TASK_STATE_FAILED: 'This task failed',
  TASK_STATE_CANCELED: 'This task was canceled',
  TASK_STATE_REJECTED: 'This task was rejected',
};

/**
 * The task's question when it is the token's and still waits, else what became of it (a task the
 * principal may no longer see has none: its getTask refuses).
 */
async function waitingQuestion(
  handler: A2ARequestHandler,
  user: GatewayUser,
  claims: AnswerClaims,
): Promise<{ question: PendingQuestion } | Refusal> {
  const read = await handler.getTask(
    GetTaskRequest.fromJSON({ id: claims.taskId, historyLength: 0 }),
    new ServerCallContext({ user, requestedVersion: '1.0' }),
  );
  const task = Task.toJSON(read) as TaskView;
  // Several open: the token's among them (by its id), else the one open.
  const several = task.metadata?.pendingQuestions?.find((open) => open.id === claims.question);
  const pending = several ?? task.metadata?.pendingQuestion;
  if (pending && waitsFor(task.status?.state, pending, claims)) return { question: pending };
  return noLongerWaits(task.status?.state);
}

/** Whether a task in `state` (on the wire) waiting on `question` waits for the token's answer. */
function waitsFor(
  state: string | undefined,
  question: Pick<PendingQuestion, 'kind' | 'askedAt'> | undefined,
  claims: AnswerClaims,
): boolean {
  return state === 'TASK_STATE_INPUT_REQUIRED' && question?.kind === 'input' && question.askedAt === claims.askedAt;
}

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="inbox.css"></head>` +
        `<body><main><h1>${escapeHtml(title)}</h1>${body}<p><a href="./">Open the approvals inbox</a></p></main></body></html>`,
    );
}
