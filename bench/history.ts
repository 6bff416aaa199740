/** A workflow's history as a worker replays it: events and encoded bytes (path 8). */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { History } = proto.temporal.api.history.v1;

export interface HistoryLength {
  events: number;
  bytes: number;
  /** Events and bytes by event type ("ActivityTaskScheduled": ...). */
  byType: Map<string, { events: number; bytes: number }>;
}

const EventType = proto.temporal.api.enums.v1.EventType;
const { HistoryEvent } = proto.temporal.api.history.v1;

/** The current run's history of `workflowId`, every page: its events and its size as protobuf. */
export async function historyLength(client: Client, workflowId: string): Promise<HistoryLength> {
  let events = 0;
  let bytes = 0;
  const byType = new Map<string, { events: number; bytes: number }>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      ...(nextPageToken && { nextPageToken }),
    });
    const pageEvents = page.history?.events ?? [];
    events += pageEvents.length;
    bytes += History.encode({ events: pageEvents }).finish().length;
    for (const event of pageEvents) {
      const type = EventType[event.eventType ?? 0]?.replace(/^EVENT_TYPE_/, '') ?? String(event.eventType);
      const counted = byType.get(type) ?? { events: 0, bytes: 0 };
      counted.events++;
      counted.bytes += HistoryEvent.encode(event).finish().length;
      byType.set(type, counted);
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return { events, bytes, byType };
}

export function describeHistory({ events, bytes }: HistoryLength): string {
  return `${events} events, ${(bytes / 1024).toFixed(1)} KB`;
}

/** "ActivityTaskScheduled 3 (1.2 KB), ..." largest first. */
export function describeTypes({ byType }: HistoryLength): string {
  return [...byType]
    .sort(([, a], [, b]) => b.bytes - a.bytes)
    .map(([type, { events, bytes }]) => `${type} ${events} (${(bytes / 1024).toFixed(1)} KB)`)
    .join(', ');
}

/** The events `after` holds beyond `before`, by type: "WorkflowPropertiesModified 1, ..." */
export function describeAdded(before: HistoryLength, after: HistoryLength): string {
  return (
    [...after.byType]
      .map(([type, { events }]) => [type, events - (before.byType.get(type)?.events ?? 0)] as const)
      .filter(([, added]) => added > 0)
      .map(([type, added]) => `${type} ${added}`)
      .join(', ') || 'none'
  );
}
