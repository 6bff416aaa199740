/**
 * The API agents are written against (README, "Writing an agent"). An agent's `run(ctx)` is the body of its
 * task workflow: it reads like a plain async function and never touches A2A wire types or
 * Temporal handles directly.
 */
import type { Duration } from '@temporalio/common';
import type { ActivityOptions } from '@temporalio/workflow';
import type { ZodType } from 'zod';
import type { ApprovalChannel } from '../protocol/approvals.js';
import type { PushEventSelection } from '../protocol/push.js';
import { AGENT_VERSIONINGS, isAgentVersioning, type AgentVersioning } from '../protocol/versioning.js';
import type { RemoteAgentAddress } from '../protocol/delegation.js';
import type { JsonObject, WireArtifact, WirePart } from '../protocol/wire.js';

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

export interface AgentExtensionDeclaration {
  uri: string;
  description?: string;
  required?: boolean;
  params?: Record<string, unknown>;
}

export interface AgentDefinition {
  /** Also the Temporal workflow type operators see. Lowercase, dashes: `expense-approval`. */
  name: string;
  description: string;
  version?: string;
  skills: AgentSkill[];
  /** More skills, listed only in the extended agent card (GetExtendedAgentCard). */
  extendedSkills?: AgentSkill[];
  defaultInputModes?: string[];
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
  llm?: { model?: string; toolActivities?: Record<string, string> };
  run(ctx: AgentContext): Promise<AgentResult>;
}

/** Returning a string completes the task with that agent message. */
export type AgentResult =
  | void
  | string
  | {
      text?: string;
      parts?: WirePart[];
      /** Answer with a Message and no Task (A2A "message response"). */
      asMessage?: boolean;
    };

/** A user message as the agent sees it. */
export interface UserMessage {
  messageId: string;
  text: string;
  parts: WirePart[];
  /** The first DataPart's value, if any. */
  data: unknown;
  metadata?: JsonObject;
  responder?: string;
}

export interface Reply<T = unknown> extends UserMessage {
  /** The structured reply, validated against `schema` when one was given. */
  value: T;
  /** True when no one answered and the deadline's default answer was used. */
  timedOut: boolean;
}

export type DeadlineOutcome =
  | { kind: 'fail'; reason?: string }
  | { kind: 'reject'; reason?: string }
  | { kind: 'answer'; text?: string; data?: unknown };

export interface AskOptions<T = unknown> {
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
}

export interface AskAuthOptions {
  message: string;
  /** in-band: credentials arrive in the next message; out-of-band: a callback completes it. */
  mode: 'in-band' | 'out-of-band';
  deadline?: Duration;
  onDeadline?: DeadlineOutcome;
  responders?: string[];
}

export interface ArtifactInput {
  artifactId?: string;
  name?: string;
  description?: string;
  text?: string;
  data?: unknown;
  parts?: WirePart[];
  /** Append these parts to the artifact with the same `artifactId`. */
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

export interface AgentContext {
  readonly taskId: string;
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
  text?: string;
  data?: unknown;
  parts?: WirePart[];
}

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
  pushNotification?: boolean | { url: string; token?: string };
  /** With `pushNotification: true`: how long the call waits for a push before reading the task anyway. Default 1 minute. */
  pushPollInterval?: Duration;
}

export interface RemoteAgentResult {
  /** The remote agent's name, from its card. */
  agent: string;
  /** Absent when the remote agent answered with a message and no task. */
  taskId?: string;
  /** The remote task's final status message (or the remote agent's message). */
  text: string;
  parts: WirePart[];
  artifacts: WireArtifact[];
  /**
   * Set when `artifacts` lacks some of the remote task's: what was left out and why (too large to
   * carry here: each over 512 KB, or beyond 1 MB in all; or dropped by the remote agent itself).
   * The task's status and `metadata.delegations` say it too.
   */
  artifactsOmitted?: string;
}

/** Thrown by agent code to end the task `failed` with a message safe to show clients. */
export class AgentFailure extends Error {
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

/** The remote task ended without completing: `state` says how, `remoteMessage` what it said. */
export class RemoteAgentFailed extends AgentFailure {
  constructor(
    readonly agent: string,
    readonly state: 'failed' | 'rejected' | 'canceled' | 'refused' | 'timed-out' | 'unusable',
    readonly remoteMessage: string,
    readonly taskId?: string,
  ) {
    const outcome = OUTCOMES[state as keyof typeof OUTCOMES] ?? `ended ${state}`;
    super(`The ${agent} agent's task ${outcome}${remoteMessage ? `: ${remoteMessage}` : ''}`);
    this.name = 'RemoteAgentFailed';
  }
}

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
