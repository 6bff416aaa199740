/**
 * Delegation to a remote A2A agent: what the task workflow (sandbox) and the delegation activities
 * (Node, src/delegation) say to each other. A remote task is followed from activities; its state
 * comes back to the workflow as a RemoteTaskSnapshot after each step. Pure: no Node, no SDK.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PendingQuestion } from './question.js';
import type { TaskStateName } from './states.js';
import type { JsonObject, WireArtifact, WirePart } from './wire.js';

/** The delegation activities, registered by the agents plugin beside the project's own. */
export const REMOTE_SEND_ACTIVITY = 'a2aTemporal.remoteAgent.send';
export const REMOTE_FOLLOW_ACTIVITY = 'a2aTemporal.remoteAgent.follow';
export const REMOTE_CANCEL_ACTIVITY = 'a2aTemporal.remoteAgent.cancel';
/** Sends the first message by SendStreamingMessage (or subscribes), and follows the task on the stream. */
export const REMOTE_STREAM_ACTIVITY = 'a2aTemporal.remoteAgent.stream';
/** One GetTask: what a push to this gateway woke the call to read. */
export const REMOTE_READ_ACTIVITY = 'a2aTemporal.remoteAgent.read';

/** Where remote tasks push to this gateway (`POST <A2A_PUBLIC_URL>/a2a-temporal/remote-push/<calling task id>`). */
export const REMOTE_PUSH_PATH = '/a2a-temporal/remote-push';

/** Failure types the activities end with when retrying cannot help. */
export const REMOTE_AGENT_REFUSED = 'RemoteAgentRefused';
export const REMOTE_CREDENTIALS_MISSING = 'RemoteCredentialsMissing';
/**
 * The call cannot go on, however often it is tried: a URL fetch refuses (a blocked port, a scheme
 * that is not HTTP), a card the agent does not serve (4xx), a name the project config lacks, a
 * result too large to carry. The workflow throws RemoteAgentFailed with state 'unusable'.
 */
export const REMOTE_AGENT_UNUSABLE = 'RemoteAgentUnusable';

/** A2A transports as agent cards name them. */
export type RemoteTransport = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/**
 * How the worker authenticates to the remote agent: the secret is read from the worker's
 * environment by the activity, so that only the variable's name is ever in the task's history.
 */
export type RemoteCredentials =
  | {
      /** The worker's environment variable whose value is sent as `Authorization: Bearer <value>`. */
      bearerTokenEnv: string;
    }
  | {
      /** The worker's environment variable whose value is sent as an API key, in `header`. */
      apiKeyEnv: string;
      /** Default 'x-api-key'. */
      header?: string;
    };

/**
 * The keys the remote agent's v1.0 card must be signed with (A2A `AgentCard.signatures`): the URL of
 * its JWKS, or its public JWKs. With them, an unsigned card, or one its signatures do not cover as
 * served, fails the call at once (src/delegation/card-verification.ts).
 */
export type RemoteCardKeys =
  | {
      /** The URL of the JWKS holding the keys. */
      jwksUrl: string;
    }
  | {
      /** The public keys, as JWKs. */
      keys: JsonObject[];
    };

/** Where the remote agent is and how to reach it. */
export interface RemoteAgentAddress {
  /**
   * The agent's card URL, or its base URL (the card is at `/.well-known/agent-card.json` below it),
   * or the name of a remote agent in the project config (`remoteAgents`; a name has no `:`).
   */
  url: string;
  /** The transport to prefer; default: the card's preferred one. */
  transport?: RemoteTransport;
  /** How the worker authenticates to the agent; default: not at all. */
  credentials?: RemoteCredentials;
  /** The keys the agent's card must be signed with; default: the card is not checked. */
  cardKeys?: RemoteCardKeys;
}

export interface RemoteSendInput extends RemoteAgentAddress {
  /** Fixed per call (derived from the calling task): a retried send is the same message. */
  messageId: string;
  parts: WirePart[];
  /** A follow-up to this remote task. */
  taskId?: string;
  contextId?: string;
  /** Sent as `Idempotency-Key`: a first message resent after a lost answer finds the same task. */
  idempotencyKey?: string;
  metadata?: JsonObject;
  /**
   * The remote task's push config: it pushes to `url`, or without one to this gateway's
   * REMOTE_PUSH_PATH for the calling task; `token` comes back in X-A2A-Notification-Token.
   */
  push?: { url?: string; token: string };
}

/** The first message sent on a stream, or (with `taskId` and no `parts`) a subscription to the task. */
export interface RemoteStreamInput extends Omit<RemoteSendInput, 'messageId' | 'parts'> {
  /** Names the call's RemoteArtifactChunks, so that this task mirrors them into its own artifacts. */
  callId: string;
  messageId?: string;
  parts?: WirePart[];
  /** Leave the send's stream as soon as it names the task, and follow it by SubscribeToTask. */
  resubscribe?: boolean;
  /** As RemoteTaskInput's: a status that is the question answered, not the task's next state. */
  answeredStatus?: string;
  /** As RemoteTaskInput's. */
  finishedMarker?: string;
}

export interface RemoteTaskInput extends RemoteAgentAddress {
  taskId: string;
  /**
   * Following after an answer: a status with this `statusKey` is the question answered, not yet
   * the agent's next state (an agent may show it until it has read the answer).
   */
  answeredStatus?: string;
  /** The call's `finishedMarker`: an agent message of the unfinished task with this text is its answer. */
  finishedMarker?: string;
}

/**
 * The remote artifacts' chunks as they stream, for this task to publish as its own: each the
 * artifact's parts from index `offset` on, so a resumed stream (whose first event repeats the whole
 * artifact) adds only what this task lacks.
 */
export interface RemoteArtifactChunks {
  callId: string;
  /** The remote task's ID: this task's copy of artifact A is `<taskId>-<A>`. */
  taskId: string;
  chunks: {
    artifactId: string;
    name?: string;
    offset: number;
    parts: WirePart[];
    lastChunk?: boolean;
  }[];
}

export const remoteArtifactsSignal = defineSignal<[RemoteArtifactChunks]>('remoteArtifacts');

/** A remote task pushed to this gateway: wakes the call that follows it (refused unless `token` is that call's). */
export const remotePushUpdate = defineUpdate<void, [{ token: string }]>('remotePush');
/** Refusals of remotePushUpdate: no call waits with this token; a wake is already pending. */
export const REMOTE_PUSH_UNKNOWN = 'RemotePushUnknown';
export const REMOTE_PUSH_PENDING = 'RemotePushPending';

/**
 * How long a streamed batch (or a pushed wake) may wait after the last: 250 ms, or 1% of how long
 * the call has followed the task if more. A reader sees chunks within 1% of the stream's age, and a
 * stream's signals grow with the log of its length (about 600 in an hour, 900 in a day), not with
 * its chunks: the calling task's history stays far below Temporal's limits however chatty the remote.
 */
export function followSpacingMs(followedForMs: number): number {
  return Math.max(250, followedForMs / 100);
}

/** Where a remote agent is, as configured for each deployment (`remoteAgents` in the project config). */
export interface RemoteAgentConfig {
  /** Its card URL or base URL; or, with `urlEnv`, the worker's environment variable that holds it. */
  url?: string;
  /** The worker's environment variable that holds the URL, read at each call (exactly one of `url` and `urlEnv`). */
  urlEnv?: string;
  /** The transport to prefer, when the call gives none of its own; default: the card's preferred one. */
  transport?: RemoteTransport;
  /** Used when the call gives none of its own. */
  credentials?: RemoteCredentials;
  /** Used when the call gives none of its own. */
  cardKeys?: RemoteCardKeys;
}

/** A remote task as the calling task sees it after a step. */
export interface RemoteTaskSnapshot {
  /** The remote agent's name, from its card. */
  agent: string;
  /** Where the agent was reached, when the call named it by its name in the project config. */
  url?: string;
  /** Absent when the remote agent answered with a message and no task. */
  taskId?: string;
  contextId?: string;
  state: TaskStateName;
  /** Tells one status from the next (its state and timestamp). */
  statusKey: string;
  /** The remote status message's parts (its question, its answer, or why it failed). */
  parts: WirePart[];
  /** Their text, joined. */
  text: string;
  artifacts: WireArtifact[];
  /**
   * Why some of the remote task's artifacts are not in `artifacts`: too large to carry into this
   * task, or dropped by the remote agent itself (this runtime's `metadata.artifactsOmitted`).
   */
  artifactsOmitted?: string;
  /**
   * What the remote agent's question expects, where it says (this runtime's `metadata.pendingQuestion`);
   * `from` when the remote agent carried it up from an agent of its own.
   */
  question?: Pick<PendingQuestion, 'schema' | 'expects' | 'details' | 'outOfBand' | 'from'>;
  /** Set by the first send when the remote agent took the push config (its card says it pushes). */
  pushing?: boolean;
  /**
   * Set when the unfinished task has an agent message with the call's `finishedMarker`: `parts` and
   * `text` are that message's, the task's answer though it has not ended.
   */
  finished?: boolean;
}
