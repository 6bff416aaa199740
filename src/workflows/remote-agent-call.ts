/**
 * `ctx.callAgent`: a remote A2A task followed durably from this task's workflow. Each step (send,
 * follow, a carried-up question, the answer sent back, cancel) is a journal step, so a run executed
 * again after continue-as-new takes none twice. The remote task is reached only from activities
 * (src/package-activities/remote-agents.ts); this file decides what its states mean for this task.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  sleep,
  uuid4,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Delegation } from '../protocol/contract.js';
import type { PendingQuestion } from '../protocol/question.js';
import {
  followSpacingMs,
  REMOTE_AGENT_REFUSED,
  REMOTE_AGENT_UNUSABLE,
  REMOTE_CANCEL_ACTIVITY,
  REMOTE_FOLLOW_ACTIVITY,
  REMOTE_READ_ACTIVITY,
  REMOTE_SEND_ACTIVITY,
  REMOTE_STREAM_ACTIVITY,
  type RemoteAgentAddress,
  type RemoteSendInput,
  type RemoteStreamInput,
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
import { watchesRemoteQuestions } from './task-patches.js';

type RemoteInput = RemoteSendInput | RemoteTaskInput | RemoteStreamInput;
type RemoteActivity = (input: RemoteInput) => Promise<RemoteTaskSnapshot>;

/** The journal step of a remote task's follow while its question waits here (a wait continue-as-new may cut). */
export const REMOTE_QUESTION_WATCH = 'remote-agent:watch';

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
/** The follow beside a waiting question: its end (an answer came) need not wait for the activity to stop. */
const WATCH_OPTIONS: ActivityOptions = { ...FOLLOW_OPTIONS, cancellationType: ActivityCancellationType.TRY_CANCEL };
/** With `pushNotification: true`, the task is read this often anyway (a push may be lost). */
const DEFAULT_PUSH_POLL_INTERVAL = '1 minute';
/** Canceling, then following the remote task to its end: bounded, so a cancel always ends. */
const CANCEL_OPTIONS: ActivityOptions = {
  ...FOLLOW_OPTIONS,
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
};

export interface RemoteCallHost {
  runtime: TaskRuntime;
  journal: AgentJournal;
  /** Asks this task's question and waits for the answer, or until `withdrawn` holds (agent-context.ts). */
  ask(question: PendingQuestion, deadline?: Duration, withdrawn?: () => boolean): Promise<Reply | undefined>;
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
  const remote = async (name: string, activityOptions: ActivityOptions, summary: string, input: RemoteInput) => {
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
  // Calls recorded before release 7 wait for an answer without following the remote task.
  const watchesQuestions = journal.decision('remote-agent:watches-questions', watchesRemoteQuestions, false);
  const streaming = options.streaming === true || options.resubscribe === true;
  const finishedMarker = options.finishedMarker ? { finishedMarker: options.finishedMarker } : {};
  /** The stream activity, its artifacts' chunks taken while it runs (task-runtime.ts mirrorRemoteArtifacts). */
  const stream = async (summary: string, input: Omit<RemoteStreamInput, keyof RemoteAgentAddress | 'callId'>) => {
    runtime.remoteStreams.add(callId);
    try {
      const resubscribe = options.resubscribe === true && { resubscribe: true };
      return await remote(REMOTE_STREAM_ACTIVITY, FOLLOW_OPTIONS, summary, {
        ...address,
        callId,
        ...resubscribe,
        ...finishedMarker,
        ...input,
      });
    } finally {
      runtime.remoteStreams.delete(callId);
    }
  };
  const { pushNotification } = options;
  const pushTo = typeof pushNotification === 'object' ? pushNotification : undefined;
  // The push's token, fixed in the journal: a push with another one is refused (task-runtime.ts).
  const pushToken = pushNotification
    ? journal.effect('remote-agent:push-token', () => pushTo?.token ?? uuid4())
    : undefined;
  // Pushes to this gateway are taken from before the send: the remote task may change at once.
  const pushesHere = pushNotification === true;
  if (pushesHere) runtime.remotePushes.set(pushToken!, false);
  const firstMessage = {
    messageId: callId,
    parts: partsOf(message),
    idempotencyKey: `${runtime.record.id}:${callId}`,
    ...(pushToken && { push: { token: pushToken, ...(pushTo && { url: pushTo.url }) } }),
  };
  const first = await journal.step('remote-agent:send', async (): Promise<SendOutcome> =>
    sendOutcome(() =>
      streaming
        ? stream(`call ${url}`, firstMessage)
        : remote(REMOTE_SEND_ACTIVITY, SEND_OPTIONS, `call ${url}`, { ...address, ...firstMessage }),
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
  const remoteTask = (): RemoteTaskInput => ({ ...address, taskId: snapshot.taskId!, ...finishedMarker });

  /** Reads the remote task each time a push wakes the call (or the poll interval passes), until it needs us. */
  const followPushes = async (input: RemoteTaskInput) => {
    const since = Date.now();
    const interval = options.pushPollInterval ?? DEFAULT_PUSH_POLL_INTERVAL;
    for (;;) {
      await condition(() => runtime.remotePushes.get(pushToken!) === true, interval);
      // A chatty remote agent wakes the call no more often than a stream's batches come.
      const spacing = followSpacingMs(Date.now() - since);
      await sleep(spacing);
      runtime.remotePushes.set(pushToken!, false);
      const read = await remote(
        REMOTE_READ_ACTIVITY,
        SEND_OPTIONS,
        `read ${snapshot.agent} task ${input.taskId}`,
        input,
      );
      if (read.finished || (isSettled(read.state) && read.statusKey !== input.answeredStatus)) return read;
    }
  };
  const follow = () => {
    const summary = `follow ${snapshot.agent} task ${snapshot.taskId}`;
    const answered = answeredStatus && { answeredStatus };
    if (streaming) return stream(summary, { taskId: snapshot.taskId!, ...answered });
    if (pushesHere && first.snapshot.pushing) return followPushes({ ...remoteTask(), ...answered });
    return remote(REMOTE_FOLLOW_ACTIVITY, FOLLOW_OPTIONS, summary, { ...remoteTask(), ...answered });
  };

  /**
   * The remote task's question, asked here while its task is still followed there: if it moves on
   * without the answer (canceled, failed, expired, or answered elsewhere), the question is withdrawn.
   */
  const askWatched = async (question: PendingQuestion) => {
    let moved: RemoteTaskSnapshot | undefined;
    const asked = host.ask(question, options.questionDeadline, () => moved !== undefined);
    const watched = journal.step(REMOTE_QUESTION_WATCH, async () => {
      const scope = new CancellationScope();
      const input = { ...remoteTask(), answeredStatus: snapshot.statusKey };
      const summary = `watch ${snapshot.agent} task ${snapshot.taskId}`;
      const following = scope.run(() => remote(REMOTE_FOLLOW_ACTIVITY, WATCH_OPTIONS, summary, input));
      const ended = await Promise.race([following, asked.then(noMove, noMove)]);
      if (ended) moved = ended;
      else {
        scope.cancel();
        following.catch(noMove);
      }
      return ended;
    });
    const [reply, ended] = await Promise.all([asked, watched]);
    return reply ?? ended!;
  };

  let refusal: string | undefined;
  let answeredStatus: string | undefined;
  const converse = async () => {
    while (!isTerminal(snapshot.state) && !snapshot.finished) {
      if (!isSettled(snapshot.state)) {
        track(await journal.step('remote-agent:follow', follow));
        continue;
      }
      // The remote task waits for input: ask it here, and send the answer back.
      const question = carriedQuestion(url, snapshot, options, refusal);
      const asked = watchesQuestions ? await askWatched(question) : await host.ask(question, options.questionDeadline);
      if (asked && !('messageId' in asked)) {
        const note = movedOnText(asked, question.prompt);
        journal.effect('remote-agent:withdrawn', () => {
          runtime.changeState('working', { message: agentMessage(runtime, note), by: 'worker' });
        });
        withdrawal = note;
        refusal = undefined;
        answeredStatus = undefined;
        track(asked);
        continue;
      }
      const reply = asked!;
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
      const questionStatus = snapshot.statusKey;
      refusal = 'refused' in sent ? sent.refused : undefined;
      // Refused: the remote task may have ended meanwhile, or wants a better answer: look again.
      // Taken: the remote agent may show the answered question until it has read the answer.
      answeredStatus = refusal ? undefined : questionStatus;
      const next = 'refused' in sent ? snapshot : sent.snapshot;
      track(next.statusKey === questionStatus ? { ...next, state: 'working' } : next);
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
  /** Cancels the remote task, and ends once it has. */
  const cancelRemote = () =>
    CancellationScope.nonCancellable(async () => {
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
  let withdrawal: string | undefined;
  try {
    await conversation.run(converse);
  } catch (error) {
    // Canceled here: cancel there.
    if (isCancellation(error) && snapshot.taskId && !isTerminal(snapshot.state)) await cancelRemote();
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
    if (pushesHere) runtime.remotePushes.delete(pushToken!);
  }
  // Answered with the finished marker: the remote task waits for its caller to cancel it.
  const finished = snapshot.finished ? snapshot : undefined;
  if (finished) await cancelRemote();
  else if (snapshot.state !== 'completed') {
    const said = snapshot.text || withdrawal || '';
    throw new RemoteAgentFailed(snapshot.agent, snapshot.state as 'failed', said, snapshot.taskId);
  }
  const answer = finished ?? snapshot;
  return {
    agent: snapshot.agent,
    ...(snapshot.taskId && { taskId: snapshot.taskId }),
    text: answer.text,
    parts: answer.parts,
    artifacts: snapshot.artifacts,
    ...(snapshot.artifactsOmitted && { artifactsOmitted: snapshot.artifactsOmitted }),
  };
}

function noMove(): undefined {
  return undefined;
}

/** Why a remote agent's question no longer waits here. */
function movedOnText(moved: RemoteTaskSnapshot, prompt: string): string {
  const how = isTerminal(moved.state) ? `ended ${moved.state}` : `went on (${moved.state}) without this answer`;
  return `The ${moved.agent} agent's task ${how} while its question waited here; the question "${prompt}" is withdrawn`;
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
