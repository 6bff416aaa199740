/**
 * The gateway under fault: SIGKILLed with SSE streams open, and retried answers arriving through
 * two gateways at once. Gateways and the worker are the product's own commands, as deployed;
 * the ground truth is the workflow's own numbered event log, read from Temporal.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventsQuery, workflowIdForTask } from '../../../src/protocol/contract.js';
import type { TaskEvent } from '../../../src/protocol/task-events.js';
import { sseRpc } from '../../support/sse.js';
import {
  EventType,
  agentUrl,
  historyOf,
  range,
  report,
  sleep,
  rpc,
  startGateway,
  startWorker,
  tally,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  type ServeProcess,
  faultSuite,
} from '../../support/product-processes.js';

const suite = faultSuite();

/** Two gateways and a worker on a task queue of the test's own. */
async function twoGateways(scenario: string): Promise<[ServeProcess, ServeProcess]> {
  const taskQueue = uniqueQueue(scenario);
  const [a, b] = await Promise.all([
    startGateway({ taskQueue }),
    startGateway({ taskQueue }),
    startWorker({ taskQueue }),
  ]);
  return [a, b];
}

describe('a gateway SIGKILLed with streams open', () => {
  it('its clients resubscribe on another gateway and get every remaining event once, in order', async () => {
    const [a, b] = await twoGateways('streams');
    const CLIENTS = 4;
    const reportSize = { sections: 8, sectionMs: 600 };
    // Started through B, so that A only ever serves the streams it dies with.
    const taskIds = await Promise.all(
      range(CLIENTS).map(async () => {
        const message = userMessage([{ text: 'fault drill' }, { data: reportSize }]);
        const sent = await rpc(agentUrl(b, 'long-report'), 'SendMessage', {
          message,
          configuration: { returnImmediately: true },
        });
        return taskOf(sent).id as string;
      }),
    );
    const onA = taskIds.map((id) => subscribe(agentUrl(a, 'long-report'), id));
    await waitFor('every client to see a report section on gateway A', async () =>
      onA.every((stream) => stream.events.some((event) => event.artifactUpdate)),
    );
    await a.stop('SIGKILL');
    const cut = await Promise.all(onA.map((stream) => stream.ended));
    // A client's reconnect backoff: the tasks move on meanwhile, and B's snapshot must account for it.
    await sleep(1500);
    const onB = taskIds.map((id) => subscribe(agentUrl(b, 'long-report'), id));
    const afterEnds = await Promise.all(onB.map((stream) => stream.ended));

    const logs = await Promise.all(
      taskIds.map(
        async (id) => (await suite.temporal.workflow.getHandle(workflowIdForTask(id)).query(eventsQuery, 0)).events,
      ),
    );
    const checks = taskIds.map((_, i) => checkResubscription(logs[i]!, onA[i]!.events, onB[i]!.events));
    const sum = (pick: (check: Resubscription) => number) => checks.reduce((total, check) => total + pick(check), 0);
    report('gateway SIGKILL with streams open', {
      tried: `${CLIENTS} clients following long-report tasks (${reportSize.sections} sections) on gateway A; A SIGKILLed after each saw a section; all resubscribed on gateway B`,
      survived: `${checks.filter((check) => check.problems.length === 0).length}/${CLIENTS} clients saw all ${sum((c) => c.logged)} logged events: ${sum((c) => c.inSnapshotA)} in A's snapshots, ${sum((c) => c.streamedOnA)} streamed on A, ${sum((c) => c.inSnapshotB)} in B's snapshots (while reconnecting), ${sum((c) => c.streamedOnB)} streamed on B`,
      lost: `${sum((c) => c.missing)} events`,
      repeated: sum((c) => c.repeated),
      'streams on A ended by': [...new Set(cut.map((end) => end ?? 'a clean end'))].join('; '),
      'final states': afterEnds.map((end, i) => end ?? onB[i]!.events.at(-1)?.statusUpdate?.status.state).join(', '),
    });

    for (const check of checks) expect(check.problems).toEqual([]);
    for (const stream of onB) expect(stream.events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('duplicate follow-ups', () => {
  it('5 concurrent copies of one answer, through two gateways, are applied once', async () => {
    const [a, b] = await twoGateways('duplicates');
    const EXPENSE = 'Please approve an expense of 120 USD for a team lunch';
    const waiting = taskOf(
      await rpc(agentUrl(a, 'expense-approval'), 'SendMessage', { message: userMessage([{ text: EXPENSE }]) }),
    );
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // One message, as a client that times out and retries (through whichever gateway) sends it again.
    const answer = userMessage([{ text: 'approve' }], { taskId: waiting.id, metadata: { responder: 'alice' } });
    const COPIES = 5;
    const answers = await Promise.all(
      range(COPIES).map((i) => rpc(agentUrl(i % 2 ? b : a, 'expense-approval'), 'SendMessage', { message: answer })),
    );
    const final = (await rpc(agentUrl(b, 'expense-approval'), 'GetTask', { id: waiting.id })).result;
    const events = await historyOf(suite.temporal, waiting.id);
    const updatesAccepted = events.filter(
      (event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
    ).length;
    const copiesInHistory = final.history.filter((message: any) => message.messageId === answer.messageId).length;
    const outcomes = answers.map((sent) =>
      sent.error ? `error ${sent.error.code} ${sent.error.message}` : sent.result.task.status.state,
    );
    const decisions = final.metadata.timeline.filter((entry: any) => entry.by === 'alice').length;
    report('duplicate follow-ups', {
      tried: `${COPIES} concurrent copies of one answer (same messageId and content) to a waiting approval, through 2 gateways`,
      survived: `applied ${copiesInHistory} time(s): ${copiesInHistory} in the task's history, ${decisions} decision(s) by the responder in its timeline, ${final.artifacts.length} approval record(s); task ${final.status.state}`,
      lost: copiesInHistory === 0 ? 'the answer' : '0',
      'answers to the copies': tally(outcomes),
      'message updates accepted in the Temporal history (first message + answer)': updatesAccepted,
    });

    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    expect(copiesInHistory).toBe(1);
    expect(final.artifacts).toHaveLength(1);
    expect(updatesAccepted).toBe(2);
    // A retried message gets the answer the first copy got.
    expect(outcomes).toEqual(range(COPIES).map(() => 'TASK_STATE_COMPLETED'));
  });
});

describe('duplicate first sends', () => {
  it('3 concurrent copies and a later resend with one Idempotency-Key, through two gateways, make one task', async () => {
    const [a, b] = await twoGateways('idempotent');
    const message = userMessage([{ text: 'Please approve an expense of 80 USD for a train ticket' }]);
    const key = { 'Idempotency-Key': `retry-${randomUUID()}` };
    const send = (gateway: ServeProcess) =>
      rpc(agentUrl(gateway, 'expense-approval'), 'SendMessage', { message }, key).then(taskOf);
    const concurrent = await Promise.all([send(a), send(b), send(a)]);
    const later = await send(b);
    const ids = new Set([...concurrent, later].map((task) => task.id));
    report('duplicate first sends with one Idempotency-Key', {
      tried: '3 concurrent copies of a first message (one key), through 2 gateways, then a resend',
      survived: `${ids.size} task: ${[...ids].join(', ')} (${later.status.state})`,
      lost: '0',
    });
    expect(ids.size).toBe(1);
    expect(later.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});

/** An SSE subscription that collects events until the stream ends; `ended` says how it ended. */
function subscribe(url: string, taskId: string): { events: any[]; ended: Promise<string | undefined> } {
  const events: any[] = [];
  const ended = (async () => {
    try {
      for await (const event of sseRpc(url, 'SubscribeToTask', { id: taskId })) events.push(event);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  })();
  return { events, ended };
}

/** One event as comparable text: the wire carries no sequence numbers, but timestamps and chunks identify events. */
function wireKey(event: any): string {
  if (event.statusUpdate) return statusKey(event.statusUpdate.status);
  if (event.artifactUpdate) return artifactKey(event.artifactUpdate);
  return `other:${JSON.stringify(event)}`;
}

function logKey(event: TaskEvent): string {
  if (event.kind === 'status') return statusKey(event.status);
  if (event.kind === 'artifact') return artifactKey(event);
  return `message:${event.message.messageId}`;
}

function statusKey(status: any): string {
  return `status ${status.state} at ${status.timestamp}: ${status.message?.parts?.[0]?.text ?? ''}`;
}

function artifactKey(update: any): string {
  const text = update.artifact.parts.map((part: any) => part.text).join('');
  return `artifact ${update.artifact.artifactId}${update.append ? ' +' : ''}${update.lastChunk ? ' (last)' : ''}: ${text}`;
}

interface Resubscription {
  logged: number;
  inSnapshotA: number;
  streamedOnA: number;
  inSnapshotB: number;
  streamedOnB: number;
  missing: number;
  repeated: number;
  problems: string[];
}

/**
 * Checks one client's two streams against the task's event log. Each stream is a snapshot that
 * accounts for a prefix of the log, then the log's next events in order; B's snapshot starts no
 * earlier than where A's stream was cut, and B's events run to the end of the log.
 */
function checkResubscription(log: TaskEvent[], onA: any[], onB: any[]): Resubscription {
  const problems: string[] = [];
  const keys = log.map(logKey);
  const [snapshotA, ...streamedA] = onA;
  const [snapshotB, ...streamedB] = onB;
  const keysA = streamedA.map(wireKey);
  const keysB = streamedB.map(wireKey);
  const reachA = snapshotReach(log, snapshotA?.task);
  const reachB = snapshotReach(log, snapshotB?.task);
  if (reachA < 0 || reachB < 0) problems.push('a stream did not start with a snapshot that matches the log');
  const cutAt = reachA + keysA.length;
  if (keysA.join('\n') !== keys.slice(reachA, cutAt).join('\n')) {
    problems.push(`A's events are not the log's next events:\n${keysA.join('\n')}`);
  }
  if (reachB < cutAt) problems.push(`B's snapshot is older than A's last event: it would repeat events`);
  const rest = keys.slice(Math.max(reachB, 0));
  if (keysB.join('\n') !== rest.join('\n')) {
    problems.push(`B's events are not the rest of the log:\n${keysB.join('\n')}\nexpected:\n${rest.join('\n')}`);
  }
  return {
    logged: log.length,
    inSnapshotA: Math.max(reachA, 0),
    streamedOnA: keysA.length,
    inSnapshotB: Math.max(reachB - cutAt, 0),
    streamedOnB: keysB.length,
    missing: rest.filter((key) => !keysB.includes(key)).length,
    repeated: keysB.length - new Set(keysB).size + keysB.filter((key) => keysA.includes(key)).length,
    problems,
  };
}

/**
 * How many log events a task snapshot accounts for: the longest prefix of the log whose latest
 * status and artifact chunks are the snapshot's (-1 if none).
 */
function snapshotReach(log: TaskEvent[], task: any): number {
  const shownChunks = (task?.artifacts ?? []).flatMap((artifact: any) => artifact.parts.map((part: any) => part.text));
  for (let end = log.length; end >= 0; end--) {
    const prefix = log.slice(0, end);
    const status = prefix.findLast((event) => event.kind === 'status');
    const chunks = prefix.flatMap((event) =>
      event.kind === 'artifact' ? event.artifact.parts.map((p) => p.text) : [],
    );
    const sameStatus =
      status?.status.state === task?.status?.state && status?.status.timestamp === task?.status?.timestamp;
    if (sameStatus && chunks.join('') === shownChunks.join('')) return end;
  }
  return -1;
}
