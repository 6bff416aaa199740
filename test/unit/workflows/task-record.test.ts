import { describe, expect, it, vi } from 'vitest';
import { mayAccessTask, type TaskAudience } from '../../../src/protocol/contract.js';
import { canTransition, fromWireState, TASK_STATES, toWireState } from '../../../src/protocol/states.js';
import { IllegalTransitionError, TaskRecord } from '../../../src/workflows/task-record.js';

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)).toISOString();
const newRecord = () => TaskRecord.create({ taskId: 't1', contextId: 'c1', agent: 'echo', receipts: false }, clock);
const agentSays = (text: string) => ({ messageId: text, role: 'ROLE_AGENT' as const, parts: [{ text }] });

describe('task states', () => {
  it('map to and from the v1.0 wire names', () => {
    for (const state of TASK_STATES) expect(fromWireState(toWireState(state))).toBe(state);
    expect(toWireState('input-required')).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(fromWireState('TASK_STATE_BOGUS')).toBeUndefined();
  });

  it('terminal states have no way out', () => {
    for (const terminal of ['completed', 'failed', 'canceled', 'rejected'] as const) {
      for (const next of TASK_STATES) expect(canTransition(terminal, next)).toBe(false);
    }
    expect(canTransition('input-required', 'working')).toBe(true);
    expect(canTransition('working', 'submitted')).toBe(false);
  });
});

describe('TaskRecord', () => {
  it("lists each open question's responders and deputies for the inbox (A2AResponders), and lets them see the task", () => {
    const record = newRecord();
    record.recordFirstResponder('olga', 'olga');
    const ask = (id: string, responders: string[], deputies: { to: string; for: string }[]) =>
      record.showQuestion({ id, kind: 'input', prompt: id, askedAt: clock(), responders, deputies }, agentSays(id));
    ask('ask:1', ['bob'], [{ to: 'dave', for: 'bob' }]);
    ask('ask:2', ['erin'], [{ to: 'frank', for: 'erin' }]);
    expect(record.listedResponders()?.sort()).toEqual(['bob', 'dave', 'erin', 'frank']);
    for (const id of ['bob', 'dave', 'erin', 'frank']) {
      expect(mayAccessTask(record.audience, { id, groups: [] })).toBe(true);
      expect(mayAccessTask(record.summary().metadata as TaskAudience, { id, groups: [] })).toBe(true);
    }
    expect(mayAccessTask(record.audience, { id: 'mallory', groups: [] })).toBe(false);
  });

  it('lists its open questions in the summary memo as before, key for key: prompt capped, large details and the schema left out', () => {
    const record = newRecord();
    const question = (id: string, details: Record<string, string>) => ({
      id,
      kind: 'input' as const,
      prompt: `${id} ${'x'.repeat(1_200)}`,
      askedAt: '2026-01-01T00:00:00.000Z',
      schema: { type: 'object' },
      details,
      responders: ['bob'],
    });
    record.showQuestion(question('ask:1', { tool: 'pay' }), agentSays('ask:1'));
    record.showQuestion(question('ask:2', { blob: 'y'.repeat(5_000) }), agentSays('ask:2'));
    const prompt = (id: string) => `${id} ${'x'.repeat(1_000 - id.length - 1)}`;
    const listed = (id: string, details: string) =>
      `{"id":"${id}","kind":"input","prompt":"${prompt(id)}","askedAt":"2026-01-01T00:00:00.000Z"${details},"responders":["bob"]}`;
    const { pendingQuestion, pendingQuestions } = record.summary().metadata!;
    expect(JSON.stringify(pendingQuestion)).toBe(
      `{"kind":"input","prompt":"${prompt('ask:1')}","askedAt":"2026-01-01T00:00:00.000Z","details":{"tool":"pay"},"responders":["bob"]}`,
    );
    expect(JSON.stringify(pendingQuestions)).toBe(
      `[${listed('ask:1', ',"details":{"tool":"pay"}')},${listed('ask:2', '')}]`,
    );
  });

  it('bounds its view by dropping the oldest messages, encoding the task a bounded number of times', () => {
    const record = newRecord();
    for (let i = 0; i < 3_000; i++) {
      record.addUserMessage({
        messageId: `u${i}`,
        role: 'ROLE_USER',
        parts: [{ text: `message ${i} ` + 'x'.repeat(200) }],
      });
    }
    const whole = JSON.stringify(record.view()).length;
    const stringify = vi.spyOn(JSON, 'stringify');
    const bounded = record.boundedView(100_000);
    const encoded = stringify.mock.results.reduce((sum, result) => sum + String(result.value).length, 0);
    stringify.mockRestore();
    // The newest messages that fit, exactly: one more would not.
    expect(new TextEncoder().encode(JSON.stringify(bounded)).length).toBeLessThanOrEqual(100_000);
    expect(bounded.history!.at(-1)!.messageId).toBe('u2999');
    const oneMore = {
      ...bounded,
      history: [record.view().history!.at(-bounded.history!.length - 1)!, ...bounded.history!],
    };
    expect(new TextEncoder().encode(JSON.stringify(oneMore)).length).toBeGreaterThan(100_000);
    // Linear: about two encodings of the task, not one per dropped message.
    expect(encoded).toBeLessThan(3 * whole);
  });

  it('refuses an illegal transition loudly and changes nothing', () => {
    const record = newRecord();
    record.transition('working');
    record.transition('completed');
    const before = record.snapshot();
    expect(() => record.transition('working')).toThrow(IllegalTransitionError);
    expect(() => record.transition('working')).toThrow('Illegal A2A task transition completed -> working');
    expect(record.snapshot()).toEqual(before);
  });

  it('keeps a timeline and numbered events, and trims history on request', () => {
    const record = newRecord();
    record.addUserMessage({ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, 'key-1');
    record.transition('working', { by: 'agent' });
    record.showQuestion({ id: 'ask:0', kind: 'input', prompt: 'sure?', askedAt: clock() }, agentSays('sure?'));
    record.addUserMessage({ messageId: 'u2', role: 'ROLE_USER', parts: [{ text: 'yes' }] }, 'key-2');
    record.transition('working', { by: 'zoe' });
    record.addArtifact({ artifactId: 'a', parts: [{ text: 'x' }] }, false, false);
    record.addArtifact({ artifactId: 'a', parts: [{ text: 'y' }] }, true, true);
    record.transition('completed', { message: agentSays('done') });

    const task = record.view();
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.timestamp).toMatch(/Z$/);
    expect(task.artifacts).toEqual([{ artifactId: 'a', parts: [{ text: 'x' }, { text: 'y' }] }]);
    expect(task.history!.map((m) => m.messageId)).toEqual(['u1', 'sure?', 'u2', 'done']);
    expect(record.view(1).history!.map((m) => m.messageId)).toEqual(['done']);
    expect(record.view(0).history).toBeUndefined();
    const timeline = task.metadata!.timeline as { state: string; by?: string }[];
    expect(timeline.map((e) => e.state)).toEqual(['submitted', 'working', 'input-required', 'working', 'completed']);
    expect(timeline[3]!.by).toBe('zoe');

    const { events } = record.eventsSince(0);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.map((e) => e.kind)).toEqual(['status', 'status', 'status', 'artifact', 'artifact', 'status']);
    expect(record.eventsSince(4).events.map((e) => e.seq)).toEqual([5, 6]);
    expect(record.hasApplied('key-2')).toBe(true);
    expect(record.hasApplied('key-3')).toBe(false);
  });

  it('restores from a snapshot without sharing state', () => {
    const record = newRecord();
    record.transition('working');
    const copy = TaskRecord.restore(record.snapshot(), clock);
    copy.transition('completed');
    expect(record.state).toBe('working');
    expect(copy.state).toBe('completed');
  });

  it('carries whether its answers are signed across continue-as-new; a run before release 15 signed them', () => {
    const keyed = (receipts: boolean) =>
      TaskRecord.create({ taskId: 't1', contextId: 'c1', agent: 'echo', receipts }, clock);
    expect(TaskRecord.restore(keyed(true).snapshot(), clock).receiptsAsked).toBe(true);
    expect(TaskRecord.restore(keyed(false).snapshot(), clock).receiptsAsked).toBe(false);
    const { receipts: _, ...beforeRelease15 } = keyed(false).snapshot();
    expect(TaskRecord.restore(beforeRelease15, clock).receiptsAsked).toBe(true);
  });
});

describe('TaskRecord push queues', () => {
  it('queues the selected events per config, in order, and carries them across continue-as-new', () => {
    const record = newRecord();
    record.selectPushEvents({ states: ['input-required', 'completed'], artifacts: true });
    record.transition('working');
    expect(record.pushConfigs).toEqual([]);
    record.setPushConfig({ id: 'a', url: 'https://example.com/a', token: 't' });
    record.transition('input-required', { message: agentSays('Sure?') });
    record.addArtifact({ artifactId: 'x', parts: [{ text: 'x' }] }, false, true);
    record.transition('working');
    const pending = record.pushConfig('a')!.pending;
    expect(pending.map((e) => e.kind)).toEqual(['status', 'artifact']);
    expect(pending.map((e) => e.seq)).toEqual([2, 3]);

    record.pushSettled('a', { ok: true });
    const restored = TaskRecord.restore(record.snapshot(), clock);
    restored.transition('completed');
    expect(restored.pushConfig('a')!.pending.map((e) => e.seq)).toEqual([3, 5]);
    expect(restored.view().metadata?.pushNotifications).toEqual([
      expect.objectContaining({ id: 'a', url: 'https://example.com/a', delivered: 1, pending: 2 }),
    ]);
    expect(JSON.stringify(restored.view().metadata)).not.toContain('"t"');
    restored.pushSettled('a', { ok: false, reason: 'The webhook answered 410' });
    expect(restored.pushConfigViews()).toEqual([
      expect.objectContaining({
        id: 'a',
        token: 't',
        delivered: 1,
        lastFailure: expect.objectContaining({ reason: 'The webhook answered 410' }),
      }),
    ]);
    restored.deletePushConfig('a');
    expect(restored.pushConfigs).toEqual([]);
  });

  it('records a failure while it is retried, and forgets it when the config gets a new URL', () => {
    const record = newRecord();
    record.setPushConfig({ id: 'a', url: 'https://example.com/a' });
    record.transition('working');
    record.pushFailing('a', 'The webhook answered 503');
    expect(record.pushConfig('a')).toMatchObject({
      pending: [{ seq: 1 }],
      lastFailure: { reason: 'The webhook answered 503' },
    });
    record.setPushConfig({ id: 'a', url: 'https://example.com/a', token: 'new' });
    expect(record.pushConfig('a')!.lastFailure).toBeDefined();
    record.setPushConfig({ id: 'a', url: 'https://example.org/fixed' });
    expect(record.pushConfig('a')!.lastFailure).toBeUndefined();
    expect(record.pushConfig('a')!.pending).toHaveLength(1);
  });

  it('sends direct message answers to no webhook', () => {
    const record = newRecord();
    record.setPushConfig({ id: 'a', url: 'https://example.com/a' });
    record.respondWithMessage(agentSays('hi'));
    expect(record.pushConfig('a')!.pending).toEqual([]);
  });
});

describe('TaskRecord approver notices', () => {
  const question = (seq: number, open = true) => ({
    seq,
    id: `ask:${seq}`,
    channels: ['slack' as const],
    open,
    prompt: `Question ${seq}?`,
    askedAt: clock(),
    reminders: [] as string[],
    remindersSent: 0,
  });
  const notice = (id: string, seq: number, state: 'pending' | 'sent' = 'pending') => ({
    id,
    question: seq,
    kind: 'ask' as const,
    approver: 'bob',
    channel: 'slack' as const,
    state,
  });

  it('keeps each notice once, settles it, and shows them all in metadata', () => {
    const record = newRecord();
    record.notifyQuestion(question(1));
    expect(record.addNotice(notice('n1', 1), 100)).toBe(true);
    expect(record.addNotice(notice('n1', 1), 100)).toBe(false);
    record.noticeFailing(record.notices[0]!, 'Slack answered 503');
    expect(record.notices[0]).toMatchObject({ state: 'pending', reason: 'Slack answered 503' });
    record.noticeSettled(record.notices[0]!, 'sent', undefined, 'bob in Slack');
    expect(record.notices[0]).toMatchObject({ state: 'sent', to: 'bob in Slack' });
    expect(record.notices[0]!.reason).toBeUndefined();
    expect(record.view().metadata?.approverNotifications).toEqual([expect.objectContaining({ id: 'n1' })]);
  });

  it('keeps the latest settled notices, and the posted messages of the questions they name', () => {
    const record = newRecord();
    record.notifyQuestion(question(1));
    record.addNotice(notice('old', 1, 'sent'), 1);
    record.messagePosted({ question: 1, approver: 'bob', channel: 'C1', ts: '1.0' });
    record.notifyQuestion(question(2));
    record.addNotice(notice('new', 2, 'sent'), 1);
    expect(record.notices.map(({ id }) => id)).toEqual(['new']);
    expect(record.postedMessages(1, 'bob')).toEqual([]);
    record.messagePosted({ question: 2, approver: 'bob', channel: 'C1', ts: '2.0' });
    expect(record.postedMessages(2, 'bob')).toEqual([{ channel: 'C1', ts: '2.0' }]);
    record.postedMessagesDone(2, 'bob');
    expect(record.postedMessages(2, 'bob')).toEqual([]);
  });

  it('drops the questions closed before a new one, and counts reminders', () => {
    const record = newRecord();
    record.notifyQuestion({ ...question(1), reminders: ['2026-01-02T00:00:00.000Z'] });
    const [first] = record.notifiedQuestions;
    record.reminderDue(first!);
    expect(first).toMatchObject({ reminders: [], remindersSent: 1 });
    record.notifiedQuestionChanged(first!, { approvers: ['bob'], deputies: undefined });
    record.notifiedQuestionClosed(first!, true);
    expect(record.notifiedQuestions).toEqual([
      expect.objectContaining({ approvers: ['bob'], open: false, withdrawn: true }),
    ]);
    record.notifyQuestion(question(2));
    expect(record.notifiedQuestions.map(({ seq }) => seq)).toEqual([2]);
  });

  it('carries the one notified question of a run before several as one of several', () => {
    const snapshot = newRecord().snapshot();
    const restored = TaskRecord.restore({ ...snapshot, approvals: { question: question(1), notices: [] } }, clock);
    expect(restored.notifiedQuestions.map(({ seq }) => seq)).toEqual([1]);
    expect(restored.snapshot().approvals).not.toHaveProperty('question');
  });
});
