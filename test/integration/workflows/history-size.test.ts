/**
 * What a task costs in Temporal history: a workflow that starts on this release records one patch
 * marker, and each workflow task writes at most one memo and one search attribute upsert, holding
 * the final values (src/workflows/coalesced-upserts.ts, task-patches.ts). Before: an echo task
 * had 22 events (4 markers, 7 search attribute upserts, 4 memo upserts), an approval's reply 13.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { FINAL_EVENTS_MEMO, SUMMARY_MEMO } from '../../../src/protocol/contract.js';
import { TASK_STATE_ATTRIBUTE } from '../../../src/protocol/search-attributes.js';
import type { WireTask } from '../../../src/protocol/wire.js';
import { finalTask, reply, stateOf, useTaskWorker, waitForState } from '../../support/tasks.js';

const { EventType } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const tasks = useTaskWorker();

describe('the history of a task', () => {
  it('holds one patch marker, and one memo and one state upsert per workflow task', async () => {
    const { handle } = await tasks.start('expense-approval', {
      text: 'Please approve an expense of 120 USD for a team lunch',
      untilSettled: true,
    });
    await waitForState(handle, 'input-required');
    const answered = await reply(handle, { text: 'approve', responder: 'alice', untilSettled: true });
    expect(answered.settled?.state).toBe('completed');
    await finalTask(handle);
    const events = (await handle.fetchHistory()).events ?? [];

    const markers = events.filter((event) => event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED);
    // The newest release's marker (task-patches.ts): replay of every history that holds it takes its paths.
    expect(markers.map(patchIdOf)).toEqual(['quorum-voters']);
    const perWorkflowTask = workflowTasks(events).map((task) => ({
      memos: task.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED).length,
      states: task.filter((event) => upserted(event).includes(TASK_STATE_ATTRIBUTE.name)).length,
    }));
    for (const counts of perWorkflowTask) {
      expect(counts.memos).toBeLessThanOrEqual(1);
      expect(counts.states).toBeLessThanOrEqual(1);
    }
    // The reply's workflow task: one upsert each, with the final values (the task completed, its events).
    const last = workflowTasks(events).at(-1)!;
    expect(last.flatMap(upserted)).toEqual([TASK_STATE_ATTRIBUTE.name]);
    const memo = last.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED);
    expect(Object.keys(memo?.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {}).sort()).toEqual(
      [FINAL_EVENTS_MEMO, SUMMARY_MEMO].sort(),
    );
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(TASK_STATE_ATTRIBUTE)).toBe('completed');
    expect(stateOf(description.memo?.[SUMMARY_MEMO] as WireTask)).toBe('completed');
  });
});

/** The events after each completed workflow task, up to the next: its commands' events among them. */
function workflowTasks(events: HistoryEvent[]): HistoryEvent[][] {
  const tasks: HistoryEvent[][] = [];
  for (const event of events) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) tasks.push([]);
    else tasks.at(-1)?.push(event);
  }
  return tasks;
}

/** The task's own search attributes an event upserts (Temporal's TemporalChangeVersion left out). */
function upserted(event: HistoryEvent): string[] {
  const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
  return Object.keys(fields).includes(TASK_STATE_ATTRIBUTE.name) ? [TASK_STATE_ATTRIBUTE.name] : [];
}

/** The ID of a `patched()` marker, as Core records it. */
function patchIdOf(event: HistoryEvent): string | undefined {
  const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { id?: string }).id : undefined;
}
