/**
 * Several questions open in one task (DESIGN.md §18), through a real gateway with API keys, a real
 * worker restarted between the answers, and approver notices by a real local webhook: both
 * questions show on the wire (status text, a DataPart, `metadata.pendingQuestions`) and each in its
 * approver's inbox; a reply naming none is refused with the open ids; each approver answers their
 * own, in reverse order, and the task goes on once both are in.
 */
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveGateway, type ServedGateway } from '../../../src/gateway/server.js';
import { ANSWERS_QUESTION_METADATA } from '../../../src/protocol/contract.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { llmParallelAgent } from '../../support/agents/llm-agents.js';
import { askingTwiceAgent } from '../../support/agents/test-agents.js';
import { apiKeyPeople, rpcWithKey } from '../../support/browser.js';
import { placedOrders, priceLookups } from '../../support/test-activities.js';
import { Webhook } from '../../support/webhook.js';
import { startTestWorker, type TestWorker } from '../../support/worker.js';

const PEOPLE = { olga: ['staff'], fiona: ['facilities'], ivan: ['it'] } as const;
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople('several', PEOPLE);

let model: FakeModelServer;
let webhook: Webhook;
let hookUrl: string;
let worker: TestWorker;
let connection: Connection;
let gateway: ServedGateway;
const taskQueue = `several-${randomUUID()}`;

function startWorker(): Promise<TestWorker> {
  return startTestWorker(taskQueue, {
    model: { baseURL: model.url, model: 'fake-model' },
    approvals: {
      directory: {
        principals: { fiona: {}, ivan: {} },
        groups: { facilities: ['fiona'], it: ['ivan'] },
      },
      webhookUrl: hookUrl,
      publicUrl: 'https://approvals.example.com',
      policy: { allowedHosts: new Set(['127.0.0.1']) },
    },
  });
}

beforeAll(async () => {
  model = await startFakeModelServer();
  webhook = new Webhook();
  hookUrl = await webhook.start();
  worker = await startWorker();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  gateway = await serveGateway({
    agents: [askingTwiceAgent, llmParallelAgent],
    authenticator,
    grpcPort: false,
    client: new TemporalClient({ connection, namespace: 'default' }),
    taskQueue,
  });
});

afterAll(async () => {
  await gateway?.close();
  await worker?.shutdown();
  await connection?.close();
  await webhook?.close();
  await model?.close();
});

function rpc(agent: string, method: string, params: unknown, person: Person): Promise<any> {
  return rpcWithKey(`${gateway.url}/agents/${agent}`, keyOf(person), method, params);
}

async function send(agent: string, person: Person, message: Record<string, unknown>): Promise<any> {
  const sent = await rpc(
    agent,
    'SendMessage',
    { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } },
    person,
  );
  return sent.task;
}

/** The reply's error, as the gateway answered it. */
async function refusalOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'accepted',
    (error: unknown) => String((error as Error).message),
  );
}

/** The inbox rows `person` sees for `taskId`, once visibility lists `count` of them. */
async function inboxRows(person: Person, taskId: string, count: number): Promise<any[]> {
  const rowsOf = async () => {
    const response = await fetch(`${gateway.url}/inbox/api/questions`, { headers: { 'x-api-key': keyOf(person) } });
    const page = (await response.json()) as { questions: any[] };
    return page.questions.filter((row) => row.taskId === taskId);
  };
  await expect.poll(async () => (await rowsOf()).length, { timeout: 20_000 }).toBe(count);
  return rowsOf();
}

/** The approver notices that asked, for `taskId`, once `count` came. */
async function asked(taskId: string, count: number): Promise<Record<string, unknown>[]> {
  const mine = () =>
    webhook.received
      .map((received) => received.body as Record<string, unknown>)
      .filter((body) => body.taskId === taskId && body.kind === 'ask');
  await expect.poll(() => mine().length, { timeout: 20_000 }).toBe(count);
  return mine();
}

/** Restarts the worker: the tasks wait on in Temporal, and the next worker replays them. */
async function restartWorker(): Promise<void> {
  await worker.shutdown();
  worker = await startWorker();
}

/** The several-questions DataPart of a status message. */
function questionsPart(task: any): any[] {
  return task.status.message.parts.find((part: any) => part.data?.questions)?.data.questions;
}

describe('several open questions', () => {
  it('Promise.all of two ctx.ask: both open at once, each answered by its own approver in reverse order across a worker restart', async () => {
    const run = randomUUID().slice(0, 8);
    const questions = [
      { question: `Furniture ${run}?`, responders: ['group:facilities'], notify: ['webhook'] },
      { question: `Laptops ${run}?`, responders: ['group:it'], notify: ['webhook'] },
    ];
    const started = await send('test-ask-several', 'olga', { parts: [{ text: 'two' }, { data: { questions } }] });
    expect(started.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId: string = started.id;

    const task = await rpc('test-ask-several', 'GetTask', { id: taskId }, 'olga');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const listed = questionsPart(task);
    expect(listed.map((question: any) => question.text)).toEqual([`Furniture ${run}?`, `Laptops ${run}?`]);
    const [furniture, laptops] = listed.map((question: any) => question.id as string) as [string, string];
    expect(furniture).not.toBe(laptops);
    expect(listed[1]).toMatchObject({ id: laptops, responders: ['group:it'] });
    const text = task.status.message.parts[0].text as string;
    expect(text).toContain(`${furniture}: Furniture ${run}?`);
    expect(text).toContain(`${laptops}: Laptops ${run}?`);
    expect(task.metadata.pendingQuestions.map((question: any) => question.id)).toEqual([furniture, laptops]);
    // Old clients see the earliest, as they always did.
    expect(task.metadata.pendingQuestion).toMatchObject({
      prompt: `Furniture ${run}?`,
      responders: ['group:facilities'],
    });
    expect(task.metadata.pendingQuestion.id).toBeUndefined();

    // Each approver's inbox lists their own question; each was told of it.
    expect((await inboxRows('fiona', taskId, 1))[0].question).toMatchObject({
      id: furniture,
      prompt: `Furniture ${run}?`,
    });
    expect((await inboxRows('ivan', taskId, 1))[0].question).toMatchObject({ id: laptops, prompt: `Laptops ${run}?` });
    const notices = await asked(taskId, 2);
    expect(notices.map((notice) => [notice.approver, notice.question, notice.questionId]).sort()).toEqual([
      ['fiona', `Furniture ${run}?`, furniture],
      ['ivan', `Laptops ${run}?`, laptops],
    ]);

    // A reply that names no question while two are open is refused, with both ids.
    const unnamed = await refusalOf(send('test-ask-several', 'ivan', { taskId, parts: [{ text: 'yes' }] }));
    expect(unnamed).toContain(furniture);
    expect(unnamed).toContain(laptops);
    // Fiona may not answer the laptops.
    const answers = (id: string) => ({ [ANSWERS_QUESTION_METADATA]: { question: id } });
    const notHers = await refusalOf(
      send('test-ask-several', 'fiona', { taskId, parts: [{ text: 'yes' }], metadata: answers(laptops) }),
    );
    expect(notHers).toContain('Only group:it may answer');
    // Ivan may answer only the second question, and sees the task: by the gateway's describe and the task's own metadata.
    expect((await rpc('test-ask-several', 'GetTask', { id: taskId }, 'ivan')).id).toBe(taskId);

    // Ivan answers the second: the first still waits, shown exactly as a task's one question is.
    await send('test-ask-several', 'ivan', { taskId, parts: [{ text: 'laptops ok' }], metadata: answers(laptops) });
    const one = await rpc('test-ask-several', 'GetTask', { id: taskId }, 'olga');
    expect(one.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(one.status.message.parts).toEqual([{ text: `Furniture ${run}?` }]);
    expect(one.metadata.pendingQuestions).toBeUndefined();
    expect(one.metadata.pendingQuestion.prompt).toBe(`Furniture ${run}?`);
    // Ivan's row leaves his inbox; Fiona's stays.
    await inboxRows('ivan', taskId, 0);
    expect((await inboxRows('fiona', taskId, 1))[0].question.prompt).toBe(`Furniture ${run}?`);

    await restartWorker();
    // One open question again: a reply need not name it.
    await send('test-ask-several', 'fiona', { taskId, parts: [{ text: 'furniture ok' }] });
    await expect
      .poll(async () => (await rpc('test-ask-several', 'GetTask', { id: taskId }, 'olga')).status.state, {
        timeout: 20_000,
      })
      .toBe('TASK_STATE_COMPLETED');
    const done = await rpc('test-ask-several', 'GetTask', { id: taskId }, 'olga');
    expect(JSON.parse(done.status.message.parts[0].text)).toEqual([
      { text: 'furniture ok', responder: 'fiona' },
      { text: 'laptops ok', responder: 'ivan' },
    ]);
  });

  it('a status update while questions wait keeps the task input-required with them, its text before the questions', async () => {
    const run = randomUUID().slice(0, 8);
    const prompts = [`Desk ${run}?`, `Chair ${run}?`, `Lamp ${run}?`];
    const questions = prompts.map((question) => ({ question }));
    const started = await send('test-ask-several', 'olga', {
      parts: [{ data: { questions, reportEach: true } }],
    });
    const taskId: string = started.id;
    const getTask = () => rpc('test-ask-several', 'GetTask', { id: taskId }, 'olga');
    const [desk, chair, lamp] = questionsPart(await getTask()).map((question: any) => question.id as string) as [
      string,
      string,
      string,
    ];
    const answers = (id: string) => ({ [ANSWERS_QUESTION_METADATA]: { question: id } });

    // The desk's answer makes the agent say so (ctx.status) while the chair and the lamp still wait.
    await send('test-ask-several', 'olga', { taskId, parts: [{ text: 'desk ok' }], metadata: answers(desk) });
    const said = `Answered: Desk ${run}?`;
    const statusSaid = (task: any) => task.metadata.timeline.some((entry: any) => entry.message?.startsWith(said));
    await expect.poll(async () => statusSaid(await getTask()), { timeout: 20_000 }).toBe(true);
    const task = await getTask();
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.parts[0]).toEqual({ text: said });
    expect(questionsPart(task).map((question: any) => question.id)).toEqual([chair, lamp]);
    expect(task.metadata.pendingQuestions.map((question: any) => question.id)).toEqual([chair, lamp]);
    expect(task.metadata.timeline.at(-1)).toMatchObject({ state: 'input-required', by: 'agent' });

    // Both still take their answers; the chair's status leaves the lamp showing as a task's one question.
    await send('test-ask-several', 'olga', { taskId, parts: [{ text: 'chair ok' }], metadata: answers(chair) });
    await expect
      .poll(async () => (await getTask()).status.message.parts, { timeout: 20_000 })
      .toEqual([{ text: `Answered: Chair ${run}?` }, { text: `Lamp ${run}?` }]);
    await send('test-ask-several', 'olga', { taskId, parts: [{ text: 'lamp ok' }] });
    await expect.poll(async () => (await getTask()).status.state, { timeout: 20_000 }).toBe('TASK_STATE_COMPLETED');
  });

  it('an LLM asking for three tools at once: the free one runs at once, both approvals wait together, each approved call runs once, the model is called once after both', async () => {
    const run = randomUUID().slice(0, 8);
    const desk = `desk ${run}`;
    const laptop = `laptop ${run}`;
    model.script(
      {
        match: run,
        toolCalls: [
          { name: 'lookup_price', arguments: { item: desk }, id: `price-${run}` },
          { name: 'order_furniture', arguments: { item: desk, quantity: 2, total: 300 }, id: `desk-${run}` },
          { name: 'order_laptops', arguments: { item: laptop, quantity: 3, total: 3000 }, id: `laptop-${run}` },
        ],
      },
      // Only a request with the tools' results matches (the lookup's output names unitPrice).
      { match: 'unitPrice', text: `Ordered the ${desk} and the ${laptop}.` },
    );
    const started = await send('test-llm-parallel', 'olga', { parts: [{ text: `Furnish the office ${run}` }] });
    expect(started.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId: string = started.id;

    const task = await rpc('test-llm-parallel', 'GetTask', { id: taskId }, 'olga');
    // Listed in the order they opened: each question's deputies are read by an activity first, and
    // which of the two comes back first is up to the machine.
    const listed = [...questionsPart(task)].sort((a: any, b: any) => a.tool.localeCompare(b.tool));
    expect(listed).toMatchObject([
      { tool: 'order_furniture', arguments: { item: desk }, responders: ['group:facilities'] },
      { tool: 'order_laptops', arguments: { item: laptop }, responders: ['group:it'] },
    ]);
    const [furniture, laptops] = listed.map((question: any) => question.id as string) as [string, string];
    // The free tool ran while both approvals wait; nothing was ordered.
    await expect.poll(() => priceLookups.filter((item) => item === desk).length, { timeout: 20_000 }).toBe(1);
    expect(placedOrders.filter((order) => order.item.endsWith(run))).toEqual([]);
    expect((await inboxRows('fiona', taskId, 1))[0].question).toMatchObject({ id: furniture });
    expect((await inboxRows('ivan', taskId, 1))[0].question).toMatchObject({ id: laptops });
    const notices = await asked(taskId, 2);
    expect(notices.map((notice) => [notice.approver, notice.questionId]).sort()).toEqual([
      ['fiona', furniture],
      ['ivan', laptops],
    ]);
    const unnamed = await refusalOf(send('test-llm-parallel', 'ivan', { taskId, parts: [{ text: 'approve' }] }));
    expect(unnamed).toContain(furniture);
    expect(unnamed).toContain(laptops);

    // The second first, by its approver: its call runs at once, the first still waits.
    const answers = (id: string) => ({ [ANSWERS_QUESTION_METADATA]: { question: id } });
    await send('test-llm-parallel', 'ivan', { taskId, parts: [{ text: 'approve' }], metadata: answers(laptops) });
    await expect.poll(() => placedOrders.filter((order) => order.item === laptop).length, { timeout: 20_000 }).toBe(1);
    const waiting = await rpc('test-llm-parallel', 'GetTask', { id: taskId }, 'olga');
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(waiting.metadata.pendingQuestion.details).toMatchObject({ tool: 'order_furniture' });
    expect(model.requestsMatching(run)).toHaveLength(1);

    await restartWorker();
    await send('test-llm-parallel', 'fiona', { taskId, parts: [{ text: 'approve' }], metadata: answers(furniture) });
    await expect
      .poll(async () => (await rpc('test-llm-parallel', 'GetTask', { id: taskId }, 'olga')).status.state, {
        timeout: 20_000,
      })
      .toBe('TASK_STATE_COMPLETED');
    const done = await rpc('test-llm-parallel', 'GetTask', { id: taskId }, 'olga');
    expect(done.status.message.parts[0].text).toBe(`Ordered the ${desk} and the ${laptop}.`);
    // Each tool ran once; the model was called once more, with all three results.
    expect(priceLookups.filter((item) => item === desk)).toHaveLength(1);
    expect(
      placedOrders
        .filter((order) => order.item.endsWith(run))
        .map((order) => order.item)
        .sort(),
    ).toEqual([desk, laptop]);
    const calls = model.requestsMatching(run);
    expect(calls).toHaveLength(2);
    const results = JSON.stringify(calls[1]);
    for (const id of [`price-${run}`, `desk-${run}`, `laptop-${run}`]) expect(results).toContain(id);
  });
});
