/**
 * Gateway to gateway: "this task is about to change", so that a stream one gateway holds on a task
 * waiting for input hears of an answer sent through another one at once, not at its next
 * visibility list (waiting-watch.ts, every 2 s).
 *
 * Why this way. The gateways share nothing but Temporal, and a waiting task may not change for
 * days: a history long-poll per watched task is what the watch exists to avoid (Temporal ends each
 * after ~20 s, so 1,000 waiting streams cost 50 renewals a second), and listing visibility more
 * often costs every watched task at every list (the query names each) and still lags behind where
 * visibility is asynchronous (Elasticsearch: ~1 s). Gateway-to-gateway calls would need each
 * gateway to know the others' addresses behind a load balancer. So the gateways talk through one
 * Temporal workflow, the bus: a gateway about to send a task a message or a cancel signals the bus
 * with the task's ID (the IDs of one turn of its event loop in one signal), and every gateway that
 * watches waiting tasks holds one history long-poll on the bus and wakes its own watchers of those
 * tasks. When nothing changes a gateway pays one long-poll renewal per ~20 s, however many tasks it
 * watches; a change costs one signal (a history event) and one read per listening gateway.
 *
 * The bus needs no worker and runs no code: it is started on a task queue no worker polls, so its
 * first workflow task is never taken and each signal is one event in its history. Each run lasts
 * RUN_TIMEOUT (a listener starts the next one as the last times out), or fewer events
 * (ROTATE_AFTER_EVENTS, then a listener ends it), so its history stays small. A gateway that
 * listens starts it; a gateway that finds it absent (no gateway listens: nobody to tell) signals
 * nothing for ABSENT_RETRY_MS. A signal lost to that, to a run's rotation or to an outage is only a
 * delay: the visibility lists still see every change.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { logger } from '../logging.js';
import { abortable } from './abortable.js';
import { decodeMemo } from './decode-memo.js';
import { isCloseEvent } from './history-events.js';

const log = logger.child({ component: 'gateway' });

/** No worker polls it: the bus's workflow task is never taken (see above). */
const CHANGE_BUS_TASK_QUEUE = 'a2a-gateway-changes';
/** The bus's workflow type; no worker registers it. */
const CHANGE_BUS_WORKFLOW_TYPE = 'a2aGatewayChanges';
const CHANGED_SIGNAL = 'changed';
/** A run of the bus times out after this long: its history is never read from further back than that. */
const RUN_TIMEOUT = '10 minutes';
/** A listener ends a run whose history has grown this long (a burst of answers), and starts the next. */
const ROTATE_AFTER_EVENTS = 5_000;
/** After finding no bus, how long a gateway signals nothing (no gateway was listening then). */
const ABSENT_RETRY_MS = 2_000;
/** A gateway keeps listening this long after its last watcher left (streams come and go). */
const LINGER_MS = 30_000;

/** The bus of the agents of one task queue in the client's namespace. */
export function changeBusWorkflowId(taskQueue: string): string {
  return `a2a-gateway-changes:${taskQueue}`;
}

interface ChangedSignal {
  /** The gateway that sent it: it has woken its own watchers already. */
  from: string;
  taskIds: string[];
}

export class GatewayChangeBus {
  /** This gateway, in its signals. */
  private readonly self = randomUUID();
  private readonly workflowId: string;
  private pending?: Set<string>;
  /** Until when no bus is assumed to run (a signal found none). */
  private absentUntil = 0;
  private listener?: AbortController;
  private lingering?: NodeJS.Timeout;

  constructor(
    private readonly client: Client,
    taskQueue: string,
    /** Called with the tasks another gateway is about to change. */
    private readonly onChange: (taskIds: string[]) => void,
  ) {
    this.workflowId = changeBusWorkflowId(taskQueue);
  }

  /** Tells the other gateways that this one is about to change `taskId`; never waits or throws. */
  publish(taskId: string): void {
    if (Date.now() < this.absentUntil) return;
    if (this.pending) {
      this.pending.add(taskId);
      return;
    }
    this.pending = new Set([taskId]);
    setImmediate(() => void this.flush());
  }

  /** Listens while this gateway watches waiting tasks: `true` from the first watcher, `false` after the last. */
  listen(on: boolean): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (on) {
      if (this.listener) return;
      const listener = new AbortController();
      this.listener = listener;
      void this.run(listener.signal);
    } else if (this.listener) {
      this.lingering = setTimeout(() => this.close(), LINGER_MS).unref();
    }
  }

  /** Stops listening (the gateway is closing). */
  close(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.listener?.abort();
    this.listener = undefined;
  }

  private async flush(): Promise<void> {
    const taskIds = [...this.pending!];
    this.pending = undefined;
    try {
      const signal: ChangedSignal = { from: this.self, taskIds };
      await this.client.workflow.getHandle(this.workflowId).signal(CHANGED_SIGNAL, signal);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) this.absentUntil = Date.now() + ABSENT_RETRY_MS;
      else log.debug({ err: error, tasks: taskIds.length }, 'signalling the gateway change bus failed');
    }
  }

  /** Follows the bus's runs until `signal` aborts: signals sent from `since` on are delivered. */
  private async run(signal: AbortSignal): Promise<void> {
    // Signals sent just before this gateway listened may concern tasks it has just read: a second late.
    const since = Date.now() - 1_000;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const runId = await this.ensureRunning(signal);
        this.absentUntil = 0;
        await this.follow(runId, since, signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        log.debug({ err: error }, 'listening to the gateway change bus failed');
        await sleep(Math.min(1_000 * 2 ** (failures - 1), 30_000), undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** The running bus's run ID, starting a run when none runs. */
  private async ensureRunning(signal: AbortSignal): Promise<string> {
    const handle = await abortable(this.client, signal, () =>
      this.client.workflow.start(CHANGE_BUS_WORKFLOW_TYPE, {
        workflowId: this.workflowId,
        taskQueue: CHANGE_BUS_TASK_QUEUE,
        workflowRunTimeout: RUN_TIMEOUT,
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        staticSummary: 'a2a-temporal gateways: tasks about to change (no worker runs it)',
      }),
    );
    return handle.firstExecutionRunId;
  }

  /** Delivers the run's signals sent at `since` or later, until the run closes. */
  private async follow(runId: string, since: number, signal: AbortSignal): Promise<void> {
    let nextPageToken: Uint8Array | undefined;
    let rotating = false;
    for (;;) {
      const response = await abortable(this.client, signal, () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.client.options.namespace,
          execution: { workflowId: this.workflowId, runId },
          waitNewEvent: true,
          ...(nextPageToken && { nextPageToken }),
        }),
      );
      const events = response.history?.events ?? [];
      nextPageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
      for (const event of events) {
        const attributes = event.workflowExecutionSignaledEventAttributes;
        const payload = attributes?.input?.payloads?.[0];
        if (attributes?.signalName !== CHANGED_SIGNAL || !payload) continue;
        const sentAt = event.eventTime?.seconds ? Number(event.eventTime.seconds.toString()) * 1_000 : Infinity;
        if (sentAt < since) continue;
        const { changed } = await decodeMemo(this.client.options.loadedDataConverter, { changed: payload });
        const { from, taskIds } = (changed ?? {}) as Partial<ChangedSignal>;
        if (from !== this.self && Array.isArray(taskIds)) this.onChange(taskIds);
      }
      // A closed run (timed out, rotated): the caller starts the next. No page token: closed too.
      if (events.some(isCloseEvent) || (events.length === 0 && !nextPageToken)) return;
      const last = events.at(-1)?.eventId;
      if (!rotating && last != null && Number(last.toString()) >= ROTATE_AFTER_EVENTS) {
        rotating = true;
        await this.client.workflowService
          .terminateWorkflowExecution({
            namespace: this.client.options.namespace,
            workflowExecution: { workflowId: this.workflowId, runId },
            reason: 'rotated: its history is long enough',
          })
          .catch(() => undefined);
      }
    }
  }
}
