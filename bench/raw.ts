/**
 * The raw-Temporal side of each path, straight through the Temporal client on the raw worker's task
 * queue (bench/raw-worker.ts): no project code.
 */
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import type { Interceptor } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { withTimeout } from './measure.js';
import {
  armUpdate,
  echoUpdate,
  rawEcho,
  rawEchoRecorded,
  rawWaiting,
  rawStepsWaiting,
  rawWaitingRecorded,
  RECORDED_BYTES,
  resumeUpdate,
  type StepsPlan,
} from './raw-workflows.js';

const OPERATION_TIMEOUT_MS = 30_000;

/** A message as long as a client's message to the project makes the update's argument. */
export function recordedMessage(path: keyof typeof RECORDED_BYTES): string {
  return 'x'.repeat(RECORDED_BYTES[path].message);
}

export class RawFloor {
  private constructor(
    private readonly connection: Connection,
    readonly client: Client,
    readonly taskQueue: string,
  ) {}

  /** `interceptors`: of its connection (bench/temporal-calls.ts records its calls). */
  static async connect(address: string, taskQueue: string, interceptors?: Interceptor[]): Promise<RawFloor> {
    const connection = await Connection.connect({ address, ...(interceptors && { interceptors }) });
    return new RawFloor(connection, new Client({ connection }), taskQueue);
  }

  /** Update-with-start on a new workflow that answers the update with its argument and completes. */
  echo(text: string): Promise<string> {
    return this.echoWith(rawEcho, text);
  }

  /** The same, on a workflow that writes what the project's echo task writes (raw-workflows.ts). */
  echoRecorded(text = recordedMessage('echo')): Promise<string> {
    return this.echoWith(rawEchoRecorded, text);
  }

  /** Starts a workflow and returns its ID once it is waiting in `condition` for the resume update. */
  waiting(): Promise<string> {
    return this.waitingWith(rawWaiting);
  }

  /** The same, on a workflow that writes what the project's expense-approval task writes. */
  waitingRecorded(): Promise<string> {
    return this.waitingWith(rawWaitingRecorded);
  }

  /** A workflow that runs `plan`'s steps, then waits for the resume update (path 8); its ID once it waits. */
  async stepsWaiting(plan: StepsPlan): Promise<string> {
    const workflowId = `raw-steps-${randomUUID()}`;
    const startWorkflowOperation = new WithStartWorkflowOperation(rawStepsWaiting, {
      workflowId,
      taskQueue: this.taskQueue,
      args: [plan],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await withTimeout(
      'raw steps start',
      OPERATION_TIMEOUT_MS,
      this.client.workflow.executeUpdateWithStart(armUpdate, { args: ['ready'], startWorkflowOperation }),
    );
    return workflowId;
  }

  /** The one Update that resolves a waiting workflow's `condition`; returns when the update has. */
  resume(workflowId: string, text: string): Promise<string> {
    return withTimeout(
      'raw resume',
      OPERATION_TIMEOUT_MS,
      this.client.workflow.getHandle(workflowId).executeUpdate(resumeUpdate, { args: [text] }),
    );
  }

  /** `resume` with a reply as long as the project's (`waitingRecorded` workflows). */
  resumeRecorded(workflowId: string, text = recordedMessage('hitl')): Promise<string> {
    return this.resume(workflowId, text);
  }

  private echoWith(workflow: typeof rawEcho | typeof rawEchoRecorded, text: string): Promise<string> {
    const startWorkflowOperation = new WithStartWorkflowOperation(workflow, {
      workflowId: `raw-echo-${randomUUID()}`,
      taskQueue: this.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return withTimeout(
      'raw echo',
      OPERATION_TIMEOUT_MS,
      this.client.workflow.executeUpdateWithStart(echoUpdate, { args: [text], startWorkflowOperation }),
    );
  }

  private async waitingWith(workflow: typeof rawWaiting): Promise<string> {
    const workflowId = `raw-waiting-${randomUUID()}`;
    const startWorkflowOperation = new WithStartWorkflowOperation(workflow, {
      workflowId,
      taskQueue: this.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    await withTimeout(
      'raw waiting start',
      OPERATION_TIMEOUT_MS,
      this.client.workflow.executeUpdateWithStart(armUpdate, { args: ['ready'], startWorkflowOperation }),
    );
    return workflowId;
  }

  /** The workflow ID of the last `echo` (path 1 reads its history). */
  async lastEchoWorkflowId(): Promise<string> {
    // Visibility lists running and closed workflows alike, the latest start first.
    for await (const row of this.client.workflow.list({ query: `WorkflowType = 'rawEcho'`, pageSize: 1 })) {
      return row.workflowId;
    }
    throw new Error('no rawEcho workflow listed');
  }

  /** One visibility page of the raw waiting workflows: the floor under ListTasks. */
  list(pageSize: number): Promise<number> {
    return withTimeout(
      'raw list',
      OPERATION_TIMEOUT_MS,
      (async () => {
        let rows = 0;
        for await (const _row of this.client.workflow.list({ query: `WorkflowType = 'rawWaiting'`, pageSize })) {
          if (++rows >= pageSize) break;
        }
        return rows;
      })(),
    );
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
