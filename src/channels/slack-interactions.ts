/**
 * Approve / Deny clicked in Slack (the buttons src/channels/slack.ts adds with A2A_SLACK_INTERACTIVE),
 * answered at the gateway's SLACK_INTERACTIONS_PATH, the Slack app's interactivity request URL. A
 * click counts only when Slack's request signature checks out (HMAC-SHA256 with the app's signing
 * secret over `v0:<timestamp>:<body>`, the timestamp within 5 minutes) and the approver directory
 * names the clicking Slack user's ID as a principal's `slack` (its groups from there too); any other
 * click, one without a user too, is refused with 403 and answers nothing. The answer then goes where
 * an A2A reply goes (src/gateway/a2a/task-replies.ts), as that principal: who may answer, no
 * self-approval, the deadline. Slack gets an ephemeral line saying what happened.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { A2AError } from '@a2a-js/sdk/errors';
import express, { Router, type Request, type Response } from 'express';
import type { TaskReplies } from '../gateway/a2a/task-replies.js';
import { GatewayUser } from '../gateway/http/request-context.js';
import { lifetimeOf } from '../gateway/http/sdk-compat/index.js';
import { SLACK_ANSWER_ACTIONS } from '../protocol/approvals.js';
import {
  APPROVER_DIRECTORY_ENV,
  approverDirectorySource,
  groupsOf,
  loadDirectory,
  principalOfSlackUser,
  type ApproverDirectory,
} from './directory.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

export const SLACK_INTERACTIONS_PATH = '/slack/interactions';
const SLACK_SIGNING_SECRET_ENV = 'A2A_SLACK_SIGNING_SECRET';
const MAX_AGE_SECONDS = 5 * 60;

/** Approve / Deny buttons clicked in Slack, answered at /slack/interactions. */
export interface SlackInteractionSettings {
  /** The Slack app's signing secret (A2A_SLACK_SIGNING_SECRET): a click counts only if its signature matches. */
  signingSecret: string;
  /** The approver directory (a file's path, or the directory): who each Slack user is. */
  directory: string | ApproverDirectory;
}

/** `configured`: the project config's approvals.directory, the workers' directory (else A2A_APPROVER_DIRECTORY). */
export function slackInteractionsFromEnv(
  env: Pick<Settings, typeof SLACK_SIGNING_SECRET_ENV | typeof APPROVER_DIRECTORY_ENV>,
  configured: string | undefined,
): SlackInteractionSettings | undefined {
  const signingSecret = env[SLACK_SIGNING_SECRET_ENV]?.trim();
  if (!signingSecret) return undefined;
  const directory = approverDirectorySource(configured, env);
  if (directory === undefined) {
    throw new ConfigError(
      `${SLACK_SIGNING_SECRET_ENV} is set (Slack buttons), but no approver directory is: name the workers' one, ` +
        `approvals.directory in the project config or ${APPROVER_DIRECTORY_ENV}, so that a click maps to its approver.`,
    );
  }
  return { signingSecret, directory };
}

/** Whether Slack signed this body (https://api.slack.com/authentication/verifying-requests-from-slack). */
export function slackSignatureProblem(
  secret: string,
  raw: Buffer,
  timestamp: string | undefined,
  signature: string | undefined,
  nowSeconds = Date.now() / 1000,
): string | undefined {
  if (!timestamp || !signature) return 'The request is not signed by Slack';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > MAX_AGE_SECONDS) {
    return 'The request is too old (or its clock is off): replays are refused';
  }
  const expected = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(raw).digest('hex')}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted) ? undefined : 'The signature does not match';
}

interface ButtonClick {
  user?: { id?: unknown };
  actions?: Array<{ action_id?: string; value?: string }>;
}

export function slackInteractionsRouter(settings: SlackInteractionSettings, replies: TaskReplies): Router {
  const router = Router();
  router.post('/', express.raw({ type: 'application/x-www-form-urlencoded', limit: '64kb' }), (req, res, next) => {
    answer(req, res).catch(next);
  });

  async function answer(req: Request, res: Response): Promise<void> {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const problem = slackSignatureProblem(
      settings.signingSecret,
      raw,
      req.header('x-slack-request-timestamp'),
      req.header('x-slack-signature'),
    );
    if (problem) return void res.status(401).json({ error: problem });
    let click: ButtonClick;
    try {
      click = JSON.parse(new URLSearchParams(raw.toString('utf8')).get('payload') ?? '') as ButtonClick;
    } catch {
      return void res.status(400).json({ error: 'No interaction payload' });
    }
    const action = click.actions?.[0];
    const text = SLACK_ANSWER_ACTIONS[action?.action_id ?? ''];
    const target = parseTarget(action?.value);
    if (!text || !target) return void res.status(400).json({ error: 'Not an a2a-temporal button' });
    const directory = await loadDirectory(settings.directory);
    const principal = principalOfSlackUser(directory, click.user?.id);
    if (!principal) {
      return void res
        .status(403)
        .json(ephemeral('Your Slack account is not in the approver directory: answer in the inbox.'));
    }
    const groups = groupsOf(directory, principal);
    if (!replies.serves(target.agent)) {
      return void res.status(404).json(ephemeral(`No agent ${target.agent} is served here`));
    }
    const { signal, outcome } = lifetimeOf(req);
    const user = new GatewayUser('slack', signal, outcome, { id: principal, groups, via: 'slack' }, false);
    const reply = {
      agent: target.agent,
      taskId: target.taskId,
      parts: [{ text }],
      ...(target.answers && { answers: target.answers }),
    };
    try {
      // No history: Slack shows none, and the Update's own answer is then enough (one Temporal call).
      await replies.answer(reply, user, { returnImmediately: true, historyLength: 0 });
    } catch (error) {
      // Refused as an A2A reply would be (not an approver, already answered, past the deadline): said in Slack.
      if (error instanceof A2AError) return void res.json(ephemeral(`Not recorded: ${error.message}`));
      throw error;
    }
    res.json(ephemeral(`Recorded: ${text}, as ${principal}.`));
  }
  return router;
}

/**
 * The button's task, and the question it answers as a reply names it (by id, else by askedAt;
 * buttons posted before either was named answer any).
 */
function parseTarget(
  value: string | undefined,
): { agent: string; taskId: string; answers?: string | { question: string } } | undefined {
  try {
    const parsed = JSON.parse(value ?? '') as {
      agent?: unknown;
      taskId?: unknown;
      askedAt?: unknown;
      question?: unknown;
    };
    const answers =
      typeof parsed.question === 'string'
        ? { question: parsed.question }
        : typeof parsed.askedAt === 'string'
          ? parsed.askedAt
          : undefined;
    return typeof parsed.agent === 'string' && typeof parsed.taskId === 'string'
      ? { agent: parsed.agent, taskId: parsed.taskId, ...(answers && { answers }) }
      : undefined;
  } catch {
    return undefined;
  }
}

function ephemeral(text: string) {
  return { response_type: 'ephemeral', replace_original: false, text };
}
