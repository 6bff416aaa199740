/**
 * Delegation of authority (docs/approval-policies.md, Deputies), through a real gateway and worker:
 * the directory says who stands in for whom and when; a deputy answers inside the window and is
 * refused outside it, never through a deputy of their own, never on their own request; the task
 * records who answered for whom; the deputy is told of the question and sees it in the inbox, and
 * the inbox times its first view (/metrics).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../../src/gateway/auth/authenticator.js';
import { TRUSTED_PROXY_SECRET_HEADER } from '../../../src/gateway/auth/settings.js';
import type { ApproverDirectory } from '../../../src/channels/directory.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { Webhook } from '../../support/webhook.js';
import { eventually } from '../../support/mail-server.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';

const PROXY_SECRET = 'the-proxy-secret-of-at-least-32-bytes';
const HOUR = 3_600_000;
const at = (offset: number) => new Date(Date.now() + offset).toISOString();
const NOW = { from: at(-HOUR), until: at(HOUR) };

const directory: ApproverDirectory = {
  principals: {
    // Carol stands in for bob now; dave for carol (not for bob: never transitive).
    bob: { delegates: [{ to: 'carol', ...NOW }] },
    carol: { delegates: [{ to: 'dave', ...NOW }] },
    // Frank stands in for erin only from an hour from now.
    erin: { delegates: [{ to: 'frank', from: at(HOUR), until: at(2 * HOUR) }] },
    // Alice and harry stand in for gina, but alice never on her own request.
    gina: {
      delegates: [
        { to: 'alice', ...NOW },
        { to: 'harry', ...NOW },
      ],
    },
  },
  groups: {},
};

const webhook = new Webhook();
let hookUrl: string;
// Before the harness starts (it reads the hook's URL).
beforeAll(async () => {
  hookUrl = await webhook.start();
});
afterAll(() => webhook.close());

const harness = useGatewayHarness(() => ({
  approvals: {
    directory,
    webhookUrl: hookUrl,
    policy: { allowedHosts: new Set(['127.0.0.1']) },
  },
  gateway: {
    agents: [askingAgent],
    grpcPort: false,
    metricsPort: 0,
    authenticator: createAuthenticator({
      methods: ['trusted-header'],
      apiKeys: [],
      trustedHeader: 'x-forwarded-user',
      trustedProxySecret: PROXY_SECRET,
    }),
  },
}));

const as = (person: string) => ({ 'x-forwarded-user': person, [TRUSTED_PROXY_SECRET_HEADER]: PROXY_SECRET });

async function rpc(method: string, params: unknown, person: string) {
  const response = await fetch(`${harness.gateway.url}/agents/test-ask`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...as(person) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: { message: string } };
}

/** `requester` asks a question that `responders` may answer (and that notifies them by webhook); it waits. */
async function asked(requester: string, responders: string[]): Promise<any> {
  const message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: `approve ${randomUUID()}` }, { data: { responders, notify: ['webhook'] } }],
  };
  const sent = await rpc('SendMessage', { message }, requester);
  expect(sent.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return sent.result.task;
}

function answer(taskId: string, person: string) {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text: 'approve' }] };
  return rpc('SendMessage', { message, configuration: { returnImmediately: false } }, person);
}

async function inbox(path: string, person: string) {
  const response = await fetch(`${harness.gateway.url}/inbox/api${path}`, { headers: as(person) });
  return { status: response.status, body: (await response.json()) as any };
}

describe('deputies', () => {
  it('answer inside their window for whom they stand in; the task records both; they are told and see it', async () => {
    const task = await asked('alice', ['bob']);
    const question = task.metadata.pendingQuestion;
    expect(question.deputies).toEqual([{ to: 'carol', for: 'bob', ...NOW }]);
    expect(question.directoryHash).toMatch(/^[0-9a-f]{64}$/);

    // Told by bob's channel, as bob's deputy.
    const notice = await eventually(() =>
      webhook.received.find(
        ({ body }) => body.taskId === (task.id as unknown) && body.approver === ('carol' as unknown),
      ),
    );
    expect(notice.body).toMatchObject({ kind: 'ask', actingFor: 'bob' });
    expect(String(notice.body.text)).toContain('For: bob (you are their deputy)');

    // Listed in carol's inbox, and her page view is timed.
    const listed = await eventually(async () => {
      const { body } = await inbox('/questions', 'carol');
      return body.questions?.find((row: any) => row.taskId === task.id);
    });
    expect(listed.question.deputies).toEqual(question.deputies);
    expect((await inbox(`/tasks/test-ask/${task.id}`, 'carol')).status).toBe(200);
    const metrics = await (await fetch(harness.gateway.metricsUrl!)).text();
    expect(metrics).toMatch(/a2a_approval_first_view_seconds_count\{agent="test-ask",group="none"\} 1/);

    const answered = await answer(task.id, 'carol');
    expect(answered.error).toBeUndefined();
    const done = answered.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(done.status.message.parts[0].text)).toMatchObject({ responder: 'carol', actingFor: 'bob' });
    const timeline = done.metadata.timeline.find((entry: any) => entry.by === 'carol');
    expect(timeline).toMatchObject({ state: 'working', by: 'carol', actingFor: 'bob' });
  });

  it('are refused outside their window', async () => {
    const task = await asked('alice', ['erin']);
    expect(task.metadata.pendingQuestion.deputies).toEqual([expect.objectContaining({ to: 'frank', for: 'erin' })]);
    const refused = await answer(task.id, 'frank');
    expect(refused.error?.message).toMatch(
      /frank may answer this question only as the deputy of erin \(from .* until .*\)/,
    );
    expect((await answer(task.id, 'erin')).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('are never transitive: the deputy of a deputy may not answer, nor even see the task', async () => {
    const task = await asked('alice', ['bob']);
    expect(task.metadata.pendingQuestion.deputies.map((deputy: any) => deputy.to)).toEqual(['carol']);
    expect((await answer(task.id, 'dave')).error?.message).toBe(`Task ${task.id} not found`);
  });

  it('never answer their own request', async () => {
    const task = await asked('alice', ['gina']);
    expect(task.metadata.pendingQuestion.deputies.map((deputy: any) => deputy.to)).toEqual(['harry']);
    expect((await answer(task.id, 'alice')).error?.message).toMatch(/Only gina may answer this question, not alice/);
  });
});
