/**
 * Builds the `ctx` an agent's `run` receives. Every effect goes through the journal so the agent
 * can be re-executed after continue-as-new without acting twice.
 */
import {
  ActivityCancellationType,
  patched,
  proxyActivities,
  sleep,
  uuid4,
  type ActivityFunction,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { PendingQuestion } from '../protocol/question.js';
import { UNKNOWN_ACTIVITY } from '../protocol/errors.js';
import { MAX_ARTIFACT_BYTES, sizeProblem } from '../protocol/message-checks.js';
import type { WireArtifact } from '../protocol/wire.js';
import {
  AgentFailure,
  TaskRejection,
  type AgentContext,
  type ArtifactInput,
  type AskAuthOptions,
  type AskOptions,
  type Reply,
  type UserMessage,
} from './agent-api.js';
import type { AgentJournal } from './agent-journal.js';
import { callRemoteAgent, REMOTE_QUESTION_WATCH } from './remote-agent-call.js';
import { authQuestion, deadlineAt, inputQuestion, waitForReply, waitForReplyUnlessWithdrawn } from './reply-wait.js';
import { agentMessage, type TaskRuntime } from './task-runtime.js';
import { uiText } from '../protocol/ui-text.js';

/** Journal kinds that are a wait for a human (and the watch of a remote task beside it): continue-as-new may happen during them. */
export const WAITING_STEPS = ['ask', REMOTE_QUESTION_WATCH] as const;

const DEFAULT_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  // The task ends `canceled` only once the activity has really stopped.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

/** What this package's own agent kinds (the LLM agent) reach beyond the public context. */
export interface AgentInternals {
  runtime: TaskRuntime;
  journal: AgentJournal;
}

const internals = new WeakMap<AgentContext, AgentInternals>();

export function agentInternals(ctx: AgentContext): AgentInternals {
  const found = internals.get(ctx);
  if (!found) throw new TypeError('Not an a2a-temporal agent context');
  return found;
}

/** The context of one lane of a parallel step (AgentJournal.parallel): the same task, the lane's journal. */
export function laneContext(ctx: AgentContext, lane: AgentJournal): AgentContext {
  return createAgentContext(agentInternals(ctx).runtime, lane, ctx.message);
}

export function createAgentContext(runtime: TaskRuntime, journal: AgentJournal, message: UserMessage): AgentContext {
  const ctx = buildAgentContext(runtime, journal, message);
  internals.set(ctx, { runtime, journal });
  return ctx;
}

function buildAgentContext(runtime: TaskRuntime, journal: AgentJournal, message: UserMessage): AgentContext {
  const { record } = runtime;

  return {
    taskId: record.id,
    contextId: record.contextId,
    message,

    status(text) {
      journal.effect('status', () => {
        runtime.changeState('working', { message: agentMessage(runtime, text), by: 'agent' });
      });
    },

    artifact(input: ArtifactInput) {
      return journal.effect('artifact', () => {
        const artifact = artifactOf(input);
        // Appended text continues the text (a streamed answer is one text part); parts are kept as given.
        const textOnly = input.text !== undefined && input.parts === undefined && input.data === undefined;
        record.addArtifact(artifact, input.append ?? false, input.lastChunk ?? false, textOnly);
        return artifact.artifactId;
      });
    },

    async ask<T>(options: string | AskOptions<T>) {
      const ask: AskOptions<T> = typeof options === 'string' ? { question: options } : options;
      const { schema, notify, remind, onDeadline } = ask;
      const wait = { schema, notify, remind, onDeadline };
      return (await waitForReply(runtime, journal, inputQuestion(ask), wait)) as Reply<T>;
    },

    askAuth(options: AskAuthOptions) {
      return waitForReply(runtime, journal, authQuestion(options), { onDeadline: options.onDeadline });
    },

    reject(reason) {
      throw new TaskRejection(reason);
    },

    activities<A extends object>(options: ActivityOptions = {}): A {
      return journaledActivities<A>(journal, options);
    },

    async sleep(duration, summary) {
      await journal.step('sleep', async () => {
        await sleep(duration, { summary: summary === undefined ? 'agent sleep' : uiText(summary) });
      });
    },

    callAgent(url, remoteMessage, options) {
      const ask = (question: PendingQuestion, deadline?: Duration, withdrawn?: () => boolean) => {
        const at = deadlineAt(deadline);
        const asked = at ? { ...question, deadline: at } : question;
        return waitForReplyUnlessWithdrawn(runtime, journal, asked, withdrawn && { withdrawn });
      };
      return callRemoteAgent({ runtime, journal, ask }, url, remoteMessage, options);
    },

    patched(patchId) {
      // Re-executed after continue-as-new, a run has no history to replay, so Temporal's patched()
      // alone would say true where the code before the deploy went the other way: the journal keeps
      // the answer, and steps that code recorded without asking mean it did not take the patch.
      return journal.decision(`patched:${patchId}`, () => patched(patchId), false);
    },
  };
}

/** `ctx.activities`: each call a journal step, so a re-executed agent does not run it twice. */
function journaledActivities<A extends object>(journal: AgentJournal, options: ActivityOptions): A {
  const proxied = proxyActivities<Record<string, ActivityFunction>>({ ...DEFAULT_ACTIVITY_OPTIONS, ...options });
  return new Proxy({} as A, {
    get: (_, name) =>
      typeof name === 'string'
        ? (...args: unknown[]) =>
            journal.step(`activity:${name}`, () =>
              proxied[name]!.executeWithOptions({ summary: uiText(name) }, args).catch((error: unknown) => {
                // A setup mistake, not a secret: the task says what is missing.
                const cause = (error as { cause?: { type?: string; message?: string } }).cause;
                if (cause?.type === UNKNOWN_ACTIVITY) throw new AgentFailure(cause.message ?? String(error));
                throw error;
              }),
            )
        : undefined,
  });
}

/** `ctx.artifact`'s input as the artifact the task records, within the size limit. */
function artifactOf(input: ArtifactInput): WireArtifact {
  const artifactId = input.artifactId ?? uuid4();
  const parts = input.parts ?? [
    ...(input.text !== undefined ? [{ text: input.text }] : []),
    ...(input.data !== undefined ? [{ data: input.data }] : []),
  ];
  const tooLarge = sizeProblem(parts, MAX_ARTIFACT_BYTES, `Artifact ${input.name ?? artifactId}`);
  if (tooLarge) throw new AgentFailure(tooLarge);
  return {
    artifactId,
    parts,
    ...(input.name && { name: input.name }),
    ...(input.description && { description: input.description }),
    ...(input.metadata && { metadata: input.metadata }),
  };
}
