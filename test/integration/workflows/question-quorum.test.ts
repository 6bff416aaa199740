/**
 * Quorum (docs/approval-policies.md, Quorum), through a real gateway with API keys and a real worker
 * restarted between the votes (and a run continued as new): a question stays open until enough
 * distinct approvers approve; a second vote of the same person (or of their deputy) is refused by
 * the Update's validator, leaving no trace in history; one deny rejects; `allOf` takes each group's
 * own approvals; the requester never votes with `notByRequester`; an LLM tool's call with
 * `quorum: 2` runs only after two approvals.
 */
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { decodeJwt, exportJWK, generateKeyPair, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { run } from '../../../src/cli/run.js';
import type { Io } from '../../../src/cli/io.js';
import { readSettings } from '../../../src/config/settings.js';
import { serveGateway, type ServedGateway } from '../../../src/gateway/server.js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { deletePushConfigUpdate } from '../../../src/protocol/push.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { llmQuorumAgent } from '../../support/agents/llm-agents.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { apiKeyPeople, rpcWithKey } from '../../support/browser.js';
import { placedOrders } from '../../support/test-activities.js';
import { Webhook } from '../../support/webhook.js';
import { startTestWorker, type TestWorker } from '../../support/worker.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const HOUR = 3_600_000;
const at = (offset: number) => new Date(Date.now() + offset).toISOString();
const PEOPLE = {
  alice: ['finance'],
  bob: ['finance'],
  carol: ['finance'],
  dora: [],
  sam: ['security'],
} as const;
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople('quorum', PEOPLE);

let model: FakeModelServer;
let receiptKey: JWK;
let webhook: Webhook;
let hookUrl: string;
let worker: TestWorker;
let connection: Connection;
let temporal: TemporalClient;
let gateway: ServedGateway;
const taskQueue = `quorum-${randomUUID()}`;
const temp = useTempDirs();
const startedAt = new Date();

/** The CLI, run in this process: its exit code. */
function cli(args: string[]): Promise<number> {
  const io: Io = { out: () => {}, err: () => {}, env: {}, now: () => new Date() };
  return run(args, io);
}

function startWorker(): Promise<TestWorker> {
  return startTestWorker(taskQueue, {
    model: { baseURL: model.url, model: 'fake-model' },
    settings: readSettings({ A2A_RECEIPT_SIGNING_KEY: JSON.stringify(receiptKey) }),
    approvals: {
      // Dora stands in for bob now.
      directory: {
        principals: { bob: { delegates: [{ to: 'dora', from: at(-HOUR), until: at(HOUR) }] } },
        groups: { finance: ['alice', 'bob', 'carol'], security: ['sam'] },
      },
      webhookUrl: hookUrl,
      policy: { allowedHosts: new Set(['127.0.0.1']) },
    },
  });
}

beforeAll(async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  receiptKey = { ...(await exportJWK(privateKey)), kid: 'quorum', alg: 'ES256' };
  model = await startFakeModelServer();
  webhook = new Webhook();
  hookUrl = await webhook.start();
  worker = await startWorker();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  temporal = new TemporalClient({ connection, namespace: 'default' });
  gateway = await serveGateway({
    agents: [askingAgent, llmQuorumAgent],
    authenticator,
    grpcPort: false,
    client: temporal,
    taskQueue,
    // With the key, the gateway starts each task asking for receipts (release 15).
    receiptSigningKey: receiptKey,
  });
});

afterAll(async () => {
  await gateway?.close();
  await worker?.shutdown();
  await connection?.close();
  await model?.close();
  await webhook?.close();
});

function rpc(agent: string, method: string, params: unknown, person: Person): Promise<any> {
  return rpcWithKey(`${gateway.url}/agents/${agent}`, keyOf(person), method, params);
}

/** `person` asks test-ask a question configured by `data`; the task, waiting. */
async function asked(person: Person, data: Record<string, unknown>): Promise<any> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Buy it' }, { data }] };
  const { task } = await rpc('test-ask', 'SendMessage', { message }, person);
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task;
}

/** `person` votes `text` and waits for the answer (a vote that does not decide answers at once); the task. */
async function vote(agent: string, taskId: string, person: Person, text: string): Promise<any> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text }] };
  const sent = await rpc(agent, 'SendMessage', { message, configuration: { returnImmediately: false } }, person);
  return sent.task ?? (await rpc(agent, 'GetTask', { id: taskId }, person));
}

async function refusalOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'accepted',
    (error: unknown) => String((error as Error).message),
  );
}

/** The task's history as Temporal keeps it (every run's). */
async function historyLength(taskId: string): Promise<number> {
  const history = await temporal.workflow.getHandle(workflowIdForTask(taskId)).fetchHistory();
  return history.events?.length ?? 0;
}

/** Accepted Updates that change nothing grow the history until Temporal suggests continue-as-new. */
async function continueAsNew(taskId: string): Promise<void> {
  const handle = temporal.workflow.getHandle(workflowIdForTask(taskId));
  const firstRunId = (await handle.describe()).runId;
  for (let update = 1; update <= 100; update++) {
    await handle.executeUpdate(deletePushConfigUpdate, { args: [{ id: 'none' }] });
    if ((await temporal.workflow.getHandle(handle.workflowId).describe()).runId !== firstRunId) return;
  }
  throw new Error('The task never continued as new');
}

describe('quorum', () => {
  it('of 2: waits after one approval across a worker restart, refuses a second vote of the same person (and of their deputy) at no cost, completes at two', async () => {
    const task = await asked('alice', { responders: ['group:finance'], quorum: { required: 2 }, notify: ['webhook'] });
    // The approvers' notices (finance's three, and dora as bob's deputy) say how many must approve.
    const asks = () =>
      webhook.received.map(({ body }) => body as any).filter((body) => body.taskId === task.id && body.kind === 'ask');
    await expect.poll(() => asks().length, { timeout: 20_000 }).toBe(4);
    expect(asks()[0].text).toContain('Approvals: 0 of 2 approvals; still needed: 2 more approvals');
    expect(task.metadata.pendingQuestion.quorum).toMatchObject({
      required: 2,
      approvals: 0,
      needed: ['2 more approvals'],
    });

    const first = await vote('test-ask', task.id, 'bob', 'approve, the budget allows it');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { pendingQuestion } = first.metadata;
    expect(pendingQuestion.quorum).toMatchObject({ required: 2, approvals: 1, needed: ['1 more approval'] });
    expect(pendingQuestion.votes).toEqual([
      {
        by: 'bob',
        decision: 'approve',
        at: expect.any(String),
        channel: 'a2a',
        comment: 'approve, the budget allows it',
      },
    ]);
    expect(first.status.message.parts[1].text).toBe('Votes: 1 of 2 approvals; still needed: 1 more approval');
    expect(first.status.message.parts[2].data.votes).toHaveLength(1);
    expect(first.metadata.timeline.at(-1)).toMatchObject({ state: 'input-required', by: 'bob' });

    await worker.shutdown();
    worker = await startWorker();

    const before = await historyLength(task.id);
    expect(await refusalOf(vote('test-ask', task.id, 'bob', 'approve'))).toMatch(
      /bob already voted approve on this question at .*; each person counts once/,
    );
    // Dora is bob's deputy: her vote would be bob's second.
    expect(await refusalOf(vote('test-ask', task.id, 'dora', 'approve'))).toMatch(
      /bob already voted approve on this question at .*; each person counts once/,
    );
    expect(await refusalOf(vote('test-ask', task.id, 'carol', 'maybe later'))).toMatch(
      /This question is decided by votes \(1 of 2 approvals; still needed: 1 more approval\): reply/,
    );
    expect(await historyLength(task.id)).toBe(before);

    const done = await vote('test-ask', task.id, 'carol', 'approve');
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const result = JSON.parse(done.status.message.parts[0].text);
    expect(result).toMatchObject({ text: 'approve', responder: 'carol' });
    expect(result.votes.map((each: any) => [each.by, each.decision])).toEqual([
      ['bob', 'approve'],
      ['carol', 'approve'],
    ]);
    expect(done.metadata.votes.map((each: any) => each.by)).toEqual(['bob', 'carol']);
    // The decision's receipt names every approver.
    const receipt = done.artifacts.find((artifact: any) => artifact.name === 'decision-receipt');
    const signed = decodeJwt(receipt.parts[0].text);
    expect(signed).toMatchObject({ decision: 'approve', approver: 'carol' });
    expect((signed.votes as any[]).map((each) => [each.by, each.decision, each.channel])).toEqual([
      ['bob', 'approve', 'a2a'],
      ['carol', 'approve', 'a2a'],
    ]);

    // The other approvers hear who approved it, not only the last vote.
    const answered = () =>
      webhook.received
        .map(({ body }) => body as any)
        .find((body) => body.taskId === task.id && body.kind === 'answered' && body.approver === 'alice');
    await expect.poll(answered, { timeout: 20_000 }).toBeDefined();
    expect(answered().text).toContain('Approved by bob and carol (2 of 2 approvals): nothing more is needed from you.');

    // The audit export keeps bob's vote as a vote, carol's deciding one as the answer and decision; verified.
    const exported = join(temp.make('a2a-quorum-audit-'), 'audit.jsonl');
    const window = ['--since', startedAt.toISOString(), '--address', inject('temporalAddress')];
    expect(await cli(['audit', 'export', ...window, '--agent', 'test-ask', '--out', exported])).toBe(0);
    const records = readFileSync(exported, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((record) => record.task === task.id && record.kind !== 'notice');
    expect(records.map((record) => record.kind)).toEqual(['request', 'question', 'vote', 'answer', 'decision']);
    expect(records[2]).toMatchObject({
      by: 'bob',
      actingFor: null,
      decision: 'approve',
      channel: 'a2a',
      comment: 'approve, the budget allows it',
      askedAt: task.metadata.pendingQuestion.askedAt,
    });
    expect(records[3]).toMatchObject({ by: 'carol', text: 'approve' });
    expect(await cli(['audit', 'verify', exported])).toBe(0);
  });

  it('reminds only those who have not voted: not the voter, nor their deputy', async () => {
    const task = await asked('sam', {
      responders: ['group:finance'],
      quorum: { required: 2 },
      notify: ['webhook'],
      deadline: '40 seconds',
      remind: ['30 seconds before'],
    });
    await vote('test-ask', task.id, 'bob', 'approve');
    const reminded = async () => {
      const { metadata } = await rpc('test-ask', 'GetTask', { id: task.id }, 'sam');
      return (metadata.approverNotifications ?? [])
        .filter((notice: any) => notice.kind === 'reminder')
        .map((notice: any) => notice.approver)
        .sort();
    };
    // Finance's alice and carol; not bob, who voted, nor dora, his deputy.
    await expect.poll(reminded, { timeout: 30_000 }).toEqual(['alice', 'carol']);
  });

  it('a deputy’s approval counts toward the rule of the group their principal was reached through', async () => {
    const task = await asked('alice', {
      quorum: {
        allOf: [
          { group: 'finance', required: 1 },
          { group: 'security', required: 1 },
        ],
      },
    });
    // Dora is in no group; bob, for whom she acts, was reached through finance.
    const deputy = await vote('test-ask', task.id, 'dora', 'approve');
    expect(deputy.metadata.pendingQuestion.votes[0]).toMatchObject({ by: 'dora', actingFor: 'bob', group: 'finance' });
    expect(deputy.metadata.pendingQuestion.quorum.needed).toEqual(['1 more of group:security']);
    expect((await vote('test-ask', task.id, 'sam', 'approve')).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('keeps its votes in a run continued as new: the same person is still refused, the next approval decides', async () => {
    const task = await asked('alice', { responders: ['group:finance'], quorum: { required: 2 } });
    await vote('test-ask', task.id, 'bob', 'approve');
    await continueAsNew(task.id);
    expect(await refusalOf(vote('test-ask', task.id, 'bob', 'yes'))).toMatch(/bob already voted approve/);
    const done = await vote('test-ask', task.id, 'carol', 'approve');
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(done.status.message.parts[0].text).votes.map((each: any) => each.by)).toEqual(['bob', 'carol']);
    expect(done.metadata.votes.map((each: any) => each.by)).toEqual(['bob', 'carol']);
  });

  it('one deny rejects; rejectWhen waits for that many denies', async () => {
    const task = await asked('alice', { responders: ['group:finance'], quorum: { required: 2 } });
    await vote('test-ask', task.id, 'bob', 'approve');
    const denied = await vote('test-ask', task.id, 'carol', 'deny: over budget');
    expect(denied.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(denied.status.message.parts[0].text)).toMatchObject({ text: 'deny: over budget' });

    const patient = await asked('sam', {
      responders: ['group:finance'],
      quorum: { required: 3, rejectWhen: { denies: 2 } },
    });
    const once = await vote('test-ask', patient.id, 'bob', 'no');
    expect(once.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(once.metadata.pendingQuestion.quorum).toMatchObject({ denies: 1, rejectAt: 2 });
    expect(once.status.message.parts[1].text).toBe(
      'Votes: 0 of 3 approvals, 1 of 2 denies to reject; still needed: 3 more approvals',
    );
    expect((await vote('test-ask', patient.id, 'carol', 'deny')).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('allOf: each group gives its own approval, one person counts toward one rule', async () => {
    const task = await asked('dora', {
      quorum: {
        allOf: [
          { group: 'finance', required: 1 },
          { group: 'security', required: 1 },
        ],
      },
    });
    expect(task.metadata.pendingQuestion.responders).toEqual(['group:finance', 'group:security']);
    const finance = await vote('test-ask', task.id, 'bob', 'approve');
    expect(finance.metadata.pendingQuestion.quorum.needed).toEqual(['1 more of group:security']);
    expect(finance.metadata.pendingQuestion.votes[0]).toMatchObject({ by: 'bob', group: 'finance' });
    // Finance has approved: carol's approval counts toward nothing still open.
    expect(await refusalOf(vote('test-ask', task.id, 'carol', 'approve'))).toMatch(
      /carol's approval counts toward no rule still open \(1 of 2 approvals; still needed: 1 more of group:security\)/,
    );
    expect((await vote('test-ask', task.id, 'sam', 'approve')).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('notByRequester: the requester never votes, the others decide', async () => {
    const task = await asked('alice', { responders: ['group:finance'], notByRequester: true, quorum: { required: 2 } });
    expect(await refusalOf(vote('test-ask', task.id, 'alice', 'approve'))).toMatch(
      /The requester may not answer their own request/,
    );
    await vote('test-ask', task.id, 'bob', 'approve');
    expect((await vote('test-ask', task.id, 'carol', 'approve')).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an LLM tool with quorum 2: the call runs once, after the second approval', async () => {
    const run = randomUUID().slice(0, 8);
    const item = `chair ${run}`;
    model.script(
      {
        match: run,
        toolCalls: [{ name: 'place_order', arguments: { item, quantity: 4, total: 400 }, id: `o-${run}` }],
      },
      { match: `o-${run}`, text: `Ordered the ${item}.` },
    );
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `Buy chairs ${run}` }] };
    const { task } = await rpc('test-llm-quorum', 'SendMessage', { message }, 'dora');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.metadata.pendingQuestion.quorum).toMatchObject({ required: 2, approvals: 0 });

    const first = await vote('test-llm-quorum', task.id, 'bob', 'approve');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.metadata.pendingQuestion.quorum).toMatchObject({ approvals: 1 });
    expect(placedOrders.filter((order) => order.item === item)).toEqual([]);

    // Decided by a vote worded otherwise: the votes decide, not the word the loop reads of a plain approval.
    await vote('test-llm-quorum', task.id, 'carol', 'yes');
    await expect
      .poll(async () => (await rpc('test-llm-quorum', 'GetTask', { id: task.id }, 'dora')).status.state, {
        timeout: 20_000,
      })
      .toBe('TASK_STATE_COMPLETED');
    expect(placedOrders.filter((order) => order.item === item)).toHaveLength(1);
    expect(model.requestsMatching(run)).toHaveLength(2);
  });
});
