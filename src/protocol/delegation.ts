/**
 * Delegation to a remote A2A agent: what the task workflow (sandbox) and the delegation activities
 * (Node, src/delegation) say to each other. A remote task is followed from activities; its state
 * comes back to the workflow as a RemoteTaskSnapshot after each step. Pure: no Node, no SDK.
 */
import type { PendingQuestion } from './contract.js';
import type { TaskStateName } from './states.js';
import type { JsonObject, WireArtifact, WirePart } from './wire.js';

/** The delegation activities, registered by the agents plugin beside the project's own. */
export const REMOTE_SEND_ACTIVITY = 'a2aTemporal.remoteAgent.send';
export const REMOTE_FOLLOW_ACTIVITY = 'a2aTemporal.remoteAgent.follow';
export const REMOTE_CANCEL_ACTIVITY = 'a2aTemporal.remoteAgent.cancel';

/** Failure types the activities end with when retrying cannot help. */
export const REMOTE_AGENT_REFUSED = 'RemoteAgentRefused';
export const REMOTE_CREDENTIALS_MISSING = 'RemoteCredentialsMissing';

/** A2A transports as agent cards name them. */
export type RemoteTransport = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/**
 * How the worker authenticates to the remote agent: the secret is read from the worker's
 * environment by the activity, so that only the variable's name is ever in the task's history.
 */
export type RemoteCredentials =
  | { bearerTokenEnv: string }
  | {
      apiKeyEnv: string;
      /** Default 'x-api-key'. */
      header?: string;
    };

/** Where the remote agent is and how to reach it. */
export interface RemoteAgentAddress {
  /** The agent's card URL, or its base URL (the card is at `/.well-known/agent-card.json` below it). */
  url: string;
  /** The transport to prefer; default: the card's preferred one. */
  transport?: RemoteTransport;
  credentials?: RemoteCredentials;
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
}

export interface RemoteTaskInput extends RemoteAgentAddress {
  taskId: string;
  /**
   * Following after an answer: a status with this `statusKey` is the question answered, not yet
   * the agent's next state (an agent may show it until it has read the answer).
   */
  answeredStatus?: string;
}

/** A remote task as the calling task sees it after a step. */
export interface RemoteTaskSnapshot {
  /** The remote agent's name, from its card. */
  agent: string;
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
  /** What the remote agent's question expects, where it says (this runtime's `metadata.pendingQuestion`). */
  question?: Pick<PendingQuestion, 'schema' | 'expects' | 'details' | 'outOfBand'>;
}
