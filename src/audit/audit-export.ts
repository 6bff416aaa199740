/**
 * The audit export (docs/approval-policies.md): the task workflows open at some time of the window
 * (one visibility page at a time), each task's history read through the gateway's door to Temporal
 * (a page at a time, its runs continued as new included), its records within the window written
 * as chained lines (audit-chain.ts). Memory holds one visibility page, one history page and what
 * one task has under way, whatever the number of tasks.
 */
import type { Client } from '@temporalio/client';
import { taskIdOfWorkflow } from '../protocol/contract.js';
import { quote, taskHistory } from '../tasks/index.js';
import { AuditChains, type ExportScope } from './audit-chain.js';
import { TaskAuditReader } from './audit-records.js';

export interface AuditWindow {
  since: Date;
  until: Date;
  /** Only this agent's tasks. */
  agent?: string;
}

/** Visibility rows asked for at a time. */
const PAGE_SIZE = 100;

/** Writes the export's lines to `write` (each without its newline; awaited, so a slow file holds the reading back). */
export async function exportAudit(
  client: Client,
  window: AuditWindow,
  write: (line: string) => Promise<void>,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ tasks: number; lines: number }> {
  const chains = new AuditChains();
  const converter = client.options.loadedDataConverter;
  const since = window.since.toISOString();
  const until = window.until.toISOString();
  let tasks = 0;
  let lines = 0;
  // The latest run of each task (a run continued as new is read from its task's latest).
  const query = [
    `ExecutionStatus != 'ContinuedAsNew'`,
    `(CloseTime >= ${quote(since)} OR ExecutionStatus = 'Running')`,
    ...(window.agent ? [`WorkflowType = ${quote(window.agent)}`] : []),
  ].join(' AND ');
  for await (const row of client.workflow.list({ query, pageSize: PAGE_SIZE })) {
    const taskId = taskIdOfWorkflow(row.workflowId);
    const firstRunId = row.raw.firstRunId || row.runId;
    // A task that began after the window has nothing in it.
    if (taskId === undefined || (firstRunId === row.runId && row.startTime >= window.until)) continue;
    const reader = new TaskAuditReader(taskId, row.type, converter);
    let wrote = false;
    for await (const events of taskHistory(client, row.workflowId, firstRunId, signal)) {
      for (const record of await reader.read(events)) {
        if (record.at < since || record.at >= until) continue;
        await write(chains.line(record));
        wrote = true;
        lines++;
      }
    }
    if (wrote) tasks++;
  }
  const scope: ExportScope = { since, until, ...(window.agent && { agent: window.agent }) };
  await write(chains.end(scope));
  return { tasks, lines };
}
