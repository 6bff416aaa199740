/**
 * The delegation activities (src/activities/remote-agents.ts, remote-streams.ts) on the address each
 * call means, registered by the agents plugin beside the project's own.
 */
import {
  REMOTE_CANCEL_ACTIVITY,
  REMOTE_FOLLOW_ACTIVITY,
  REMOTE_READ_ACTIVITY,
  REMOTE_SEND_ACTIVITY,
  REMOTE_STREAM_ACTIVITY,
  type RemoteAgentConfig,
  type RemoteSendInput,
  type RemoteStreamInput,
  type RemoteTaskInput,
  type RemoteTaskSnapshot,
} from '../protocol/delegation.js';
import { resolveAddress } from '../delegation/remote-agents.js';
import { finalFailureOf } from '../delegation/remote-failures.js';
import { cancelRemoteTask, followRemoteTask, readRemoteTask, sendToRemoteAgent } from './remote-agents.js';
import { streamRemoteTask } from './remote-streams.js';

/** `remoteAgents`: the project config's agents, which calls may name instead of a URL. */
export function createDelegationActivities(remoteAgents: Readonly<Record<string, RemoteAgentConfig>> = {}) {
  /** The activity on the address the call means, failing for good where no retry can help. */
  const resolving =
    <I extends RemoteTaskInput | RemoteSendInput | RemoteStreamInput>(
      activity: (input: I) => Promise<RemoteTaskSnapshot>,
    ) =>
    async (input: I): Promise<RemoteTaskSnapshot> => {
      try {
        const address = resolveAddress(input, remoteAgents);
        const snapshot = await activity({ ...input, ...address });
        // A named agent: the calling task shows where it was reached.
        return address.url === input.url ? snapshot : { ...snapshot, url: address.url };
      } catch (error) {
        throw finalFailureOf(error);
      }
    };
  return {
    [REMOTE_SEND_ACTIVITY]: resolving(sendToRemoteAgent),
    [REMOTE_FOLLOW_ACTIVITY]: resolving(followRemoteTask),
    [REMOTE_CANCEL_ACTIVITY]: resolving(cancelRemoteTask),
    [REMOTE_STREAM_ACTIVITY]: resolving(streamRemoteTask),
    [REMOTE_READ_ACTIVITY]: resolving(readRemoteTask),
  };
}
