/**
 * The delegation activities (src/package-activities/remote-agents.ts, remote-streams.ts) on the address each
 * call means, registered by the agents plugin beside the project's own.
 */
import {
  REMOTE_CANCEL_ACTIVITY,
  REMOTE_FOLLOW_ACTIVITY,
  REMOTE_PUSH_PATH,
  REMOTE_READ_ACTIVITY,
  REMOTE_SEND_ACTIVITY,
  REMOTE_STREAM_ACTIVITY,
  type RemoteAgentConfig,
  type RemoteSendInput,
  type RemoteStreamInput,
  type RemoteTaskInput,
  type RemoteTaskSnapshot,
} from '../protocol/delegation.js';
import { Context } from '@temporalio/activity';
import { taskIdOfWorkflow } from '../protocol/contract.js';
import { resolveAddress } from '../delegation/remote-agents.js';
import { finalFailureOf } from '../delegation/remote-failures.js';
import { cancelRemoteTask, followRemoteTask, readRemoteTask, sendToRemoteAgent } from './remote-agents.js';
import { streamRemoteTask } from './remote-streams.js';

/**
 * `remoteAgents`: the project config's agents, which calls may name instead of a URL; `publicUrl`:
 * this gateway's, where remote tasks push unless the call names another URL.
 */
export function createDelegationActivities(
  remoteAgents: Readonly<Record<string, RemoteAgentConfig>>,
  publicUrl: string,
) {
  /** The activity on the address the call means, failing for good where no retry can help. */
  const resolving =
    <I extends RemoteTaskInput | RemoteSendInput | RemoteStreamInput>(
      activity: (input: I) => Promise<RemoteTaskSnapshot>,
    ) =>
    async (input: I): Promise<RemoteTaskSnapshot> => {
      try {
        const address = resolveAddress(input, remoteAgents);
        const snapshot = await activity({ ...input, ...address, ...pushToThisGateway(input, publicUrl) });
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

/** A push config without a URL: this gateway's route for the calling task's remote tasks (src/gateway/remote-pushes.ts). */
function pushToThisGateway(input: object, publicUrl: string): Pick<RemoteSendInput, 'push'> {
  const { push } = input as Pick<RemoteSendInput, 'push'>;
  if (!push || push.url) return {};
  const callingTask = taskIdOfWorkflow(Context.current().info.workflowExecution?.workflowId ?? '');
  return { push: { ...push, url: `${publicUrl}${REMOTE_PUSH_PATH}/${encodeURIComponent(callingTask ?? '')}` } };
}
