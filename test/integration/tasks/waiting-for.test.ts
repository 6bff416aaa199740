/**
 * "What waits for me", across agents: the A2AResponders search attribute names who may answer while
 * a question waits, and goes when it is answered; the gateway's index of waiting questions lists
 * them all once, then only what changed (A2AAskedAt), and pages them in order.
 */
import { describe, expect, it, vi } from 'vitest';
import { taskQuery } from '../../../src/protocol/contract.js';
import type { Caller } from '../../../src/protocol/caller.js';
import { RESPONDERS_ATTRIBUTE } from '../../../src/protocol/search-attributes.js';
import { WaitingQuestions, type WaitingQuestionRow } from '../../../src/tasks/index.js';
import { reply, waitForState, useTaskWorker } from '../../support/tasks.js';

const tasks = useTaskWorker();
const AGENTS = ['test-ask', 'expense-approval'];
const person = (id: string, ...groups: string[]): Caller => ({ id, groups });
const carol = person('carol', 'finance');
const dave = person('dave', 'finance');
const bob = person('bob', 'staff');

/** Every question waiting for `caller`, from a new index: one listing of them all. */
async function waiting(caller: Caller | undefined, agent?: string): Promise<WaitingQuestionRow[]> {
  const index = new WaitingQuestions(tasks.client, AGENTS, 0);
  return (await index.page({ ...(caller && { caller }), ...(agent && { agent }) })).questions;
}

describe('questions waiting for a caller', () => {
  it('lists the questions naming the caller or their groups, and their own that name nobody, across agents', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const forFinance = await tasks.start('test-ask', {
      text: `pay the invoice ${run}`,
      caller: carol,
      data: { responders: ['group:finance'], notByRequester: true, deadline: '1 hour', structured: true },
    });
    const bobsOwn = await tasks.start('expense-approval', {
      text: `Please approve an expense of 120 USD for a team lunch ${run}`,
      caller: bob,
    });
    await Promise.all([
      waitForState(forFinance.handle, 'input-required'),
      waitForState(bobsOwn.handle, 'input-required'),
    ]);
    const mine = (rows: WaitingQuestionRow[]) => rows.filter((row) => row.request?.includes(run));

    await expect.poll(async () => mine(await waiting(dave)).map((row) => row.taskId)).toEqual([forFinance.taskId]);
    const [row] = mine(await waiting(dave));
    expect(row).toMatchObject({
      agent: 'test-ask',
      askedBy: 'carol',
      request: `pay the invoice ${run}`,
      question: { kind: 'input', prompt: 'Your answer?', responders: ['group:finance'] },
    });
    expect(row!.question.deadline).toBeDefined();
    // The requester may not answer her own request: not in her inbox.
    expect(mine(await waiting(carol))).toEqual([]);
    // Bob's own question names nobody: his alone.
    await expect.poll(async () => mine(await waiting(bob)).map((r) => r.taskId)).toEqual([bobsOwn.taskId]);
    expect(mine(await waiting(dave)).map((r) => r.taskId)).not.toContain(bobsOwn.taskId);
    // A principal named like the group is not the group.
    expect(mine(await waiting(person('group:finance')))).toEqual([]);
    // Filtered by agent; without authentication every question.
    expect(mine(await waiting(dave, 'expense-approval'))).toEqual([]);
    expect(
      mine(await waiting(undefined))
        .map((r) => r.taskId)
        .sort(),
    ).toEqual([forFinance.taskId, bobsOwn.taskId].sort());

    // Operators find it with one query; the task's own question carries its reply's JSON Schema.
    const listed = tasks.client.workflow.list({ query: `${RESPONDERS_ATTRIBUTE.name} = 'group:finance'` });
    const ids: string[] = [];
    for await (const execution of listed) ids.push(execution.workflowId);
    expect(ids).toContain(forFinance.handle.workflowId);
    const task = await forFinance.handle.query(taskQuery, {});
    expect((task.metadata!.pendingQuestion as { schema?: unknown }).schema).toMatchObject({
      type: 'object',
      properties: { approved: { type: 'boolean' } },
      required: ['approved'],
    });
    // Operators see who may answer in the current details (`temporal workflow metadata`).
    const { currentDetails } = await forFinance.handle.query<{ currentDetails: string }>(
      '__temporal_workflow_metadata',
    );
    expect(currentDetails).toMatch(/^\*\*input-required\*\* \(may answer: group:finance\): Your answer\?/);
    const description = await forFinance.handle.describe();
    expect(description.typedSearchAttributes.get(RESPONDERS_ATTRIBUTE)).toEqual(['group:finance']);

    // Answered: gone from the inbox, and the attribute with it.
    await reply(forFinance.handle, { data: { approved: true }, caller: dave });
    await waitForState(forFinance.handle, 'completed');
    await expect.poll(async () => mine(await waiting(dave))).toEqual([]);
    expect((await forFinance.handle.describe()).typedSearchAttributes.get(RESPONDERS_ATTRIBUTE)).toBeUndefined();
    await reply(bobsOwn.handle, { text: 'approve', caller: bob });
  });

  it('answers a page of 40 questions with one visibility call and no per-task reads', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const started = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        tasks.start('test-ask', {
          text: `request ${i} ${run}`,
          caller: carol,
          data: { responders: ['group:finance'] },
        }),
      ),
    );
    const mine = (rows: WaitingQuestionRow[]) => rows.filter((row) => row.request?.includes(run));
    await expect.poll(async () => mine(await waiting(dave)).length, { timeout: 30_000 }).toBe(40);
    const service = tasks.client.workflowService;
    const calls = ['listWorkflowExecutions', 'countWorkflowExecutions', 'queryWorkflow', 'describeWorkflowExecution'];
    const spies = calls.map((method) => vi.spyOn(service, method as 'queryWorkflow'));
    try {
      expect(mine(await waiting(dave))).toHaveLength(40);
      expect(Object.fromEntries(calls.map((method, i) => [method, spies[i]!.mock.calls.length]))).toEqual({
        listWorkflowExecutions: 1,
        countWorkflowExecutions: 0,
        queryWorkflow: 0,
        describeWorkflowExecution: 0,
      });
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
    await Promise.all(started.map(({ handle }) => handle.terminate('test done')));
  });

  it('pages more questions than a page in order, none twice and none missing, and follows questions asked and answered since', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const ask = (i: number, deadline?: string) =>
      tasks.start('test-ask', {
        text: `request ${i} ${run}`,
        caller: carol,
        data: { responders: ['group:finance'], ...(deadline && { deadline }) },
      });
    // Deadlines out of the order they are asked in, and questions without one (listed last).
    const deadlines = ['3 hours', undefined, '1 hour', undefined, '2 hours', '4 hours', undefined];
    const started = [];
    for (const [i, deadline] of deadlines.entries()) started.push(await ask(i, deadline));
    const mine = (rows: WaitingQuestionRow[]) => rows.filter((row) => row.request?.includes(run));
    const index = new WaitingQuestions(tasks.client, AGENTS, 0);
    const all = async () => (await index.page({ caller: dave })).questions;
    await expect.poll(async () => mine(await all()).length, { timeout: 30_000 }).toBe(deadlines.length);

    /** Every page of 3 rows, following `next`; `between` runs after the first page. */
    const pages = async (between?: () => Promise<void>) => {
      const rows: WaitingQuestionRow[] = [];
      let after: string | undefined;
      do {
        const page = await index.page({ caller: dave, limit: 3, ...(after && { after }) });
        expect(page.questions.length).toBeLessThanOrEqual(3);
        expect(page.more).toBe(page.next !== undefined);
        rows.push(...page.questions);
        after = page.next;
        if (rows.length === page.questions.length) await between?.();
      } while (after);
      return rows;
    };
    const ids = (rows: WaitingQuestionRow[]) => rows.map((row) => row.taskId);
    const paged = await pages();
    expect(ids(paged)).toEqual(ids(await all()));
    expect(new Set(ids(paged)).size).toBe(paged.length);
    // The soonest deadline first, then those without one, the longest waiting first.
    expect(mine(paged).map((row) => row.request)).toEqual([2, 4, 0, 5, 1, 3, 6].map((i) => `request ${i} ${run}`));

    // Between two pages one question is answered and one asked: the others are each listed once.
    const lateTask = await ask(7, '30 minutes');
    const late = lateTask.taskId;
    await expect.poll(async () => ids(mine(await all())), { timeout: 30_000 }).toContain(late);
    const answered = started[5]!;
    const kept = ids(mine(paged)).filter((id) => id !== answered.taskId);
    const pagedAgain = await pages(async () => {
      await reply(answered.handle, { data: { approved: true }, caller: dave });
      await waitForState(answered.handle, 'completed');
    });
    expect(new Set(ids(pagedAgain)).size).toBe(pagedAgain.length);
    // The answered one may still be listed: visibility is a moment behind.
    expect(ids(mine(pagedAgain)).filter((id) => id !== late && id !== answered.taskId)).toEqual(kept);
    // The late question, asked after the index first listed them all, is first (its deadline is soonest).
    expect(ids(mine(pagedAgain))[0]).toBe(late);
    await expect.poll(async () => ids(mine(await all()))).not.toContain(answered.taskId);

    await expect(index.page({ caller: dave, after: 'not-a-cursor' })).rejects.toThrow(/cursor/);
    const waitingStill = [...started, lateTask].filter((task) => task !== answered);
    await Promise.all(waitingStill.map(({ handle }) => handle.terminate('test done')));
  });

  it('serves pages from the rows at hand while it lists every waiting question again', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const ask = (i: number) =>
      tasks.start('test-ask', { text: `request ${i} ${run}`, caller: carol, data: { responders: ['group:finance'] } });
    const mine = (rows: WaitingQuestionRow[]) => rows.filter((row) => row.request?.includes(run));
    const first = await ask(0);
    const index = new WaitingQuestions(tasks.client, AGENTS, 0);
    await expect.poll(async () => mine((await index.page({ caller: dave })).questions).length).toBe(1);
    const second = await ask(1);
    await expect.poll(async () => mine(await waiting(dave)).length).toBe(2);

    // The periodic listing of them all (5 minutes on), held until released.
    const service = tasks.client.workflowService;
    const listing = service.listWorkflowExecutions.bind(service);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = vi.spyOn(service, 'listWorkflowExecutions').mockImplementation(async (request) => {
      await released;
      return listing(request);
    });
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + 6 * 60_000);
    try {
      const meanwhile = await index.page({ caller: dave });
      expect(held).toHaveBeenCalledTimes(1);
      expect(mine(meanwhile.questions).map((row) => row.taskId)).toEqual([first.taskId]);
    } finally {
      release();
      clock.mockRestore();
    }
    await expect
      .poll(async () => mine((await index.page({ caller: dave })).questions).length, { timeout: 30_000 })
      .toBe(2);
    held.mockRestore();
    await Promise.all([first, second].map(({ handle }) => handle.terminate('test done')));
  });
});
