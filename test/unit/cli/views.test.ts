import { ListTasksResponse, Message, Task } from '@a2a-js/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { taskListView } from '../../../src/cli/task-list-view.js';
import { resultView, taskView } from '../../../src/cli/views.js';
import { completedTask, NOW, page, waitingTask } from '../../support/wire-tasks.js';

beforeAll(() => {
  process.env.TZ = 'UTC';
});

describe('resultView', () => {
  it('shows a waiting task with its question and how to answer', () => {
    const text = resultView(waitingTask(), { now: NOW });
    expect(text).toContain('State    input-required');
    expect(text).toContain('Question    Approve 120 USD for lunch?');
    expect(text).toContain('Deadline    2030-01-05 09:55:00 (in 2d 23h)');
    expect(text).toContain('Responders  alice, bob');
    // `npx a2a-temporal` when this runs under npx (see commandHint).
    expect(text).toMatch(/Answer: {2}(npx )?a2a-temporal tasks reply task-1 <answer> --agent expense-approval$/m);
  });

  it('shows the JSON Schema a typed reply must match, and how to send data', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { approved: { type: 'boolean' } },
      required: ['approved'],
    };
    const task = waitingTask();
    Object.assign(task.metadata!['pendingQuestion'] as object, { expects: '{approved}', schema });
    const text = resultView(task, { now: NOW });
    expect(text).toContain(
      'Schema      {"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}',
    );
    expect(text).toMatch(/tasks reply task-1 --data '<JSON>'/);
  });

  it("offers the question's text replies as answers: approve, deny <reason>", () => {
    const task = waitingTask();
    Object.assign(task.metadata!['pendingQuestion'] as object, {
      expects: '{"decision": "approve" | "deny", ...}',
      details: { tool: 'place_order', answers: ['approve', 'deny <reason>'] },
    });
    const text = resultView(task, { now: NOW });
    expect(text).toMatch(/Answer: {2}(npx )?a2a-temporal tasks reply task-1 approve --agent expense-approval$/m);
    expect(text).toMatch(
      / {6}or: {2}(npx )?a2a-temporal tasks reply task-1 'deny <reason>' --agent expense-approval$/m,
    );
    expect(text).not.toContain('--data');
  });

  it('shows artifacts: data pretty-printed, text line by line', () => {
    const text = resultView(completedTask(), { now: NOW });
    expect(text).toContain('Message  Approved.');
    expect(text).toContain('Artifacts (2)\n  approval-record [a1]\n    {\n      "amount": 120,');
    expect(text).toContain('  a2\n    line one\n    line two');
    expect(text).not.toContain('Answer:');
  });

  it('shows a direct message', () => {
    const message = Message.fromJSON({
      messageId: 'm',
      contextId: 'c',
      role: 'ROLE_AGENT',
      parts: [{ text: 'hello' }],
    });
    expect(resultView(message, { now: NOW })).toBe('Message  hello\nContext  c');
  });
});

describe('taskView', () => {
  it('shows state, question, timeline and history', () => {
    const text = taskView(waitingTask(), { now: NOW });
    expect(text).toContain('Agent    expense-approval');
    expect(text).toContain('State    input-required since 2030-01-02 09:55:00 (5m ago)');
    expect(text).toMatch(/Timeline\n {2}AT {19}STATE {11}BY {5}MESSAGE\n {2}2030-01-02 09:54:59 {2}submitted/);
    expect(text).toContain('working         agent  Assessing the expense');
    expect(text).toContain('History (2 messages)\n  user   Please approve 120 USD for lunch\n  agent  Approve');
  });

  it('says a task blocked by a deploy is, with its question and why, and offers no Answer command', () => {
    const task = waitingTask();
    task.metadata!['blocked'] = { reason: 'the new code makes other calls', since: NOW.toISOString(), attempt: 3 };
    const text = taskView(task, { now: NOW });
    expect(text).toContain('Question    Approve 120 USD for lunch?');
    expect(text).toContain(
      'Blocked by a deploy: the deployed code cannot continue this task: the new code makes other calls.',
    );
    expect(text).not.toContain('tasks reply');
  });

  it('shows where the votes of an open quorum question stand, and each vote', () => {
    const task = waitingTask();
    Object.assign(task.metadata!['pendingQuestion'] as object, {
      quorum: {
        rules: [{ required: 2, approvals: 1 }],
        required: 2,
        approvals: 1,
        denies: 0,
        rejectAt: 1,
        needed: ['1 more approval'],
      },
      votes: [
        { by: 'bob', decision: 'approve', at: '2030-01-02T09:56:00.000Z', channel: 'inbox', comment: 'fine' },
        { by: 'dora', actingFor: 'carol', decision: 'deny', at: '2030-01-02T09:57:30.000Z', channel: 'slack' },
      ],
    });
    const text = taskView(task, { now: NOW });
    expect(text).toContain('Approvals   1 of 2 approvals; still needed: 1 more approval');
    expect(text).toContain(
      'Votes       bob approved at 2030-01-02 09:56 UTC (“fine”)\n              dora for carol denied at 2030-01-02 09:57 UTC',
    );
  });

  it('says when an auth wait is answered out of band', () => {
    const task = waitingTask({
      metadata: { pendingQuestion: { kind: 'auth', prompt: 'Sign in', askedAt: NOW.toISOString(), outOfBand: true } },
    });
    const text = taskView(task, { now: NOW });
    expect(text).toContain('Waiting for authorization');
    expect(text).toContain('out of band');
    expect(text).not.toContain('tasks reply');
  });

  it('shows how push deliveries stand, per webhook', () => {
    const task = waitingTask({
      metadata: {
        pushNotifications: [
          { id: 'ops', url: 'https://hooks.example.com/a2a', delivered: 3, pending: 1, lastSuccess: NOW.toISOString() },
          {
            id: 'old',
            url: 'https://gone.example.com/',
            delivered: 0,
            pending: 0,
            lastFailure: { at: NOW.toISOString(), reason: 'The webhook answered 410' },
          },
        ],
      },
    });
    const text = taskView(task, { now: NOW });
    expect(text).toMatch(/Push notifications\n {2}CONFIG\s+URL\s+DELIVERED\s+PENDING\s+LAST SUCCESS\s+LAST FAILURE/);
    expect(text).toMatch(/ops\s+https:\/\/hooks\.example\.com\/a2a\s+3\s+1\s+2030-01-02 10:00:00/);
    expect(text).toContain('2030-01-02 10:00:00 The webhook answered 410');
  });
});

describe('taskListView', () => {
  it("lists one agent's tasks and repeats the agent and the filters in the next-page hint", () => {
    const pages = [{ agent: 'expense-approval', page: page('tok') }];
    const text = taskListView(pages, { now: NOW, filters: '--state input-required' });
    const [header, first, second] = text.split('\n');
    expect(header).toMatch(/^TASK ID\s+STATE\s+UPDATED\s+MAY ANSWER\s+MESSAGE$/);
    expect(first).toMatch(/^task-1\s+input-required\s+2030-01-02 09:55:00\s+alice, bob\s+Approve 120 USD for lunch\?$/);
    expect(second).toMatch(/^task-2\s+completed\s+2030-01-02 09:58:00\s+Approved\.$/);
    expect(text).toContain('2 of 7 tasks of agent expense-approval.');
    expect(text).toMatch(
      /More: {2}(npx )?a2a-temporal tasks list --agent expense-approval --state input-required --page-token tok$/m,
    );
  });

  it("merges every agent's tasks, newest first, with their agents and a next-page hint per agent", () => {
    const echo = ListTasksResponse.fromJSON({
      tasks: [Task.toJSON(waitingTask({ id: 'task-3', metadata: { agent: 'echo' } }))],
      totalSize: 1,
    });
    const pages = [
      { agent: 'expense-approval', page: page('tok') },
      { agent: 'echo', page: echo },
    ];
    const text = taskListView(pages, { now: NOW, everyAgent: true });
    const [header, ...rows] = text.split('\n');
    expect(header).toMatch(/^TASK ID\s+AGENT\s+STATE\s+UPDATED\s+MAY ANSWER\s+MESSAGE$/);
    expect(rows[0]).toMatch(/^task-2\s+expense-approval\s+completed/);
    expect(rows[1]).toMatch(/^task-1\s+expense-approval\s+input-required\s+\S+ \S+\s+alice, bob/);
    // A question that names no responders: the owner answers it (anyone, when no owner is known).
    expect(rows[2]).toMatch(/^task-3\s+echo\s+input-required\s+\S+ \S+\s+anyone/);
    const owned = waitingTask({ id: 'task-4', metadata: { agent: 'echo', owner: 'dana' } });
    const ownedPage = ListTasksResponse.fromJSON({ tasks: [Task.toJSON(owned)], totalSize: 1 });
    expect(taskListView([{ agent: 'echo', page: ownedPage }], { now: NOW })).toMatch(/dana \(owner\)/);
    expect(text).toContain('3 of 8 tasks of 2 agents.');
    expect(text).toMatch(/More: {2}(npx )?a2a-temporal tasks list --agent expense-approval --page-token tok$/m);
  });

  it('fits the terminal', () => {
    const text = taskListView([{ agent: 'a', page: page() }], { now: NOW, columns: 60 });
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('says when there is nothing, and whose tasks it looked for', () => {
    const empty = { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 };
    expect(taskListView([{ agent: 'echo', page: empty }], { now: NOW })).toBe('No tasks found for agent echo.');
    expect(taskListView([{ page: empty }], { now: NOW })).toBe("No tasks found for the gateway's default agent.");
    const two = [
      { agent: 'a', page: empty },
      { agent: 'b', page: empty },
    ];
    expect(taskListView(two, { now: NOW, everyAgent: true })).toBe('No tasks found for 2 agents.');
  });
});
