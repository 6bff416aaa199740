/**
 * The API agents are written against (README.md, "Writing an agent"). An agent's `run(ctx)` is the body of its
 * task workflow: it reads like a plain async function and never touches A2A wire types or
 * Temporal handles directly.
 */
import type { Duration } from '@temporalio/common';
import type { ActivityOptions } from '@temporalio/workflow';
import type { ZodType } from 'zod';
import type { ApprovalChannel } from '../protocol/approvals.js';
import type { EscalationMode } from '../protocol/question.js';
import type { QuorumOptions, Vote } from '../protocol/quorum.js';
import type { PushEventSelection } from '../protocol/push.js';
import { AGENT_VERSIONINGS, isAgentVersioning, type AgentVersioning } from '../protocol/versioning.js';
import type { RemoteAgentAddress } from '../protocol/delegation.js';
import type { JsonObject, WireArtifact, WirePart } from '../protocol/wire.js';

/**
 * One thing the agent can do, as its A2A agent card lists it (A2A `AgentSkill`).
 *
 * @example
 * const skill: AgentSkill = {
 *   id: 'approve-purchase',
 *   name: 'Purchase approval',
 *   description: 'Asks a human to approve a purchase, then places the order.',
 *   tags: ['approval'],
 *   examples: ['Buy 3 monitors for 450 EUR'],
 * };
 */
export interface AgentSkill {
  /** Unique among the agent's skills. */
  id: string;
  /** A name for people. */
  name: string;
  /** What the skill does, for people and for other agents choosing one. */
  description: string;
  /** Keywords for finding the skill. */
  tags: string[];
  /** Example requests the skill handles. */
  examples?: string[];
  /** Media types the skill takes, where they differ from the agent's `defaultInputModes`. */
  inputModes?: string[];
  /** Media types the skill answers with, where they differ from the agent's `defaultOutputModes`. */
  outputModes?: string[];
}

/** An A2A extension the agent supports, declared in its card's `capabilities.extensions`. */
export interface AgentExtensionDeclaration {
  /** The extension's URI, which requests name in their `A2A-Extensions` header. */
  uri: string;
  /** How the agent uses the extension. */
  description?: string;
  /** Every request must name the extension, or the gateway refuses it with ExtensionSupportRequired. */
  required?: boolean;
  /** The extension's own settings, as the card shows them. */
  params?: Record<string, unknown>;
}

/**
 * An agent: its card (name, description, skills, ...) and its `run`, the body of each of its tasks'
 * workflows. Make one with {@link defineAgent} (or `defineLlmAgent` for a model-driven agent).
 */
export interface AgentDefinition {
  /** Also the Temporal workflow type operators see. Lowercase, dashes: `expense-approval`. */
  name: string;
  /** What the agent does, on its card. */
  description: string;
  /** The agent's version on its card. Default `1.0.0`. */
  version?: string;
  /** What the agent can do, on its card. */
  skills: AgentSkill[];
  /** More skills, listed only in the extended agent card (GetExtendedAgentCard). */
  extendedSkills?: AgentSkill[];
  /** Media types the agent takes. Default `['text/plain', 'application/json']`. */
  defaultInputModes?: string[];
  /** Media types the agent answers with. Default `['text/plain', 'application/json']`. */
  defaultOutputModes?: string[];
  /**
   * The agent may answer some messages with a Message instead of a Task (`asMessage`). Streams
   * then hold the task snapshot back until the agent shows which it does; leave it off otherwise.
   */
  mayAnswerWithMessage?: boolean;
  /**
   * A2A extensions the agent supports, declared on its card. A `required` one must be named in every
   * request's `A2A-Extensions` header (gRPC: `a2a-extensions` metadata), or the gateway refuses the
   * request with ExtensionSupportRequired.
   */
  extensions?: AgentExtensionDeclaration[];
  /** Which events its tasks' push notification webhooks receive; default every status change and artifact. */
  pushEvents?: PushEventSelection;
  /**
   * Under Worker Versioning (a worker started with a deployment name and build ID): 'pinned' keeps
   * each task on the worker version that started it; 'auto-upgrade' moves it to the deployment's
   * current version at its next step, so new code must replay it (`a2a-temporal check-deploy`).
   * Default: the worker's (`A2A_WORKER_VERSIONING`, else 'pinned'). Without versioning it does nothing.
   */
  versioning?: AgentVersioning;
  /**
   * Set by defineLlmAgent: the agent calls a model (and names it, unless the worker's A2A_MODEL is
   * used); its tools run these activities (tool name → activity name), which the worker checks at start.
   */
  llm?: {
    /** The model, when the agent names one. */
    model?: string;
    /** Tool name → the activity that runs it. */
    toolActivities?: Record<string, string>;
  };
  /**
   * The task's body, run in Temporal's workflow sandbox: deterministic (no I/O, no `Math.random`, no
   * clock of its own); I/O goes in activities (`ctx.activities`). What it returns completes the task;
   * `ctx.reject` rejects it; a thrown {@link AgentFailure} fails it with its message.
   */
  run(ctx: AgentContext): Promise<AgentResult>;
}

/**
 * What `run` returns: a string completes the task with that agent message; an object says more
 * (`asMessage` answers with a Message and no Task); nothing completes it without a message.
 */
export type AgentResult =
  | void
  | string
  | {
      /** The agent message's text. */
      text?: string;
      /** The agent message's parts, beside or instead of `text`. */
      parts?: WirePart[];
      /** Answer with a Message and no Task (A2A "message response"). */
      asMessage?: boolean;
    };

/** A user message as the agent sees it. */
export interface UserMessage {
  /** The A2A message's ID. */
  messageId: string;
  /** Its text parts, joined. */
  text: string;
  /** Its parts as sent: text, file and data parts. */
  parts: WirePart[];
  /** The first DataPart's value, if any. */
  data: unknown;
  /** The message's metadata, as sent. */
  metadata?: JsonObject;
  /**
   * Who sent it: the authenticated caller, or, on a gateway without authentication, the message's
   * `metadata.responder` (which the CLI's `--as` sets); an operator's name for a Temporal UI answer.
   */
  responder?: string;
}

/**
 * The answer to `ctx.ask` or `ctx.askAuth`.
 *
 * @typeParam T - the type of `value`: what the question's `schema` parses the reply's DataPart to.
 * @example
 * const reply = await ctx.ask<{ ok: boolean }>({ question: 'Ship it?', schema: z.object({ ok: z.boolean() }) });
 * if (reply.timedOut) return 'Nobody answered.';
 * return reply.value.ok ? `Shipped, says ${reply.responder}.` : 'Not shipped.';
 */
export interface Reply<T = unknown> extends UserMessage {
  /** The structured reply, validated against `schema` when one was given. */
  value: T;
  /** The approver the responder answered for, as their deputy (docs/approval-policies.md, Deputies). */
  actingFor?: string;
  /** A quorum question's votes, the deciding one last (its text and data are this reply's). */
  votes?: Vote[];
  /** True when no one answered and the deadline's default answer was used. */
  timedOut: boolean;
}

/**
 * What happens when a question's deadline passes with no answer: the task fails or is rejected with
 * `reason`, or the question is answered with `text` and `data` (the reply's `timedOut` is then true).
 */
export type DeadlineOutcome =
  | {
      /** The task ends `failed`. */
      kind: 'fail';
      /** The failure's message; default 'No answer before the deadline'. */
      reason?: string;
    }
  | {
      /** The task ends `rejected`. */
      kind: 'reject';
      /** The rejection's message; default 'No answer before the deadline'. */
      reason?: string;
    }
  | {
      /** `ctx.ask` returns this answer, with `timedOut: true`. */
      kind: 'answer';
      /** The answer's text. */
      text?: string;
      /** The answer's DataPart value. */
      data?: unknown;
    };

/**
 * A question for `ctx.ask`: who may answer, by when, in what shape, and whom to tell.
 *
 * @typeParam T - what `schema` parses the reply's DataPart to.
 * @example
 * const reply = await ctx.ask({
 *   question: 'Approve buying 3 monitors for 450 EUR?',
 *   responders: ['group:finance'],
 *   notByRequester: true,
 *   deadline: '3 days',
 *   onDeadline: { kind: 'reject', reason: 'Nobody approved it within 3 days.' },
 *   notify: ['email'],
 *   remind: ['1 day before'],
 * });
 */
export interface AskOptions<T = unknown> {
  /** The question, as the task's status message. */
  question: string;
  /** How long to wait, e.g. '72h'. Durable: survives restarts of everything. */
  deadline?: Duration;
  /** What happens when the deadline passes. Default: fail. */
  onDeadline?: DeadlineOutcome;
  /**
   * Only these may answer: principals, and groups as `group:NAME`. With authentication on they are
   * checked against the caller's identity; without, against the name a client gives.
   */
  responders?: string[];
  /** The task's requester may not answer (no self-approval). */
  notByRequester?: boolean;
  /** A structured DataPart reply; invalid replies are rejected and the task keeps waiting. */
  schema?: ZodType<T>;
  /** Structured data shown with the question: a DataPart of the status message and `metadata.pendingQuestion.details`. */
  details?: JsonObject;
  /**
   * Tell the approvers (the responders, groups expanded by the project's directory; else the owner)
   * by these channels when the question starts waiting. Default: the config's `approvals.notify`;
   * `[]` notifies nobody.
   */
  notify?: ApprovalChannel[];
  /** Reminders before the deadline, e.g. `['1 day before']`. Default: the config's `approvals.remind`. */
  remind?: string[];
  /** Who else (or who instead) may answer when nobody did in time (docs/approval-policies.md, Escalation). */
  escalate?: EscalationRule[];
  /**
   * Several people must approve (docs/approval-policies.md, Quorum): the question stays open until
   * `required` distinct approvers approve (or each `allOf` group's do), or a deny rejects it.
   */
  quorum?: QuorumOptions;
}

/**
 * An escalation of `ctx.ask`: when nobody answered `after` the question was asked, `to` may answer
 * too (`widen`, the default) or instead (`move`), and are told by `notify` (default: the question's channels).
 */
export interface EscalationRule {
  /** How long after the question was asked, e.g. `'4 hours'`. */
  after: Duration;
  /** Principals and groups (`group:NAME`), as `responders`. */
  to: string[];
  /** `widen` (default): `to` may answer too; `move`: only `to` may answer from then on. */
  mode?: EscalationMode;
  /** The channels `to` are told on. Default: the question's. */
  notify?: ApprovalChannel[];
}

/** What `ctx.askAuth` asks for, and how the credentials come. */
export interface AskAuthOptions {
  /** What the caller must do, as the task's `auth-required` status message. */
  message: string;
  /**
   * in-band: credentials arrive in the next message; out-of-band: the `completeAuth` update (your
   * OAuth callback: `{ by, data, caller? }`) completes it, checked as a reply is.
   */
  mode: 'in-band' | 'out-of-band';
  /** How long to wait, as in `ctx.ask`. */
  deadline?: Duration;
  /** What happens when the deadline passes, as in `ctx.ask`. Default: fail. */
  onDeadline?: DeadlineOutcome;
  /** Who may answer, as in `ctx.ask`. Default: the task's owner. */
  responders?: string[];
}

/**
 * An artifact for `ctx.artifact`: `text`, `data` or `parts`, whole or in chunks.
 *
 * @example
 * const id = ctx.artifact({ name: 'report', text: 'Section 1\n', append: true });
 * ctx.artifact({ artifactId: id, text: 'Section 2\n', append: true, lastChunk: true });
 */
export interface ArtifactInput {
  /**
   * The artifact's ID; default a new one. Give one when a later call must name the artifact (chunks),
   * or when it must not change after continue-as-new re-executes `run` (then compute it in an activity).
   */
  artifactId?: string;
  /** The artifact's name. */
  name?: string;
  /** What the artifact is. */
  description?: string;
  /** A text part. */
  text?: string;
  /** A DataPart's value. */
  data?: unknown;
  /** Parts of your own, beside `text` and `data`. */
  parts?: WirePart[];
  /** Append these parts to the artifact with the same `artifactId` (`text` alone continues its last text part). */
  append?: boolean;
  /** This is the artifact's last chunk (A2A `lastChunk`). */
  lastChunk?: boolean;
  /** The artifact's metadata. */
  metadata?: JsonObject;
}

/**
 * What an agent's `run(ctx)` works with: the task's message, its status, artifacts and questions,
 * activities, timers and other agents. Every call is recorded in the task's workflow history, so a
 * task resumes where it was after any restart.
 *
 * @example
 * async run(ctx) {
 *   const { lookup } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
 *   ctx.status('Looking it up');
 *   const found = await lookup(ctx.message.text);
 *   const reply = await ctx.ask({ question: `Order ${found.name}?`, deadline: '1 day' });
 *   if (!reply.text.startsWith('yes')) return ctx.reject('Not ordered.');
 *   ctx.artifact({ name: 'order', data: found });
 *   return 'Ordered.';
 * }
 */
export interface AgentContext {
  /** The A2A task's ID (its workflow is `a2a-task-<taskId>`). */
  readonly taskId: string;
  /** The A2A context (conversation) the task belongs to. */
  readonly contextId: string;
  /** The message that started the task. */
  readonly message: UserMessage;
  /** Working status with a message; also the operator's "current details" line. */
  status(text: string): void;
  /** Publish an artifact (or a chunk of one). Returns its artifactId. */
  artifact(artifact: ArtifactInput): string;
  /** Enter input-required and wait durably for the reply. */
  ask<T = unknown>(question: string | AskOptions<T>): Promise<Reply<T>>;
  /** Enter auth-required and wait durably for credentials or an out-of-band completion. */
  askAuth(options: AskAuthOptions): Promise<Reply>;
  /** End the task `rejected`. */
  reject(reason: string): never;
  /** Activities, with cancellation that waits for the activity to stop. */
  activities<A extends object>(options?: ActivityOptions): A;
  /** A durable timer. */
  sleep(duration: Duration, summary?: string): Promise<void>;
  /**
   * Whether this task runs the code a deploy added under `patchId` (Temporal's `patched()`, made
   * safe for agents): false for tasks that passed this point on the code before it, true for the
   * rest, and the same answer again when the task's `run` is re-executed after continue-as-new.
   * Use it, not `patched()` from `@temporalio/workflow`, to change agent code while tasks wait.
   */
  patched(patchId: string): boolean;
  /**
   * Delegates to a remote A2A agent (its card URL, its base URL, or its name in the project
   * config's `remoteAgents`) and returns once the remote task has completed. Its questions become this task's (input-required, marked as the remote
   * agent's), and the answers go back to it; canceling this task cancels the remote task first.
   * Throws RemoteAgentFailed when the remote task fails, is rejected or is canceled, or when the
   * agent cannot be used at all (state 'unusable': e.g. a URL fetch refuses, a card that is not there).
   */
  callAgent(url: string, message: string | RemoteMessage, options?: CallAgentOptions): Promise<RemoteAgentResult>;
}

/** What to send a remote agent: text, a DataPart's value, or parts of your own. */
export interface RemoteMessage {
  /** A text part. */
  text?: string;
  /** A DataPart's value. */
  data?: unknown;
  /** Parts of your own, beside `text` and `data`. */
  parts?: WirePart[];
}

/**
 * How `ctx.callAgent` reaches a remote agent (transport, credentials, card keys) and who answers its
 * questions here.
 *
 * @example
 * await ctx.callAgent('finance', ctx.message.text, {
 *   credentials: { bearerTokenEnv: 'FINANCE_AGENT_TOKEN' }, // read by the worker, never in history
 *   responders: ['group:purchasing-leads'],
 *   deadline: '7 days',
 * });
 */
export interface CallAgentOptions extends Omit<RemoteAgentAddress, 'url'> {
  /** Who may answer the remote agent's questions here, as in `ask`. Default: this task's owner. */
  responders?: string[];
  /** This task's requester may not answer the remote agent's questions. */
  notByRequester?: boolean;
  /** How long each remote question waits here, as in `ask` (then the call fails). Default: no limit. */
  questionDeadline?: Duration;
  /**
   * How long the whole call may take: then the remote task is canceled and the call throws
   * RemoteAgentFailed with state 'timed-out'. Default: no limit (an unreachable agent is retried for ever).
   */
  deadline?: Duration;
  /**
   * Follow the remote task on an A2A stream (SendStreamingMessage, then SubscribeToTask) instead of
   * polling: its artifacts' chunks become this task's artifacts (`<remote task ID>-<artifact ID>`) as
   * they come, the first at once, then in batches. A dropped stream is resumed with SubscribeToTask,
   * never sent again. An agent whose card says it does not stream is polled. Default false.
   */
  streaming?: boolean;
  /**
   * Leave the send's stream as soon as it names the remote task, and follow the task by
   * SubscribeToTask (as a client that lost its stream does). Implies `streaming`.
   */
  resubscribe?: boolean;
  /**
   * A push config for the remote task. `true`: it pushes to this gateway (the worker's
   * `A2A_PUBLIC_URL`), and each push, authenticated by a token made for this call, wakes the call to
   * read the remote task (GetTask stays the truth) instead of polling it. `{ url, token? }`: it pushes
   * there, and the call follows the task as without. Left out for an agent whose card says it does not push.
   */
  pushNotification?: boolean | RemotePushTarget;
  /** With `pushNotification: true`: how long the call waits for a push before reading the task anyway. Default 1 minute. */
  pushPollInterval?: Duration;
  /**
   * For an agent whose task answers and then stays working until its caller cancels it (as the A2A
   * interop kit's held tasks do, with `task-finished`): once an agent message of the unfinished task
   * contains this text, that message is the call's answer, and the remote task is canceled. Seen in
   * its status, and in its history where the agent keeps one (on a stream, every status is seen).
   */
  finishedMarker?: string;
}

/** Where a remote task pushes its notifications when the call names the place (`pushNotification: { url }`). */
export interface RemotePushTarget {
  /** The webhook URL the remote agent posts the task's notifications to. */
  url: string;
  /** The token the remote agent sends with each notification, so the receiver can tell them from others. */
  token?: string;
}

/** What `ctx.callAgent` returns once the remote task completed: its answer and artifacts. */
export interface RemoteAgentResult {
  /** The remote agent's name, from its card. */
  agent: string;
  /** Absent when the remote agent answered with a message and no task. */
  taskId?: string;
  /** The remote task's final status message (or the remote agent's message). */
  text: string;
  /** That message's parts. */
  parts: WirePart[];
  /** The remote task's artifacts, as far as they fit (see `artifactsOmitted`). */
  artifacts: WireArtifact[];
  /**
   * Set when `artifacts` lacks some of the remote task's: what was left out and why (too large to
   * carry here: each over 512 KB, or beyond 1 MB in all; or dropped by the remote agent itself).
   * The task's status and `metadata.delegations` say it too.
   */
  artifactsOmitted?: string;
}

/**
 * Thrown by agent code to end the task `failed` with a message safe to show clients. Any other
 * exception fails the task with a generic message (its details stay in logs and workflow history).
 *
 * @example
 * if (!order) throw new AgentFailure('The order system has no such order.');
 */
export class AgentFailure extends Error {
  /** @param message - the task's final status message, shown to clients. */
  constructor(message: string) {
    super(message);
    this.name = 'AgentFailure';
  }
}

/** Thrown by `ctx.reject` (and a deadline whose outcome is reject); ends the task `rejected`. */
export class TaskRejection extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TaskRejection';
  }
}

const OUTCOMES = { refused: 'was refused', 'timed-out': 'timed out', unusable: 'could not be called' } as const;

/**
 * Thrown by `ctx.callAgent`: the remote task ended without completing, or the agent could not be
 * called. `state` says how, `remoteMessage` what it said. Uncaught, it fails this task with its message.
 *
 * @example
 * try {
 *   await ctx.callAgent('finance', ctx.message.text);
 * } catch (error) {
 *   if (error instanceof RemoteAgentFailed && error.state === 'rejected') return `Finance said no: ${error.remoteMessage}`;
 *   throw error;
 * }
 */
export class RemoteAgentFailed extends AgentFailure {
  constructor(
    /** The remote agent's name (from its card), else its URL or config name. */
    readonly agent: string,
    /**
     * How it ended: the remote task's own end (`failed`, `rejected`, `canceled`), a request it
     * `refused`, the call's deadline passed (`timed-out`), or the agent `unusable` (a bad URL, a
     * card that is not there or not signed by the named keys, a name the config lacks, ...).
     */
    readonly state: 'failed' | 'rejected' | 'canceled' | 'refused' | 'timed-out' | 'unusable',
    /** What the remote agent said (its task's status message), or why it could not be used. */
    readonly remoteMessage: string,
    /** The remote task's ID, when there was one. */
    readonly taskId?: string,
  ) {
    const outcome = OUTCOMES[state as keyof typeof OUTCOMES] ?? `ended ${state}`;
    super(`The ${agent} agent's task ${outcome}${remoteMessage ? `: ${remoteMessage}` : ''}`);
    this.name = 'RemoteAgentFailed';
  }
}

/**
 * Defines an agent: checks its name (lowercase letters, digits and dashes) and its `versioning`, and
 * returns it typed. A project's agents module default-exports the list of its agents.
 *
 * @example
 * import { defineAgent } from 'a2a-temporal';
 * import type * as activities from './activities.js';
 *
 * export const purchaseApproval = defineAgent({
 *   name: 'purchase-approval',
 *   description: 'Asks a human to approve a purchase, then places the order.',
 *   skills: [{ id: 'approve-purchase', name: 'Purchase approval', description: '...', tags: ['approval'] }],
 *   async run(ctx) {
 *     const { placeOrder } = ctx.activities<typeof activities>({ startToCloseTimeout: '1 minute' });
 *     const reply = await ctx.ask({ question: `Approve "${ctx.message.text}"?`, deadline: '3 days' });
 *     if (!reply.text.startsWith('approve')) return ctx.reject(`Denied by ${reply.responder ?? 'the approver'}.`);
 *     ctx.artifact({ name: 'order', data: await placeOrder(ctx.message.text) });
 *     return 'Ordered.';
 *   },
 * });
 *
 * export default [purchaseApproval];
 * @throws TypeError when the name or `versioning` is not one the runtime takes.
 */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name)) {
    throw new TypeError(`Agent name "${definition.name}" must be lowercase letters, digits and dashes`);
  }
  if (definition.versioning !== undefined && !isAgentVersioning(definition.versioning)) {
    throw new TypeError(
      `Agent "${definition.name}": versioning must be one of ${AGENT_VERSIONINGS.map((v) => `'${v}'`).join(', ')}`,
    );
  }
  return definition;
}
