/**
 * Records workflow histories for the replay test (test/integration/workflows/replay.test.ts). Run it after a
 * deliberate change of workflow behaviour (guarded by `patched()`), keeping the older histories:
 *   npx tsx scripts/record-histories.ts v3 [scenario...]
 * It starts its own dev server and worker and writes test/fixtures/histories/<version>-<scenario>.json
 * (every scenario, or only those named).
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { exportJWK, generateKeyPair } from 'jose';
import { NativeConnection } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '../src/temporal/dev-server.js';
import { startFakeModelServer, type FakeModelServer } from '../src/testing/fake-model-server.js';
import { cancelTask, finalTask, reply, startTask, waitForState } from '../test/support/tasks.js';
import { TEST_ACTIVITIES, TEST_AGENTS_MODULE } from '../test/support/worker.js';
import { createAgentWorker } from '../src/worker/create-worker.js';
import { readSettings } from '../src/config/settings.js';
import { scheduleOptions } from '../src/schedules/schedules.js';
import {
  ANSWERS_QUESTION_METADATA,
  taskQuery,
  type ReceiptRequest,
  type TimelineEntry,
} from '../src/protocol/contract.js';

const OUT = fileURLToPath(new URL('../test/fixtures/histories/', import.meta.url));
const VERSION = process.argv[2];
if (!VERSION) throw new Error('Usage: npx tsx scripts/record-histories.ts VERSION (e.g. v3)');
const ONLY = process.argv.slice(3);
const TASK_QUEUE = 'record-histories';
// The worker's settings: the push scenario's webhook listens on loopback; a throwaway key signs each
// decision's receipt (only the JWS enters history).
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const SETTINGS = readSettings({
  A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1',
  A2A_RECEIPT_SIGNING_KEY: JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'record', alg: 'ES256' }),
});

type Scenario = (client: Client) => Promise<WorkflowHandle>;

const scenarios: Record<string, Scenario> = {
  async 'expense-approved'(client) {
    // As the gateway sends blocking messages: each update answers once the task settles.
    const { handle } = await startTask(client, TASK_QUEUE, 'expense-approval', {
      text: 'Please approve an expense of 120 USD for a team lunch',
      untilSettled: true,
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'approve', responder: 'alice', untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  // Release 10 (task-patches.ts): the answer, given in the inbox, is signed before the agent goes on;
  // from release 15 only when the task's starter (a gateway with the key) asked for receipts.
  'receipt-signed': (client) => inboxAnswer(client, { receipts: true }),
  // Release 15: started by a gateway without the key, the answer schedules no signing activity.
  'answer-unsigned': (client) => inboxAnswer(client),
  async 'ask-canceled'(client) {
    // As the gateway cancels (A2A CancelTask): the update, then Temporal's cancellation.
    const { taskId, handle } = await startTask(client, TASK_QUEUE, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    await cancelTask(client, taskId, { by: 'alice' });
    await finalTask(handle);
    return handle;
  },
  async 'expense-denied'(client) {
    const { handle } = await startTask(client, TASK_QUEUE, 'expense-approval', {
      text: 'Please approve an expense of 99 EUR for a conference',
      untilSettled: true,
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'deny', responder: 'bob', untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'agent-failed'(client) {
    const { handle } = await startTask(client, TASK_QUEUE, 'test-fail', { text: 'go', untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'report-streamed'(client) {
    const { handle } = await startTask(client, TASK_QUEUE, 'long-report', {
      text: 'replay',
      data: { sections: 3, sectionMs: 10 },
    });
    await finalTask(handle);
    return handle;
  },
  async 'llm-approved'(client) {
    model.script(
      { toolCalls: [{ name: 'place_order', arguments: { item: 'monitor', quantity: 3, total: 450 }, id: 'call-1' }] },
      { text: 'Ordered 3 monitors.', chunkSize: 4, chunkDelayMs: 60 },
    );
    const { handle } = await startTask(client, TASK_QUEUE, 'test-llm', { text: 'Buy 3 monitors' });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'approve', responder: 'alice' });
    await finalTask(handle);
    return handle;
  },
  async 'llm-steps-continued'(client) {
    // Its maxSteps (2) reached: the task asks like a budget (release 7), "continue" goes on.
    const lookup = { toolCalls: [{ name: 'lookup_price', arguments: { item: 'desk' } }] };
    model.script(lookup, lookup, { text: 'A desk costs 150.' });
    const { handle } = await startTask(client, TASK_QUEUE, 'test-llm-steps', { text: 'Price of a desk' });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'continue' });
    await finalTask(handle);
    return handle;
  },
  async 'expense-pushed'(client) {
    // A webhook that fails its first attempt: deliveries retry, in order, and the task is not held up.
    let attempts = 0;
    const webhook = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(++attempts === 1 ? 503 : 200).end());
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    try {
      const { handle } = await startTask(client, TASK_QUEUE, 'expense-approval', {
        text: 'Please approve an expense of 120 USD for a team lunch',
        untilSettled: true,
        pushConfig: {
          id: 'hook',
          url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`,
          token: 'recorded',
        },
      });
      await waitForState(handle, 'input-required');
      await reply(handle, { text: 'approve', responder: 'alice', untilSettled: true });
      await finalTask(handle);
      return handle;
    } finally {
      webhook.close();
    }
  },
  async 'activity-retried'(client) {
    // An activity failing twice: the worker signals the task, whose status says so, then it completes.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-flaky', { text: 'go' });
    await finalTask(handle);
    return handle;
  },
  async 'ask-notified'(client) {
    // Release 4 (task-patches.ts): the approver hears of the question by webhook, then the task ends.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'Approve the vendor contract',
      data: { responders: ['alice'], notify: ['webhook'], deadline: '1 hour' },
    });
    await waitForState(handle, 'input-required');
    while (approverNotices.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    await reply(handle, { text: 'approve', responder: 'alice' });
    await finalTask(handle);
    return handle;
  },
  async 'ask-notified-canceled'(client) {
    // Release 6 (task-patches.ts): the approver told of the question hears that the task was canceled.
    const before = approverNotices.length;
    const { taskId, handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'Approve the vendor contract',
      data: { responders: ['alice'], notify: ['webhook'], deadline: '1 hour' },
    });
    await waitForState(handle, 'input-required');
    while (approverNotices.length === before) await new Promise((resolve) => setTimeout(resolve, 50));
    await cancelTask(client, taskId, { by: 'alice', reason: 'Not needed any more' });
    await finalTask(handle);
    return handle;
  },
  async 'deputy-answered'(client) {
    // Release 12 (task-patches.ts): the deputies come from the directory as the question opens; carol,
    // bob's deputy now, is told of it with bob and answers for him.
    const before = approverNotices.length;
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'Approve the vendor contract',
      data: { responders: ['bob'], notify: ['webhook'], deadline: '1 hour' },
      caller: { id: 'alice', groups: [] },
    });
    await waitForState(handle, 'input-required');
    while (approverNotices.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 50));
    await reply(handle, {
      text: 'approve',
      responder: 'carol',
      caller: { id: 'carol', groups: [] },
      untilSettled: true,
    });
    await finalTask(handle);
    return handle;
  },
  async 'ask-escalated'(client) {
    // Release 13 (task-patches.ts): unanswered for 2 s, bob's question widens to dave, who is told and answers.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'Approve the vendor invoice',
      data: { responders: ['bob'], notify: ['webhook'], escalate: [{ after: '2 s', to: ['dave'] }] },
      caller: { id: 'alice', groups: [] },
    });
    await waitForState(handle, 'input-required');
    // Dave is told only by the escalation (no other scenario names him).
    while (!approverNotices.some((id) => id.includes(':dave:webhook:ask'))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await reply(handle, { text: 'approve', responder: 'dave', caller: { id: 'dave', groups: [] }, untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'escalation-deputy-answered'(client) {
    // Release 17 (task-patches.ts): unanswered for 2 s, bob's question moves to erin; her deputy frank,
    // read from the directory at the escalation, is told and answers for her.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'Approve the vendor renewal',
      data: { responders: ['bob'], notify: ['webhook'], escalate: [{ after: '2 s', to: ['erin'], mode: 'move' }] },
      caller: { id: 'alice', groups: [] },
    });
    await waitForState(handle, 'input-required');
    // Its events pass the 60 at which the dev server suggests continue-as-new: the first run holds the escalation.
    const { runId } = await handle.describe();
    // Frank is told only as erin's deputy (no other scenario names either).
    while (!approverNotices.some((id) => id.includes(':frank:webhook:ask'))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await reply(handle, {
      text: 'approve',
      responder: 'frank',
      caller: { id: 'frank', groups: [] },
      untilSettled: true,
    });
    await finalTask(handle);
    return client.workflow.getHandle(handle.workflowId, runId);
  },
  async 'scheduled-answered'(client) {
    // A Schedule's run (src/schedules): the first message in the input, the task ID from the workflow ID.
    const entry = {
      id: 'record',
      agent: 'test-ask',
      every: '1 day',
      message: 'x',
      owner: 'alice',
      overlap: 'skip' as const,
    };
    const schedule = await client.schedule.create({ ...scheduleOptions(entry, TASK_QUEUE), state: { paused: true } });
    await schedule.trigger();
    let workflowId: string | undefined;
    while (!workflowId) workflowId = (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId;
    await schedule.delete();
    const handle = client.workflow.getHandle(workflowId);
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'done', responder: 'alice', caller: { id: 'alice', groups: [] }, untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'asks-several'(client) {
    // Release 10: two questions at once (Promise.all of ctx.ask), answered in reverse order by their ids.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask-several', {
      text: 'two',
      data: {
        questions: [
          { question: 'Furniture?', responders: ['alice'], notify: ['webhook'] },
          { question: 'Laptops?', responders: ['bob'] },
        ],
      },
    });
    const [furniture, laptops] = await openQuestionIds(handle);
    await reply(handle, {
      text: 'yes',
      responder: 'bob',
      metadata: { [ANSWERS_QUESTION_METADATA]: { question: laptops } },
    });
    await reply(handle, {
      text: 'yes',
      responder: 'alice',
      metadata: { [ANSWERS_QUESTION_METADATA]: { question: furniture } },
    });
    await finalTask(handle);
    return handle;
  },
  async 'quorum-approved'(client) {
    // Release 16: a quorum of two; the first vote keeps the task waiting, the second decides.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'buy',
      data: { responders: ['bob', 'carol'], quorum: { required: 2 } },
      untilSettled: true,
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'approve', responder: 'bob', untilSettled: true });
    await reply(handle, { text: 'approve, agreed', responder: 'carol', untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'quorum-reminded'(client) {
    // Release 18: gina's vote keeps the question waiting; its reminder goes to hank alone, whose vote decides.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask', {
      text: 'buy',
      data: {
        responders: ['gina', 'hank'],
        quorum: { required: 2 },
        notify: ['webhook'],
        deadline: '1 minute',
        remind: ['55 seconds before'],
      },
      untilSettled: true,
    });
    await waitForState(handle, 'input-required');
    await reply(handle, { text: 'approve', responder: 'gina', untilSettled: true });
    // Hank is named by no other scenario.
    while (!approverNotices.some((id) => id.includes(':hank:webhook:reminder'))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await reply(handle, { text: 'approve', responder: 'hank', untilSettled: true });
    await finalTask(handle);
    return handle;
  },
  async 'status-while-asking'(client) {
    // Release 14: a status update (ctx.status) after one answer keeps the task input-required with the others.
    const { handle } = await startTask(client, TASK_QUEUE, 'test-ask-several', {
      text: 'three',
      data: { questions: [{ question: 'Desk?' }, { question: 'Chair?' }, { question: 'Lamp?' }], reportEach: true },
    });
    const ids = await openQuestionIds(handle, 3);
    await reply(handle, { text: 'yes', metadata: { [ANSWERS_QUESTION_METADATA]: { question: ids[0] } } });
    // The agent says so while the other two wait; each is then answered by its id.
    const said = async () => {
      const timeline = ((await handle.query(taskQuery, {})).metadata?.timeline ?? []) as TimelineEntry[];
      return timeline.some((entry) => entry.message?.startsWith('Answered: Desk?'));
    };
    while (!(await said())) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const id of ids.slice(1)) {
      await reply(handle, { text: 'yes', metadata: { [ANSWERS_QUESTION_METADATA]: { question: id } } });
    }
    await finalTask(handle);
    return handle;
  },
  async 'llm-parallel'(client) {
    // Release 10: three tool calls in one answer, the free one at once, two approvals asked together.
    model.script(
      {
        toolCalls: [
          { name: 'lookup_price', arguments: { item: 'desk' }, id: 'price' },
          { name: 'order_furniture', arguments: { item: 'desk', quantity: 2, total: 300 }, id: 'desk' },
          { name: 'order_laptops', arguments: { item: 'laptop', quantity: 3, total: 3000 }, id: 'laptop' },
        ],
      },
      { text: 'Ordered the desks and the laptops.' },
    );
    const { handle } = await startTask(client, TASK_QUEUE, 'test-llm-parallel', { text: 'Furnish the office' });
    const [furniture, laptops] = await openQuestionIds(handle);
    await reply(handle, {
      text: 'approve',
      responder: 'ivan',
      caller: { id: 'ivan', groups: ['it'] },
      metadata: { [ANSWERS_QUESTION_METADATA]: { question: laptops } },
    });
    await reply(handle, {
      text: 'deny too dear',
      responder: 'fiona',
      caller: { id: 'fiona', groups: ['facilities'] },
      metadata: { [ANSWERS_QUESTION_METADATA]: { question: furniture } },
    });
    await finalTask(handle);
    return handle;
  },
  async 'chat-continued-as-new'(client) {
    const { handle } = await startTask(client, TASK_QUEUE, 'test-chat', { text: 'chat', data: { turns: 12 } });
    for (let turn = 1; turn <= 12; turn++) {
      await waitForState(handle, 'input-required');
      await reply(handle, { text: `a${turn}` });
    }
    await finalTask(handle);
    // The last run replays the carried state and journal.
    return handle;
  },
};

/** An expense asked over A2A and approved in the inbox; the task asks for what `request` says. */
async function inboxAnswer(client: Client, request: ReceiptRequest = {}): Promise<WorkflowHandle> {
  const { handle } = await startTask(
    client,
    TASK_QUEUE,
    'expense-approval',
    { text: 'Please approve an expense of 120 USD for a team lunch', channel: 'a2a', untilSettled: true },
    request,
  );
  await waitForState(handle, 'input-required');
  await reply(handle, { text: 'approve', responder: 'alice', channel: 'inbox', untilSettled: true });
  await finalTask(handle);
  return handle;
}

/** The ids of the task's open questions, once two are open. */
async function openQuestionIds(handle: WorkflowHandle, count = 2): Promise<string[]> {
  for (;;) {
    const task = await waitForState(handle, 'input-required');
    const open = (task.metadata?.pendingQuestions ?? []) as { id: string }[];
    if (open.length === count) return open.map(({ id }) => id);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let model: FakeModelServer;
/** What the approvers' webhook received (the ask-notified scenario). */
const approverNotices: string[] = [];

async function main(): Promise<void> {
  model = await startFakeModelServer();
  const approversHook = createServer((req, res) => {
    approverNotices.push(String(req.headers['x-a2a-notification-id']));
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => approversHook.listen(0, '127.0.0.1', resolve));
  const today = { from: new Date().toISOString(), until: new Date(Date.now() + 86_400_000).toISOString() };
  const server = await startDevServer({ dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 60 } });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue: TASK_QUEUE,
    settings: SETTINGS,
    agents: TEST_AGENTS_MODULE,
    activities: TEST_ACTIVITIES,
    model: { baseURL: model.url, model: 'fake-model' },
    approvals: {
      webhookUrl: `http://127.0.0.1:${(approversHook.address() as AddressInfo).port}/approvals`,
      // Bob's deputy for the day (the deputy-answered scenario), and erin's (escalation-deputy-answered).
      directory: {
        principals: {
          bob: { delegates: [{ to: 'carol', ...today }] },
          erin: { delegates: [{ to: 'frank', ...today }] },
        },
        groups: {},
      },
    },
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  mkdirSync(OUT, { recursive: true });
  try {
    await worker.runUntil(async () => {
      for (const [name, scenario] of Object.entries(scenarios)) {
        if (ONLY.length > 0 && !ONLY.includes(name)) continue;
        const handle = await scenario(client);
        const history = await handle.fetchHistory();
        writeFileSync(`${OUT}${VERSION}-${name}.json`, historyToJSON(history));
        console.log(`recorded ${name}: ${history.events?.length} events`);
      }
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await server.stop();
    await model.close();
    approversHook.close();
  }
}

await main();
