/**
 * Histories saved as files: JSON as `temporal workflow show --output json` (or the Temporal UI's
 * download) writes it, or as `saveTaskHistory` writes it (the SDK's History with the task's
 * workflow ID beside its events). A folder is read for its `.json` files, in name order.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyFromJSON } from '../temporal/sdk-internals.js';
import proto from '@temporalio/proto';
import { z } from 'zod';
import { taskIdOfWorkflow, workflowIdForTask } from '../protocol/contract.js';
import type { TaskHistory } from './task-history.js';

const HistoryFile = z.looseObject({
  workflowId: z.string().optional(),
  events: z
    .array(z.looseObject({ eventTime: z.unknown() }))
    .nonempty()
    .refine((events) => workflowTypeOf(events[0]) !== undefined, 'the first event is not a workflow execution start'),
});

/** The histories in `path`: a `.json` file, or a folder of them. */
export async function readHistoryFiles(path: string): Promise<TaskHistory[]> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => join(path, name))
    : [path];
  return Promise.all(files.map(readHistoryFile));
}

async function readHistoryFile(file: string): Promise<TaskHistory> {
  const parsed = HistoryFile.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file} is not a workflow history: ${z.prettifyError(parsed.error)}`);
  const { workflowId: recorded, events } = parsed.data;
  // Temporal's tools leave the workflow ID out; a file named after it (as the UI names downloads) gives it back.
  const name = basename(file, '.json');
  const workflowId = recorded ?? (taskIdOfWorkflow(name) ? name : workflowIdForTask(name));
  return {
    workflowId,
    taskId: taskIdOfWorkflow(workflowId) ?? workflowId,
    agent: workflowTypeOf(events[0])!,
    history: sdkHistory(parsed.data),
  };
}

/**
 * Temporal's tools write proto3 JSON (times as strings, bytes as base64), which the SDK reads as
 * its replay does; `JSON.stringify` of the SDK's History writes times as objects, which protobufjs
 * reads back.
 */
function sdkHistory({ workflowId: _workflowId, ...json }: z.infer<typeof HistoryFile>): TaskHistory['history'] {
  if (typeof json.events[0]?.eventTime === 'string') return historyFromJSON(json);
  return proto.temporal.api.history.v1.History.fromObject(json);
}

function workflowTypeOf(event: unknown): string | undefined {
  const started = z
    .object({ workflowExecutionStartedEventAttributes: z.object({ workflowType: z.object({ name: z.string() }) }) })
    .safeParse(event);
  return started.success ? started.data.workflowExecutionStartedEventAttributes.workflowType.name : undefined;
}

/**
 * Saves a task's history as it stands, e.g. of a task waiting for an answer, to replay it on later
 * code with `replayHistoryFiles` (commit the file: it is what tasks of today's code look like).
 */
export async function saveTaskHistory(client: Client, taskId: string, file: string): Promise<void> {
  const workflowId = workflowIdForTask(taskId);
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const json = proto.temporal.api.history.v1.History.fromObject(history).toJSON();
  await writeFile(file, `${JSON.stringify({ workflowId, ...json }, null, 2)}\n`);
}
