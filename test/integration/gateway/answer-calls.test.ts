/**
 * What an answer costs in Temporal calls, on every way in (DESIGN.md section 21): an A2A reply on
 * JSON-RPC, HTTP+JSON and gRPC, the inbox's POST, an email link's POST and a Slack click each cost
 * the Update, plus one read only when the client asked for more than the Update returns (the inbox's
 * POST answers with the task its page shows, so the page reads it no more); a refused
 * answer costs no more than an accepted one; a new task costs one update-with-start. Counted on a
 * recording connection (test/support/temporal-calls.ts), so a call more cannot come back unnoticed.
 * An agent that requires an A2A extension is answered on the three people-facing ways all the same:
 * the extension is the A2A clients' business, and the gateway's own pages and channels are none.
 * Each answer is also counted as the A2A replies are, with its channel as the transport.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Message } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_LINKS_PATH, mintAnswerToken } from '../../../src/channels/answer-links.js';
import { SLACK_INTERACTIONS_PATH } from '../../../src/channels/slack-interactions.js';
import { serveGateway, type ServedGateway } from '../../../src/gateway/server.js';
import { conformanceExtension } from '../../../examples/agents/conformance.js';
import { askingAgent, chatAgent } from '../../support/agents/test-agents.js';
import { apiKeyPeople } from '../../support/browser.js';
import { startTestWorker, type TestWorker } from '../../support/worker.js';
import { TemporalCalls } from '../../support/temporal-calls.js';

const PEOPLE = { carol: ['staff'], alice: ['finance'], bob: ['staff'] } as const;
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople('answer-calls', PEOPLE);
const LINK_SECRET = Buffer.from('the approval link secret, 32 bytes or more');
const SLACK_SECRET = 'slack-signing-secret-for-answer-calls';
const directory = {
  principals: { alice: { slack: 'U0ALICE1' }, carol: { slack: 'U0CAROL1' } },
  groups: { finance: ['alice'] },
};
const REQUIRED_EXTENSION = conformanceExtension.extensions![0]!.uri;

const UPDATE = 'UpdateWorkflowExecution';
const QUERY = 'QueryWorkflow';
const DESCRIBE = 'DescribeWorkflowExecution';
const UPDATE_WITH_START = 'ExecuteMultiOperation';
/** The workflow that records an inbox session's sign-out (src/gateway/inbox/sign-outs.ts). */
const SIGN_OUT_RECORDS = 'a2a-inbox-signed-out:';

const calls = new TemporalCalls();
let client: Client;
let worker: TestWorker;
let gateway: ServedGateway;

beforeAll(async () => {
  worker = await startTestWorker();
  client = await calls.client();
  gateway = await serveGateway({
    client,
    agents: [askingAgent, chatAgent, conformanceExtension],
    taskQueue: worker.taskQueue,
    authenticator,
    answerLinks: { secret: LINK_SECRET, directory },
    slackInteractions: { signingSecret: SLACK_SECRET, directory },
    metricsPort: 0,
  });
});

afterAll(async () => {
  await gateway?.close();
  await worker?.shutdown();
  await client?.connection.close();
});

const agentUrl = (agent: string) => `${gateway.url}/agents/${agent}`;

async function rpc(
  agent: string,
  person: Person,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const response = await fetch(agentUrl(agent), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'x-api-key': keyOf(person), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return response.json();
}

function message(text: string, extra: Record<string, unknown> = {}) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** A task of carol's waiting for finance's answer (test-chat: `turns` questions), created over JSON-RPC. */
async function waitingTask(agent = 'test-ask', turns = 1): Promise<{ id: string; askedAt: string }> {
  const data = agent === 'test-ask' ? { responders: ['group:finance'] } : { turns };
  const sent = await rpc(agent, 'carol', 'SendMessage', { message: { ...message('pay it'), parts: [{ data }] } });
  const task = sent.result.task;
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return { id: task.id, askedAt: task.metadata.pendingQuestion.askedAt };
}

/** An A2A reply "approve" as `person` on `transport`; the task's state or the JSON-RPC error code. */
async function a2aReply(
  transport: 'JSONRPC' | 'HTTP+JSON' | 'GRPC',
  taskId: string,
  person: Person,
  configuration: Record<string, unknown> = {},
): Promise<string | number> {
  const reply = message('approve', { taskId });
  if (transport === 'JSONRPC') {
    const body = await rpc('test-ask', person, 'SendMessage', { message: reply, configuration });
    return body.error?.code ?? body.result.task.status.state;
  }
  if (transport === 'HTTP+JSON') {
    const response = await fetch(`${agentUrl('test-ask')}/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'x-api-key': keyOf(person) },
      body: JSON.stringify({ message: reply, configuration }),
    });
    const body = (await response.json()) as any;
    return response.ok ? body.task.status.state : response.status;
  }
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
    preferredTransports: ['GRPC'],
  });
  const grpc = await new ClientFactory(options).createFromUrl(`${agentUrl('test-ask')}/`);
  await grpc.sendMessage({ message: Message.fromJSON(reply), configuration, tenant: 'test-ask' } as any, {
    serviceParameters: { 'x-api-key': keyOf(person) },
  });
  return 'answered';
}

/** A signed-in inbox session of `person`: its cookie and CSRF token. */
async function inboxSession(person: Person): Promise<{ cookie: string; csrf: string }> {
  const me = await fetch(`${gateway.url}/inbox/api/me`);
  const anonymous = me.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await me.json()) as { csrfToken: string };
  const signedIn = await fetch(`${gateway.url}/inbox/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', cookie: anonymous, 'x-csrf-token': csrfToken },
    body: JSON.stringify({ method: 'api-key', credential: keyOf(person) }),
  });
  expect(signedIn.status).toBe(200);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken: csrf } = (await signedIn.json()) as { csrfToken: string };
  return { cookie, csrf };
}

async function inboxReply(
  session: { cookie: string; csrf: string },
  taskId: string,
  askedAt: string,
  agent = 'test-ask',
) {
  const response = await fetch(`${gateway.url}/inbox/api/tasks/${agent}/${taskId}/reply`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf },
    body: JSON.stringify({ text: 'approve', askedAt }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

function answerToken(
  taskId: string,
  askedAt: string,
  { agent = 'test-ask', approver = 'alice', decision = 'approve' as 'approve' | 'deny' } = {},
): string {
  const claims = { agent, taskId, askedAt, approver, decision };
  return mintAnswerToken(LINK_SECRET, { ...claims, expiresAt: Date.now() + 60_000 });
}

async function emailAnswer(taskId: string, askedAt: string, claims: Parameters<typeof answerToken>[2] = {}) {
  const token = answerToken(taskId, askedAt, claims);
  const response = await fetch(`${gateway.url}${ANSWER_LINKS_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return { status: response.status, text: await response.text() };
}

async function slackClick(taskId: string, askedAt: string, { agent = 'test-ask', user = 'U0ALICE1' } = {}) {
  const value = JSON.stringify({ agent, taskId, askedAt });
  const payload = { type: 'block_actions', user: { id: user }, actions: [{ action_id: 'a2a_approve', value }] };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const response = await fetch(`${gateway.url}${SLACK_INTERACTIONS_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
    body,
  });
  return (await response.json()) as { text: string };
}

describe('Temporal calls per answer', () => {
  it('a new task: one update-with-start, waiting or answered at once', async () => {
    const ask = { message: { ...message('pay it'), parts: [{ data: { responders: ['group:finance'] } }] } };
    let id = '';
    const blocking = await calls.named('a2a-task-', async () => {
      id = (await rpc('test-ask', 'carol', 'SendMessage', ask)).result.task.id;
    });
    expect(blocking).toEqual([UPDATE_WITH_START]);
    expect(id).toBeTruthy();
    const immediate = await calls.named('a2a-task-', async () => {
      const sent = await rpc('test-ask', 'carol', 'SendMessage', {
        ...ask,
        configuration: { returnImmediately: true },
      });
      expect(sent.result.task.history).toHaveLength(1);
    });
    expect(immediate).toEqual([UPDATE_WITH_START]);
  });

  it('an A2A reply, on each transport: the Update alone', async () => {
    for (const transport of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
      const { id } = await waitingTask();
      const made = await calls.about(id, async () => {
        expect(await a2aReply(transport, id, 'alice')).not.toBeTypeOf('number');
      });
      expect(made, transport).toEqual([UPDATE]);
    }
  });

  it('an A2A reply with returnImmediately: one read more only when the client asks for history', async () => {
    const whole = await waitingTask();
    const withHistory = await calls.about(whole.id, () =>
      expect(a2aReply('JSONRPC', whole.id, 'alice', { returnImmediately: true })).resolves.toBeTypeOf('string'),
    );
    expect(withHistory).toEqual([UPDATE, QUERY]);
    const bare = await waitingTask();
    const without = await calls.about(bare.id, () =>
      expect(a2aReply('JSONRPC', bare.id, 'alice', { returnImmediately: true, historyLength: 0 })).resolves.toBe(
        'TASK_STATE_WORKING',
      ),
    );
    expect(without).toEqual([UPDATE]);
  });

  it('the inbox POST, an email link and a Slack click: the Update alone (and the session check)', async () => {
    const session = await inboxSession('alice');
    const inbox = await waitingTask();
    let signOutChecks: string[] = [];
    const byInbox = await calls.about(inbox.id, async () => {
      signOutChecks = await calls.named(SIGN_OUT_RECORDS, async () => {
        const answered = await inboxReply(session, inbox.id, inbox.askedAt);
        expect(answered.status).toBe(200);
        // The task as the page shows it (task.js): its outcome, with no read of the task after the POST.
        expect(answered.body.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
        expect(answered.body.task.history.length).toBeGreaterThan(1);
      });
    });
    expect(byInbox).toEqual([UPDATE]);
    // Every signed-in inbox request asks whether its session signed out, on any gateway.
    expect(signOutChecks).toEqual([DESCRIBE]);
    // An answer that brings another question: the Update, and one query for the task waiting again.
    const chat = await waitingTask('test-chat', 2);
    const carol = await inboxSession('carol');
    const byInboxAgain = await calls.about(chat.id, async () => {
      const answered = await inboxReply(carol, chat.id, chat.askedAt, 'test-chat');
      expect(answered.body.task.metadata.pendingQuestion.prompt).toBe('Question 2?');
    });
    expect(byInboxAgain).toEqual([UPDATE, QUERY]);

    const email = await waitingTask();
    const byEmail = await calls.about(email.id, async () => {
      expect(await emailAnswer(email.id, email.askedAt)).toMatchObject({ status: 200 });
    });
    expect(byEmail).toEqual([UPDATE]);

    const slack = await waitingTask();
    const bySlack = await calls.about(slack.id, async () => {
      expect((await slackClick(slack.id, slack.askedAt)).text).toMatch(/^Recorded: approve/);
    });
    expect(bySlack).toEqual([UPDATE]);
  });

  it('a refused answer costs no more than an accepted one', async () => {
    // A stranger: the Update's validator turns bob away as from a task that does not exist.
    const { id, askedAt } = await waitingTask();
    expect(await calls.about(id, () => expect(a2aReply('JSONRPC', id, 'bob')).resolves.toBe(-32001))).toEqual([UPDATE]);
    // A question answered meanwhile, the task still open (on its next question): the validator says so.
    const chat = await waitingTask('test-chat', 2);
    // A question without responders is its owner's to answer.
    const owner = { agent: 'test-chat', approver: 'carol' };
    const first = await emailAnswer(chat.id, chat.askedAt, owner);
    expect(first.status).toBe(200);
    const stale = await calls.about(chat.id, async () => {
      const again = await emailAnswer(chat.id, chat.askedAt, { ...owner, decision: 'deny' });
      expect(again).toMatchObject({ status: 409, text: expect.stringContaining('no longer waits') });
    });
    expect(stale).toEqual([UPDATE]);
    // A task whose workflow has closed: Temporal refuses the Update as not found; a describe tells why.
    expect(await slackClick(id, askedAt)).toMatchObject({ text: expect.stringMatching(/^Recorded/) });
    await expect
      .poll(() =>
        client.workflow
          .getHandle(`a2a-task-${id}`)
          .describe()
          .then((d) => d.status.name),
      )
      .toBe('COMPLETED');
    const session = await inboxSession('alice');
    const ended = await calls.about(id, async () => {
      const refused = await inboxReply(session, id, askedAt);
      expect(refused).toMatchObject({
        status: 409,
        body: { error: { kind: 'answered', state: 'TASK_STATE_COMPLETED' } },
      });
    });
    expect(ended).toEqual([UPDATE, DESCRIBE]);
  });
});

describe('an agent that requires an A2A extension', () => {
  const agent = conformanceExtension.name;
  const extension = { 'A2A-Extensions': REQUIRED_EXTENSION };

  /** A task of carol's waiting for her own answer: the conformance agent asks on this message ID. */
  async function waitingForCarol(): Promise<{ id: string; askedAt: string }> {
    const ask = { message: { ...message('ask me'), messageId: `tck-input-required-${randomUUID()}` } };
    const sent = await rpc(agent, 'carol', 'SendMessage', ask, extension);
    const task = sent.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    return { id: task.id, askedAt: task.metadata.pendingQuestion.askedAt };
  }

  it('refuses an A2A call that does not name it, and is still read and answered in the inbox, by email and in Slack', async () => {
    const inbox = await waitingForCarol();
    const unnamed = await rpc(agent, 'carol', 'GetTask', { id: inbox.id });
    expect(unnamed.error).toMatchObject({ code: -32008 });

    const session = await inboxSession('carol');
    const read = await fetch(`${gateway.url}/inbox/api/tasks/${agent}/${inbox.id}`, {
      headers: { cookie: session.cookie },
    });
    expect(read.status).toBe(200);
    const byInbox = await calls.about(inbox.id, async () => {
      expect(await inboxReply(session, inbox.id, inbox.askedAt, agent)).toMatchObject({ status: 200 });
    });
    expect(byInbox).toEqual([UPDATE]);

    const email = await waitingForCarol();
    const claims = { agent, approver: 'carol' };
    const shown = await fetch(
      `${gateway.url}${ANSWER_LINKS_PATH}?token=${answerToken(email.id, email.askedAt, claims)}`,
    );
    expect(shown.status).toBe(200);
    const byEmail = await calls.about(email.id, async () => {
      expect(await emailAnswer(email.id, email.askedAt, claims)).toMatchObject({ status: 200 });
    });
    expect(byEmail).toEqual([UPDATE]);

    const slack = await waitingForCarol();
    const bySlack = await calls.about(slack.id, async () => {
      const clicked = await slackClick(slack.id, slack.askedAt, { agent, user: 'U0CAROL1' });
      expect(clicked.text).toMatch(/^Recorded: approve/);
    });
    expect(bySlack).toEqual([UPDATE]);
  });
});

describe('what an answer is recorded as', () => {
  /** How many SendMessage calls of test-ask the gateway counted, by transport and outcome. */
  async function sendMessagesCounted(): Promise<(transport: string, outcome?: string) => number> {
    const text = await (await fetch(gateway.metricsUrl!)).text();
    return (transport, outcome = 'ok') => {
      const labels = `method="SendMessage",transport="${transport}",agent="test-ask",outcome="${outcome}"`;
      const line = new RegExp(`^a2a_gateway_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text);
      return Number(line?.[1] ?? 0);
    };
  }

  it('an answer in the inbox, by email and in Slack is counted as a SendMessage with its channel as the transport', async () => {
    const before = await sendMessagesCounted();
    const session = await inboxSession('alice');
    const inbox = await waitingTask();
    expect((await inboxReply(session, inbox.id, inbox.askedAt)).status).toBe(200);
    const email = await waitingTask();
    expect(await emailAnswer(email.id, email.askedAt)).toMatchObject({ status: 200 });
    const slack = await waitingTask();
    expect((await slackClick(slack.id, slack.askedAt)).text).toMatch(/^Recorded: approve/);
    // Refused (bob may not answer finance's question): counted with the refusal as its outcome.
    const stranger = await waitingTask();
    const bob = await inboxSession('bob');
    expect((await inboxReply(bob, stranger.id, stranger.askedAt)).status).toBe(404);
    const after = await sendMessagesCounted();
    const added = (transport: string, outcome?: string) => after(transport, outcome) - before(transport, outcome);
    expect({
      inbox: added('inbox'),
      email: added('email'),
      slack: added('slack'),
      refusedInInbox: added('inbox', 'TaskNotFound'),
    }).toEqual({ inbox: 1, email: 1, slack: 1, refusedInInbox: 1 });
  });
});
