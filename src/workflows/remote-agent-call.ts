/**
 * `ctx.callAgent`: a remote A2A task followed durably from this task's workflow. Each step (send,
 * follow, a carried-up question, the answer sent back, cancel) is a journal step, so a run executed
 * again after continue-as-new takes none twice. The remote task is reached only from activities
 * (src/activities/remote-agents.ts); this file decides what its states mean for this task.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  sleep,
  uuid4,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Delegation, PendingQuestion } from '../protocol/contract.js';
import {
  REMOTE_AGENT_REFUSED,
  REMOTE_AGENT_UNUSABLE,
  REMOTE_CANCEL_ACTIVITY,
  REMOTE_FOLLOW_ACTIVITY,
  REMOTE_SEND_ACTIVITY,
  type RemoteAgentAddress,
  type RemoteSendInput,
  type RemoteTaskInput,
  type RemoteTaskSnapshot,
} from '../protocol/delegation.js';
import { isSettled, isTerminal } from '../protocol/states.js';
import type { WirePart } from '../protocol/wire.js';
import {
  RemoteAgentFailed,
  type CallAgentOptions,
  type RemoteAgentResult,
  type RemoteMessage,
  type Reply,
} from './agent-api.js';
import type { AgentJournal } from './agent-journal.js';
import { agentMessage, type TaskRuntime } from './task-runtime.js';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';
import { uiText } from '../protocol/ui-text.js';

type RemoteActivity = (input: RemoteSendInput | RemoteTaskInput) => Promise<RemoteTaskSnapshot>;

/** Reaching the remote agent: retried with backoff for as long as it takes (the task shows the retries). */
const SEND_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};
/** Following: polls with heartbeats, so a cancel of this task stops it within a heartbeat. */
const FOLLOW_OPTIONS: ActivityOptions = {
  ...SEND_OPTIONS,
  startToCloseTimeout: '1 hour',
  // Heartbeats carry the cancel to the activity, and are sent at most every 80% of this: a short
  // timeout makes a cancel reach the remote agent within seconds. (The activity polls every <= 4 s.)
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
/** Canceling, then following the remote task to its end: bounded, so a cancel always ends. */
const CANCEL_OPTIONS: ActivityOptions = {
  ...FOLLOW_OPTIONS,
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
};

export interface RemoteCallHost {
  runtime: TaskRuntime;
  journal: AgentJournal;
  /** Asks this task's question and waits for the answer (agent-context.ts `waitForReply`). */
  ask(question: PendingQuestion, deadline?: Duration): Promise<Reply>;
}

/** A send refused by the remote agent (e.g. an answer its schema rejects), recorded rather than thrown. */
type SendOutcome = { snapshot: RemoteTaskSnapshot } | { refused: string };

export async function callRemoteAgent(
  host: RemoteCallHost,
  url: string,
  message: string | RemoteMessage,
  options: CallAgentOptions = {},
): Promise<RemoteAgentResult> {
  const { runtime, journal } = host;
  const address: RemoteAgentAddress = {
    url,
    ...(options.transport && { transport: options.transport }),
    ...(options.credentials && { credentials: options.credentials }),
    ...(options.cardKeys && { cardKeys: options.cardKeys }),
  };
  const remote = async (
    name: string,
    activityOptions: ActivityOptions,
    summary: string,
    input: RemoteSendInput | RemoteTaskInput,
  ) => {
    const activities = proxyActivities<Record<string, RemoteActivity>>(activityOptions);
    try {
      return await activities[name]!.executeWithOptions({ summary: uiText(summary) }, [input]);
    } catch (error) {
      // No retry can mend it (a URL fetch refuses, no card there, a result too large): fail now.
      const cause = error instanceof ActivityFailure ? error.cause : undefined;
      if (cause instanceof ApplicationFailure && cause.type === REMOTE_AGENT_UNUSABLE) {
        throw new RemoteAgentFailed(url, 'unusable', cause.message);
      }
      throw error;
    }
  };

  // One ID per call, fixed in the journal: the first message's ID, and the remote task's idempotency key.
  const callId = journal.effect('remote-agent:call', () => uuid4());
  const first = await journal.step('remote-agent:send', async (): Promise<SendOutcome> =>
    sendOutcome(() =>
      remote(REMOTE_SEND_ACTIVITY, SEND_OPTIONS, `call ${url}`, {
        ...address,
        messageId: callId,
        parts: partsOf(message),
        idempotencyKey: `${runtime.record.id}:${callId}`,
      }),
    ),
  );
  if ('refused' in first) throw new RemoteAgentFailed(url, 'refused', first.refused);
  let snapshot = first.snapshot;
  const delegation = journal.effect('remote-agent:track', () => {
    noteOmittedArtifacts(runtime, undefined, snapshot);
    return runtime.record.trackDelegation(delegationOf(url, snapshot));
  });
  const track = (next: RemoteTaskSnapshot) => {
    const previous = snapshot;
    snapshot = next;
    journal.effect('remote-agent:track', () => {
      noteOmittedArtifacts(runtime, previous, next);
      runtime.record.trackDelegation(delegationOf(url, next), delegation);
    });
  };
  const remoteTask = (): RemoteTaskInput => ({ ...address, taskId: snapshot.taskId! });

  let refusal: string | undefined;
  let answeredStatus: string | undefined;
  const converse = async () => {
    while (!isTerminal(snapshot.state)) {
      if (!isSettled(snapshot.state)) {
        const followed = await journal.step('remote-agent:follow', () =>
          remote(REMOTE_FOLLOW_ACTIVITY, FOLLOW_OPTIONS, `follow ${snapshot.agent} task ${snapshot.taskId}`, {
            ...remoteTask(),
            ...(answeredStatus && { answeredStatus }),
          }),
        );
        track(followed);
        continue;
      }
      // The remote task waits for input: ask it here, and send the answer back.
      const reply = await host.ask(carriedQuestion(url, snapshot, options, refusal), options.questionDeadline);
      const sent = await journal.step('remote-agent:send', async (): Promise<SendOutcome> => {
        const messageId = uuid4();
        return sendOutcome(() =>
          remote(REMOTE_SEND_ACTIVITY, SEND_OPTIONS, `answer ${snapshot.agent} task ${snapshot.taskId}`, {
            ...remoteTask(),
            messageId,
            ...(snapshot.contextId && { contextId: snapshot.contextId }),
            parts: reply.parts,
          }),
        );
      });
      const question = snapshot.statusKey;
      refusal = 'refused' in sent ? sent.refused : undefined;
      // Refused: the remote task may have ended meanwhile, or wants a better answer: look again.
      // Taken: the remote agent may show the answered question until it has read the answer.
      answeredStatus = refusal ? undefined : question;
      const next = 'refused' in sent ? snapshot : sent.snapshot;
      track(next.statusKey === question ? { ...next, state: 'working' } : next);
    }
  };

  // The call's deadline, fixed in the journal: a run executed again after continue-as-new keeps it.
  const deadline =
    options.deadline === undefined
      ? undefined
      : journal.effect('remote-agent:deadline', () => Date.now() + msToNumber(options.deadline!));
  const conversation = new CancellationScope();
  const deadlineTimer = new CancellationScope();
  let timedOut = false;
  if (deadline !== undefined) {
    void deadlineTimer
      .run(() => sleep(Math.max(deadline - Date.now(), 1), { summary: `deadline of ${uiText(url)}` }))
      .then(
        () => {
          timedOut = true;
          conversation.cancel();
        },
        () => undefined,
      );
  }
  try {
    await conversation.run(converse);
  } catch (error) {
    if (isCancellation(error) && snapshot.taskId && !isTerminal(snapshot.state)) {
      // Canceled here: cancel there, and end once the remote task has.
      await CancellationScope.nonCancellable(async () => {
        const canceled = await journal.step('remote-agent:cancel', () =>
          remote(
            REMOTE_CANCEL_ACTIVITY,
            CANCEL_OPTIONS,
            `cancel ${snapshot.agent} task ${snapshot.taskId}`,
            remoteTask(),
          ),
        );
        track(canceled);
      });
    }
    if (timedOut && isCancellation(error)) {
      throw new RemoteAgentFailed(
        snapshot.agent,
        'timed-out',
        `no outcome within ${String(options.deadline)}`,
        snapshot.taskId,
      );
    }
    throw error;
  } finally {
    deadlineTimer.cancel();
  }
  if (snapshot.state !== 'completed') {
    throw new RemoteAgentFailed(snapshot.agent, snapshot.state as 'failed', snapshot.text, snapshot.taskId);
  }
  return {
    agent: snapshot.agent,
    ...(snapshot.taskId && { taskId: snapshot.taskId }),
    text: snapshot.text,
    parts: snapshot.parts,
    artifacts: snapshot.artifacts,
    ...(snapshot.artifactsOmitted && { artifactsOmitted: snapshot.artifactsOmitted }),
  };
}

/** Artifacts that did not come back are said in this task's status, once, not only in metadata. */
function noteOmittedArtifacts(
  runtime: TaskRuntime,
  previous: RemoteTaskSnapshot | undefined,
  next: RemoteTaskSnapshot,
) {
  if (!next.artifactsOmitted || next.artifactsOmitted === previous?.artifactsOmitted) return;
  runtime.changeState('working', { message: agentMessage(runtime, next.artifactsOmitted), by: 'worker' });
}

/** The remote agent's question as this task's: its text, schema and details, marked as its. */
function carriedQuestion(
  url: string,
  snapshot: RemoteTaskSnapshot,
  options: CallAgentOptions,
  refusal: string | undefined,
): PendingQuestion {
  const kind = snapshot.state === 'auth-required' ? 'auth' : 'input';
  const prompt = refusal
    ? `The ${snapshot.agent} agent refused the last answer (${refusal}). ${snapshot.text}`
    : snapshot.text;
  const { responders, notByRequester } = options;
  // The remote agent carried it up from an agent of its own: the question says who asked, through whom.
  const below = snapshot.question?.from;
  const via = below ? [{ agent: below.agent, taskId: below.taskId, url: below.url }, ...(below.via ?? [])] : [];
  return {
    kind,
    prompt: prompt || `The ${snapshot.agent} agent needs ${kind === 'auth' ? 'authorization' : 'input'}`,
    askedAt: new Date().toISOString(),
    from: { agent: snapshot.agent, taskId: snapshot.taskId!, url: snapshot.url ?? url, ...(via.length > 0 && { via }) },
    ...(snapshot.question?.schema && { schema: snapshot.question.schema }),
    ...(snapshot.question?.expects && { expects: snapshot.question.expects }),
    ...(snapshot.question?.details && { details: snapshot.question.details }),
    ...(responders && { responders }),
    ...(notByRequester && { notByRequester: true }),
  };
}

async function sendOutcome(send: () => Promise<RemoteTaskSnapshot>): Promise<SendOutcome> {
  try {
    return { snapshot: await send() };
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === REMOTE_AGENT_REFUSED) return { refused: cause.message };
    throw error;
  }
}

function partsOf(message: string | RemoteMessage): WirePart[] {
  if (typeof message === 'string') return [{ text: message }];
  return (
    message.parts ?? [
      ...(message.text !== undefined ? [{ text: message.text }] : []),
      ...(message.data !== undefined ? [{ data: message.data }] : []),
    ]
  );
}

function delegationOf(url: string, snapshot: RemoteTaskSnapshot): Delegation {
  return {
    agent: snapshot.agent,
    url: snapshot.url ?? url,
    ...(snapshot.taskId && { taskId: snapshot.taskId }),
    state: snapshot.state,
    ...(snapshot.artifactsOmitted && { artifactsOmitted: snapshot.artifactsOmitted }),
  };
}
