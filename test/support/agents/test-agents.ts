/** Agents that exist only to drive the task workflow down every path in tests. */
import { z } from 'zod';
import { expenseApprovalAgent } from '../../../examples/agents/expense-approval.js';
import {
  AgentFailure,
  defineAgent,
  type AskOptions,
  type DeadlineOutcome,
  type EscalationRule,
} from '../../../src/workflows/agent-api.js';
import { defineLlmAgent } from '../../../src/workflows/llm-agent.js';
import { defineTool } from '../../../src/workflows/llm-tools.js';
import type * as testActivities from '../test-activities.js';
import type { ApprovalChannel } from '../../../src/protocol/approvals.js';
import type { QuorumOptions } from '../../../src/protocol/quorum.js';

const skills = [{ id: 'test', name: 'Test', description: 'Test agent', tags: ['test'] }];

export const crashingAgent = defineAgent({
  name: 'test-crash',
  description: 'Throws an internal error',
  skills,
  async run() {
    throw new Error('database password is hunter2');
  },
});

export const failingAgent = defineAgent({
  name: 'test-fail',
  description: 'Fails with a message meant for clients',
  skills,
  async run() {
    throw new AgentFailure('The budget service is unavailable');
  },
});

export const rejectingAgent = defineAgent({
  name: 'test-reject',
  description: 'Rejects every task',
  skills,
  async run(ctx) {
    return ctx.reject('Out of scope');
  },
});

interface AskRequest {
  /** The question's text (default 'Your answer?'). */
  question?: string;
  /** The agent fails this long after asking, the question still waiting (as when a check it runs meanwhile fails). */
  failAfter?: string;
  /** The agent works this long on the answer before it completes (as a slow agent does). */
  workAfter?: string;
  deadline?: string;
  onDeadline?: DeadlineOutcome;
  responders?: string[];
  notByRequester?: boolean;
  structured?: boolean;
  notify?: ApprovalChannel[];
  remind?: string[];
  escalate?: EscalationRule[];
  quorum?: QuorumOptions;
}

const Decision = z.object({ approved: z.boolean(), comment: z.string().optional() }).describe('{approved, comment?}');

/** Asks once, as configured by the first message's data, and completes with what it got. */
export const askingAgent = defineAgent({
  name: 'test-ask',
  description: 'Asks one question',
  skills,
  // Workers without Worker Versioning ignore it: every test of this agent runs on one (versioning: worker-versioning.test.ts).
  versioning: 'pinned',
  async run(ctx) {
    const request = (ctx.message.data ?? {}) as AskRequest;
    const options: AskOptions<unknown> = {
      question: request.question ?? 'Your answer?',
      ...(request.deadline && { deadline: request.deadline }),
      ...(request.onDeadline && { onDeadline: request.onDeadline }),
      ...(request.responders && { responders: request.responders }),
      ...(request.notByRequester && { notByRequester: true }),
      ...(request.structured && { schema: Decision }),
      ...(request.notify && { notify: request.notify }),
      ...(request.remind && { remind: request.remind }),
      ...(request.escalate && { escalate: request.escalate }),
      ...(request.quorum && { quorum: request.quorum }),
    };
    const asked = ctx.ask(options);
    const failing = request.failAfter
      ? ctx.sleep(request.failAfter).then((): never => {
          throw new AgentFailure('The budget check failed meanwhile');
        })
      : undefined;
    const reply = await (failing ? Promise.race([asked, failing]) : asked);
    if (request.workAfter) await ctx.sleep(request.workAfter);
    return JSON.stringify({
      text: reply.text,
      value: reply.value,
      responder: reply.responder,
      ...(reply.actingFor && { actingFor: reply.actingFor }),
      ...(reply.votes && { votes: reply.votes }),
      timedOut: reply.timedOut,
    });
  },
});

/**
 * Asks every question of the first message's data (`questions`, each as test-ask's) at once, and
 * completes with the answers; with `reportEach`, each answer as it comes is a status update
 * (`Answered: <question>`) while the others still wait.
 */
export const askingTwiceAgent = defineAgent({
  name: 'test-ask-several',
  description: 'Asks several questions at once',
  skills,
  async run(ctx) {
    const { questions = [], reportEach } = (ctx.message.data ?? {}) as {
      questions?: AskRequest[];
      reportEach?: boolean;
    };
    const replies = await Promise.all(
      questions.map(async (request) => {
        const question = request.question ?? 'Your answer?';
        const reply = await ctx.ask({
          question,
          ...(request.deadline && { deadline: request.deadline }),
          ...(request.responders && { responders: request.responders }),
          ...(request.notify && { notify: request.notify }),
          ...(request.remind && { remind: request.remind }),
        });
        if (reportEach) ctx.status(`Answered: ${question}`);
        return reply;
      }),
    );
    return JSON.stringify(replies.map(({ text, responder }) => ({ text, responder })));
  },
});

/** auth-required, in-band (message text "in-band") or out-of-band (anything else). */
export const authAgent = defineAgent({
  name: 'test-auth',
  description: 'Needs authorization',
  skills,
  async run(ctx) {
    const mode = ctx.message.text === 'in-band' ? 'in-band' : 'out-of-band';
    const { deadline, onDeadline } = (ctx.message.data ?? {}) as Pick<AskRequest, 'deadline' | 'onDeadline'>;
    const reply = await ctx.askAuth({
      message: 'Sign in to the calendar',
      mode,
      ...(deadline && { deadline }),
      ...(onDeadline && { onDeadline }),
    });
    return JSON.stringify({ mode, text: reply.text, data: reply.data, responder: reply.responder });
  },
});

/** A conversation: asks `turns` times (first message data), then completes with every answer. */
export const chatAgent = defineAgent({
  name: 'test-chat',
  description: 'Long conversation',
  skills,
  async run(ctx) {
    const { turns, ...notifying } = ctx.message.data as Pick<AskRequest, 'notify' | 'remind' | 'deadline'> & {
      turns: number;
    };
    const answers: string[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      ctx.status(`Turn ${turn}`);
      ctx.artifact({ artifactId: 'transcript', text: `${turn};`, append: turn > 1, lastChunk: turn === turns });
      answers.push((await ctx.ask({ question: `Question ${turn}?`, ...notifying })).text);
    }
    return answers.join(',');
  },
});

/** Runs an activity that only ends when canceled. */
export const blockingAgent = defineAgent({
  name: 'test-block',
  description: 'Blocks in an activity',
  skills,
  async run(ctx) {
    const { waitForAbort } = ctx.activities<typeof testActivities>({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '2 seconds',
    });
    ctx.status('Blocking');
    return waitForAbort(ctx.taskId, 120_000);
  },
});

/** Catches the cancellation of its question and returns as if nothing happened. */
export const stubbornAgent = defineAgent({
  name: 'test-stubborn',
  description: 'Swallows cancellation',
  skills,
  async run(ctx) {
    try {
      await ctx.ask('Cancel me if you can');
    } catch {
      return 'ignored the cancel';
    }
    return 'answered';
  },
});

/** Has an extended agent card: one more skill than its public card shows. */
export const extendedCardAgent = defineAgent({
  name: 'test-extended',
  description: 'Has an extended card',
  skills,
  extendedSkills: [{ id: 'audit', name: 'Audit', description: 'For trusted clients', tags: ['test'] }],
  async run(ctx) {
    return ctx.message.text;
  },
});

export const shortExpenseApproval = expenseApprovalAgent({
  name: 'expense-approval-short',
  deadline: '2 seconds',
  onDeadline: { kind: 'reject', reason: 'Approval deadline passed' },
});

/** Calls an activity no worker registers: the commonest agent mistake. */
export const unknownActivityAgent = defineAgent({
  name: 'test-unknown-activity',
  description: 'Calls an unregistered activity',
  skills,
  async run(ctx) {
    const { lookupOrder } = ctx.activities<{ lookupOrder(id: string): Promise<string> }>();
    return lookupOrder('42');
  },
});

const orderInput = z.object({ item: z.string(), quantity: z.number().int().positive(), total: z.number() });

/** An LLM agent with a free lookup tool and an order tool that needs approval over 100. */
export const llmAgent = defineLlmAgent({
  name: 'test-llm',
  description: 'Buys things with a model in the loop',
  skills,
  instructions: 'You buy things for the user.',
  model: 'fake-model',
  modelActivityOptions: { retry: { maximumAttempts: 2, initialInterval: '100 milliseconds' } },
  streamIntervalMs: 100,
  tools: {
    lookup_price: defineTool({
      description: 'Unit price of an item',
      input: z.object({ item: z.string() }),
      activity: 'testLookupPrice',
    }),
    place_order: defineTool({
      description: 'Orders items',
      input: orderInput,
      activity: 'testPlaceOrder',
      approval: (order) => (order.total > 100 ? `the total ${order.total} is over 100` : false),
    }),
    read_log: defineTool({ description: 'Reads a long log', input: z.object({}), activity: 'testReadLog' }),
    wait: defineTool({
      description: 'Waits until canceled',
      input: z.object({ key: z.string() }),
      activity: 'testWaitTool',
      activityOptions: { heartbeatTimeout: '2 seconds' },
    }),
  },
});

/** The same, with an approval deadline of two seconds. */
export const llmDeadlineAgent = defineLlmAgent({
  name: 'test-llm-deadline',
  description: 'Approvals time out',
  skills,
  instructions: 'You buy things for the user.',
  model: 'fake-model',
  tools: {
    place_order: defineTool({
      description: 'Orders items',
      input: orderInput,
      activity: 'testPlaceOrder',
      approval: 'always',
      approvers: ['alice'],
      approvalDeadline: '2 seconds',
    }),
  },
});

/**
 * Says whether its zod is the worker's shared copy (an earlier task's mark on zod's global registry
 * is still there) and whether the sandbox froze it, and validates with it, formats too.
 */
export const zodAgent = defineAgent({
  name: 'test-zod',
  description: 'Reports on the zod it imports',
  skills,
  async run() {
    const shared = z.globalRegistry.has(z.ZodNumber as never);
    z.globalRegistry.add(z.ZodNumber as never, { description: 'a mark for later tasks' });
    const expense = z.object({ amount: z.number().positive(), currency: z.string().length(3) });
    return JSON.stringify({
      shared,
      frozen: Object.isFrozen(z.object),
      valid: expense.safeParse({ amount: 12, currency: 'EUR' }).success,
      invalid: expense.safeParse({ amount: -1, currency: 'EURO' }).error?.issues.length,
      formats: [
        z.email().safeParse('a@example.com').success,
        z.iso.date().safeParse('2026-11-26').success,
        z.httpUrl().safeParse('https://example.com').success,
        z.ipv4().safeParse('10.0.0.1').success,
        z.guid().safeParse('00000000-0000-0000-0000-000000000000').success,
      ],
    });
  },
});

/** Calls an activity that fails twice before it answers. */
export const flakyAgent = defineAgent({
  name: 'test-flaky',
  description: 'Calls a flaky activity',
  skills,
  async run(ctx) {
    const { flakyStep } = ctx.activities<typeof testActivities>({
      startToCloseTimeout: '10 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 1 },
    });
    return flakyStep();
  },
});

/** Asks, then calls the flaky activity: the answer's sender waits while it is retried. */
export const askThenFlakyAgent = defineAgent({
  name: 'test-ask-then-flaky',
  description: 'Asks, then calls a flaky activity',
  skills,
  async run(ctx) {
    await ctx.ask('Go ahead?');
    const { flakyStep } = ctx.activities<typeof testActivities>({
      startToCloseTimeout: '10 seconds',
      retry: { initialInterval: '2 seconds', backoffCoefficient: 1 },
    });
    return flakyStep();
  },
});

/** The flaky activity with too few attempts for it: the task fails naming the activity. */
export const outOfRetriesAgent = defineAgent({
  name: 'test-out-of-retries',
  description: 'Calls a flaky activity with two attempts',
  skills,
  async run(ctx) {
    const { flakyStep } = ctx.activities<typeof testActivities>({
      startToCloseTimeout: '10 seconds',
      retry: { initialInterval: '1 second', maximumAttempts: 2 },
    });
    return flakyStep();
  },
});

/** Webhooks hear only its questions and its end, not its progress or its artifacts. */
export const selectivePushAgent = defineAgent({
  name: 'test-push-selected',
  description: 'Asks, records an artifact, completes; notifies only input-required and completed',
  skills,
  pushEvents: { states: ['input-required', 'completed'], artifacts: false },
  async run(ctx) {
    const reply = await ctx.ask({ question: 'Go ahead?' });
    ctx.artifact({ name: 'outcome', data: { reply: reply.text } });
    return 'Done.';
  },
});

/**
 * Passes its request on to the A2A agent at the first message's `url` (authenticated with the API
 * key in the worker's variable `apiKeyEnv`), so that the remote agent's question is carried up.
 */
export const delegatingAgent = defineAgent({
  name: 'test-delegate',
  description: 'Passes its request on to another A2A agent',
  skills,
  async run(ctx) {
    const { url, apiKeyEnv, next } = ctx.message.data as { url: string; apiKeyEnv: string; next?: unknown };
    // With `next`, the remote agent is a delegating one too (a chain): it gets `next` as its own address.
    const message = next === undefined ? ctx.message.text : { text: ctx.message.text, data: next };
    const remote = await ctx.callAgent(url, message, { credentials: { apiKeyEnv } });
    return `The remote agent says: ${remote.text}`;
  },
});

export const testAgents = [
  crashingAgent,
  failingAgent,
  rejectingAgent,
  askingAgent,
  askingTwiceAgent,
  authAgent,
  chatAgent,
  blockingAgent,
  stubbornAgent,
  extendedCardAgent,
  shortExpenseApproval,
  llmAgent,
  llmDeadlineAgent,
  unknownActivityAgent,
  selectivePushAgent,
  flakyAgent,
  outOfRetriesAgent,
  askThenFlakyAgent,
  zodAgent,
  delegatingAgent,
];
