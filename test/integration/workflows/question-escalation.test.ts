/**
 * Escalation (docs/approval-policies.md, Escalation), through a real gateway and worker: when nobody
 * answered a question in time, its responders widen (or move) to the escalation's; the new approver
 * is told (webhook), sees it in the inbox and may answer; the task keeps the escalation. The timer
 * is the question's own, so it fires in a run continued as new and across a worker restart; a question
 * answered in time never escalates. The deputies of those it adds (release 17) are told and answer
 * within their window.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApproverDirectory } from '../../../src/channels/directory.js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { deletePushConfigUpdate } from '../../../src/protocol/push.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { Webhook } from '../../support/webhook.js';
import { eventually } from '../../support/mail-server.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { apiKeyPeople } from '../../support/browser.js';
import { startTestWorker, type TestWorker } from '../../support/worker.js';

// Lena is a finance lead, to the gateway (her key's groups) and to the worker's directory alike.
const PEOPLE = { alice: [], bob: [], lena: ['finance-leads'], carol: [], dave: [], erin: [], frank: [], gina: [] };
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople<Person>('escalation', PEOPLE);
const HOUR = 3_600_000;
const at = (offset: number) => new Date(Date.now() + offset).toISOString();
const TODAY = { from: at(-HOUR), until: at(HOUR) };
const directory: ApproverDirectory = {
  principals: {
    // Gina stands in for bob today, dave for carol; frank for erin only from an hour from now.
    bob: { delegates: [{ to: 'gina', ...TODAY }] },
    carol: { delegates: [{ to: 'dave', ...TODAY }] },
    erin: { delegates: [{ to: 'frank', from: at(HOUR), until: at(2 * HOUR) }] },
  },
  groups: { 'finance-leads': ['lena'] },
};
const approvals = { directory, policy: { allowedHosts: new Set(['127.0.0.1']) } };

const webhook = new Webhook();
let hookUrl: string;
// Before the harness starts (it reads the hook's URL).
beforeAll(async () => {
  hookUrl = await webhook.start();
});
afterAll(() => webhook.close());
// The worker that replaces the harness's when a test restarts it.
let replacement: TestWorker | undefined;
afterAll(() => replacement?.shutdown());

const harness = useGatewayHarness(() => ({
  approvals: { ...approvals, webhookUrl: hookUrl },
  gateway: {
    agents: [askingAgent],
    grpcPort: false,
    authenticator,
  },
}));

const as = (person: Person) => ({ 'x-api-key': keyOf(person) });

async function rpc(method: string, params: unknown, person: Person) {
  const response = await fetch(`${harness.gateway.url}/agents/test-ask`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...as(person) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: { message: string } };
}

/** Alice asks a question for bob, told by webhook, that escalates to `to` (the finance leads) `after` it was asked. */
async function asked(after: string, mode?: 'widen' | 'move', to = ['group:finance-leads']): Promise<any> {
  const escalate = [{ after, to, ...(mode && { mode }) }];
  const message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: `approve ${randomUUID()}` }, { data: { responders: ['bob'], notify: ['webhook'], escalate } }],
  };
  const sent = await rpc('SendMessage', { message }, 'alice');
  expect(sent.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return sent.result.task;
}

function answer(taskId: string, person: Person) {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text: 'approve' }] };
  return rpc('SendMessage', { message, configuration: { returnImmediately: false } }, person);
}

async function inbox(person: Person): Promise<any[]> {
  const response = await fetch(`${harness.gateway.url}/inbox/api/questions`, { headers: as(person) });
  return ((await response.json()) as any).questions ?? [];
}

async function read(taskId: string): Promise<any> {
  return (await rpc('GetTask', { id: taskId }, 'alice')).result;
}

const told = (taskId: string, approver: string) =>
  webhook.received.find(({ body }) => body.taskId === (taskId as unknown) && body.approver === (approver as unknown));

/** Accepted Updates that change nothing grow the history until Temporal suggests continue-as-new; the new run's ID. */
async function continuedAsNew(taskId: string): Promise<string> {
  const handle = harness.temporal.workflow.getHandle(workflowIdForTask(taskId));
  const firstRunId = (await handle.describe()).runId;
  for (let update = 1; update <= 100; update++) {
    await handle.executeUpdate(deletePushConfigUpdate, { args: [{ id: 'none' }] });
    const { runId } = await harness.temporal.workflow.getHandle(handle.workflowId).describe();
    if (runId !== firstRunId) return runId;
  }
  throw new Error('The task never continued as new');
}

describe('escalation', () => {
  it('widens in a run continued as new: the finance lead is told, sees it and may answer, and so may bob', async () => {
    const task = await asked('10 s');
    await continuedAsNew(task.id);
    // The question the new run resumed has not escalated yet: its timer is the new run's.
    expect((await read(task.id)).metadata.escalations).toBeUndefined();

    const notice = await eventually(() => told(task.id, 'lena'));
    expect(notice.body).toMatchObject({ kind: 'ask' });
    const escalated = await read(task.id);
    const question = escalated.metadata.pendingQuestion;
    expect(question.responders).toEqual(['bob', 'group:finance-leads']);
    expect(question.escalate).toBeUndefined();
    expect(question.escalated).toEqual([
      {
        at: expect.any(String),
        to: ['group:finance-leads'],
        mode: 'widen',
        from: ['bob'],
        directoryHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
    expect(escalated.metadata.escalations).toEqual([{ question: 'ask:0', ...question.escalated[0] }]);
    // At the time it was due: `after` from when it was asked.
    expect(Date.parse(question.escalated[0].at)).toBeGreaterThanOrEqual(Date.parse(question.askedAt) + 10_000);

    // Listed in lena's inbox (A2AResponders followed), with the escalation.
    const listed = await eventually(async () => (await inbox('lena')).find((row) => row.taskId === task.id));
    expect(listed.question.escalated).toEqual(question.escalated);

    const answered = await answer(task.id, 'bob');
    expect(answered.error).toBeUndefined();
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.result.task.metadata.escalations).toEqual(escalated.metadata.escalations);
  });

  it('moves: the finance lead may answer, bob no longer', async () => {
    const task = await asked('2 s', 'move');
    await eventually(() => told(task.id, 'lena'));
    expect((await read(task.id)).metadata.pendingQuestion.responders).toEqual(['group:finance-leads']);
    const refused = await answer(task.id, 'bob');
    expect(refused.error?.message).toBe(`Task ${task.id} not found`);
    const answered = await answer(task.id, 'lena');
    expect(answered.error).toBeUndefined();
    expect(JSON.parse(answered.result.task.status.message.parts[0].text)).toMatchObject({ responder: 'lena' });
  });

  it('never happens to a question answered in time', async () => {
    const task = await asked('1 h');
    const answered = await answer(task.id, 'bob');
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.result.task.metadata.escalations).toBeUndefined();
    // The workflow closed with its escalation timer canceled: it can never fire.
    const history = await harness.temporal.workflow.getHandle(workflowIdForTask(task.id)).fetchHistory();
    const events = history.events!;
    expect(events.filter((event) => event.timerStartedEventAttributes)).toHaveLength(1);
    expect(events.filter((event) => event.timerCanceledEventAttributes)).toHaveLength(1);
    expect(told(task.id, 'lena')).toBeUndefined();
  });

  it("reaches the deputies of those it adds: carol's deputy today is told, sees it and answers for her", async () => {
    const task = await asked('2 s', 'widen', ['carol']);
    const notice = await eventually(() => told(task.id, 'dave'));
    expect(notice.body).toMatchObject({ kind: 'ask', actingFor: 'carol' });
    const question = (await read(task.id)).metadata.pendingQuestion;
    expect(question.responders).toEqual(['bob', 'carol']);
    // Beside bob's, whom the widened question still waits for.
    expect(question.deputies).toEqual([
      { to: 'gina', for: 'bob', ...TODAY },
      { to: 'dave', for: 'carol', ...TODAY },
    ]);
    // The directory the deputies were read from, as when a question opens.
    expect(question.escalated[0].directoryHash).toMatch(/^[0-9a-f]{64}$/);
    const listed = await eventually(async () => (await inbox('dave')).find((row) => row.taskId === task.id));
    expect(listed.question.deputies).toEqual(question.deputies);

    const answered = await answer(task.id, 'dave');
    expect(answered.error).toBeUndefined();
    const done = answered.result.task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(done.status.message.parts[0].text)).toMatchObject({ responder: 'dave', actingFor: 'carol' });
    expect(done.metadata.timeline.find((entry: any) => entry.by === 'dave')).toMatchObject({ actingFor: 'carol' });
  });

  it('refuses a deputy of those it adds outside their window, and a move drops the deputies of those it leaves', async () => {
    const task = await asked('2 s', 'move', ['erin']);
    const question = await eventually(async () => {
      const pending = (await read(task.id)).metadata.pendingQuestion;
      return pending.escalated && pending;
    });
    expect(question.deputies).toEqual([expect.objectContaining({ to: 'frank', for: 'erin' })]);
    // Bob's deputy acts for bob alone, who no longer may answer: the task no longer exists for her.
    expect((await answer(task.id, 'gina')).error?.message).toBe(`Task ${task.id} not found`);
    const refused = await answer(task.id, 'frank');
    expect(refused.error?.message).toMatch(
      /frank may answer this question only as the deputy of erin \(from .* until .*\)/,
    );
    expect((await answer(task.id, 'erin')).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('fires when due across a worker restart: down when its timer fired, the new worker escalates and tells', async () => {
    const task = await asked('8 s');
    await eventually(() => told(task.id, 'bob'));
    await harness.worker.shutdown();
    const handle = harness.temporal.workflow.getHandle(workflowIdForTask(task.id));
    const timerFired = async () =>
      (await handle.fetchHistory()).events!.some((event) => event.timerFiredEventAttributes);
    // Stopped while the question waited: the escalation's timer had not fired yet; it fires with no worker up.
    expect(await timerFired()).toBe(false);
    await eventually(timerFired);
    expect(told(task.id, 'lena')).toBeUndefined();

    replacement = await startTestWorker(harness.worker.taskQueue, { approvals: { ...approvals, webhookUrl: hookUrl } });
    const notice = await eventually(() => told(task.id, 'lena'));
    expect(notice.body).toMatchObject({ kind: 'ask' });
    const question = (await read(task.id)).metadata.pendingQuestion;
    expect(question.responders).toEqual(['bob', 'group:finance-leads']);
    expect(Date.parse(question.escalated[0].at)).toBeGreaterThanOrEqual(Date.parse(question.askedAt) + 8_000);
    const answered = await answer(task.id, 'lena');
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
