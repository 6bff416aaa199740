/**
 * Builds the `ctx` an agent's `run` receives. Every effect goes through the journal so the agent
 * can be re-executed after continue-as-new without acting twice.
 */
import {
  ActivityCancellationType,
  condition,
  patched,
  proxyActivities,
  sleep,
  uuid4,
  type ActivityFunction,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { toJSONSchema, type ZodType } from 'zod';
import type { PendingQuestion } from '../protocol/contract.js';
import { UNKNOWN_ACTIVITY } from '../protocol/errors.js';
import { MAX_ARTIFACT_BYTES, sizeProblem } from '../protocol/message-checks.js';
import type { JsonObject, WireMessage, WirePart } from '../protocol/wire.js';
import {
  AgentFailure,
  type AgentContext,
  type ArtifactInput,
  type AskAuthOptions,
  type AskOptions,
  type DeadlineOutcome,
  type Reply,
  type UserMessage,
} from './agent-api.js';
import type { AgentJournal } from './agent-journal.js';
import { callRemoteAgent } from './remote-agent-call.js';
import type { ReplyWait, ReplyWaitOptions } from './reply-wait.js';
import type { TaskRuntime } from './task-runtime.js';
import { msToNumber } from './temporal-sdk-compat.js';

/** Thrown by `ctx.reject` (and a deadline whose outcome is reject); ends the task `rejected`. */
export class TaskRejection extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TaskRejection';
  }
}

/** Journal kinds that are a wait for a human: continue-as-new may happen during them. */
export const WAITING_STEPS = ['ask'] as const;

const DEFAULT_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  // The task ends `canceled` only once the activity has really stopped.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};

export function agentMessage(runtime: TaskRuntime, text: string): WireMessage {
  return {
    messageId: uuid4(),
    contextId: runtime.record.contextId,
    taskId: runtime.record.id,
    role: 'ROLE_AGENT',
    parts: [{ text }],
  };
}

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

export function createAgentContext(runtime: TaskRuntime, journal: AgentJournal, message: UserMessage): AgentContext {
  const ctx = buildAgentContext(runtime, journal, message);
  internals.set(ctx, { runtime, journal });
  return ctx;
}

function buildAgentContext(runtime: TaskRuntime, journal: AgentJournal, message: UserMessage): AgentContext {
  const { record } = runtime;

  /** Asks `question` and waits for its reply or its deadline (reply-wait.ts). */
  async function waitForReply(question: PendingQuestion, { onDeadline: outcome, ...options }: ReplyWaitOptions = {}) {
    return journal.step('ask', async (resumed): Promise<Reply> => {
      // A question resumed after continue-as-new is the one the task kept, with the deadline it was asked with.
      const wait: ReplyWait = { ...options, question: resumed && record.pending ? record.pending : question };
      if (!resumed) {
        const message = agentMessage(runtime, question.prompt);
        if (question.details) message.parts.push({ data: question.details });
        runtime.askQuestion(question, message);
      }
      runtime.startWaiting(wait);
      try {
        const { deadline, prompt } = wait.question;
        const remaining = deadline ? Date.parse(deadline) - Date.now() : undefined;
        const answered =
          remaining === undefined
            ? (await condition(() => wait.reply !== undefined), true)
            : await condition(() => wait.reply !== undefined, Math.max(remaining, 1), {
                summary: `deadline: ${prompt.slice(0, 60)}`,
              });
        if (answered && wait.reply) return wait.reply;
        return onDeadline(outcome ?? { kind: 'fail' });
      } finally {
        runtime.stopWaiting();
      }
    });
  }

  function onDeadline(outcome: DeadlineOutcome): Reply {
    if (outcome.kind === 'reject') throw new TaskRejection(outcome.reason ?? 'No answer before the deadline');
    if (outcome.kind === 'fail') throw new AgentFailure(outcome.reason ?? 'No answer before the deadline');
    const parts: WirePart[] = [];
    if (outcome.text) parts.push({ text: outcome.text });
    if (outcome.data !== undefined) parts.push({ data: outcome.data });
    runtime.changeState('working', { by: 'deadline' });
    return {
      messageId: '',
      text: outcome.text ?? '',
      parts,
      data: outcome.data,
      value: outcome.data,
      responder: 'deadline',
      timedOut: true,
    };
  }

  function deadlineAt(deadline?: Duration): string | undefined {
    return deadline === undefined ? undefined : new Date(Date.now() + msToNumber(deadline)).toISOString();
  }

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
        const artifactId = input.artifactId ?? uuid4();
        const parts = input.parts ?? [
          ...(input.text !== undefined ? [{ text: input.text }] : []),
          ...(input.data !== undefined ? [{ data: input.data }] : []),
        ];
        const tooLarge = sizeProblem(parts, MAX_ARTIFACT_BYTES, `Artifact ${input.name ?? artifactId}`);
        if (tooLarge) throw new AgentFailure(tooLarge);
        const artifact = {
          artifactId,
          parts,
          ...(input.name && { name: input.name }),
          ...(input.description && { description: input.description }),
          ...(input.metadata && { metadata: input.metadata }),
        };
        record.addArtifact(artifact, input.append ?? false, input.lastChunk ?? false);
        return artifactId;
      });
    },

    async ask<T>(options: string | AskOptions<T>) {
      const ask: AskOptions<T> = typeof options === 'string' ? { question: options } : options;
      const deadline = deadlineAt(ask.deadline);
      const question: PendingQuestion = {
        kind: 'input',
        prompt: ask.question,
        askedAt: new Date().toISOString(),
        ...(deadline && { deadline }),
        ...(ask.responders && { responders: ask.responders }),
        ...(ask.schema && { expects: ask.schema.description ?? 'a DataPart matching the agent schema' }),
        ...(ask.schema && jsonSchemaOf(ask.schema)),
        ...(ask.details && { details: ask.details }),
        ...(ask.notByRequester && { notByRequester: true }),
      };
      const { schema, notify, remind, onDeadline } = ask;
      return (await waitForReply(question, { schema, notify, remind, onDeadline })) as Reply<T>;
    },

    async askAuth(options: AskAuthOptions) {
      const deadline = deadlineAt(options.deadline);
      const question: PendingQuestion = {
        kind: 'auth',
        prompt: options.message,
        askedAt: new Date().toISOString(),
        outOfBand: options.mode === 'out-of-band',
        ...(deadline && { deadline }),
        ...(options.responders && { responders: options.responders }),
      };
      return waitForReply(question, { onDeadline: options.onDeadline });
    },

    reject(reason) {
      throw new TaskRejection(reason);
    },

    activities<A extends object>(options: ActivityOptions = {}): A {
      const proxied = proxyActivities<Record<string, ActivityFunction>>({
        ...DEFAULT_ACTIVITY_OPTIONS,
        ...options,
      });
      return new Proxy({} as A, {
        get: (_, name) =>
          typeof name === 'string'
            ? (...args: unknown[]) =>
                journal.step(`activity:${name}`, () =>
                  proxied[name]!.executeWithOptions({ summary: name }, args).catch((error: unknown) => {
                    // A setup mistake, not a secret: the task says what is missing.
                    const cause = (error as { cause?: { type?: string; message?: string } }).cause;
                    if (cause?.type === UNKNOWN_ACTIVITY) throw new AgentFailure(cause.message ?? String(error));
                    throw error;
                  }),
                )
            : undefined,
      });
    },

    async sleep(duration, summary) {
      await journal.step('sleep', async () => {
        await sleep(duration, { summary: summary ?? 'agent sleep' });
      });
    },

    callAgent(url, remoteMessage, options) {
      const ask = (question: PendingQuestion, deadline?: Duration) => {
        const at = deadlineAt(deadline);
        return waitForReply(at ? { ...question, deadline: at } : question);
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

/**
 * The reply's schema as JSON Schema, for clients that build a form from it (the inbox). A schema
 * with parts JSON Schema cannot say (a transform, a custom check) is described as far as it can be.
 */
function jsonSchemaOf(schema: ZodType): { schema?: JsonObject } {
  try {
    return { schema: toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonObject };
  } catch {
    return {};
  }
}
