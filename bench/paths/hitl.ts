/**
 * Path 3: resuming a task that waits for a human. Project: an expense-approval task at
 * input-required, then a blocking "approve" until it answers completed. Raw: a workflow waiting in
 * `condition`, then one executeUpdate that resolves it. Only the reply is timed.
 */
import { workflowIdForTask } from '../../src/protocol/contract.js';
import { replyBlocking, waitingExpenseTask } from '../a2a.js';
import { describeAdded, historyLength, type HistoryLength } from '../history.js';
import { interleave, Sample } from '../measure.js';
import { CpuSplit } from '../processes.js';
import type { BenchPath } from './types.js';

export const hitlResume: BenchPath = {
  title: '3. HITL resume: blocking "approve" to a waiting task (raw: one executeUpdate)',
  async run({ stack, options }) {
    const raw = new Sample();
    const recorded = new Sample();
    const overHttp = new Sample();
    const project = new Sample();
    const url = stack.agentUrl('expense-approval');
    // CPU of the timed replies only: where a reply's time goes besides the round trips.
    const rawCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const recordedCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const overHttpCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const projectCpu = new CpuSplit(stack.projectWorker.pid!, stack.temporalPid);
    const rawCalls = stack.calls.raw.recording();
    const projectCalls = stack.calls.project.recording();
    // What the last reply of each side wrote to its workflow's history.
    let rawSample = '';
    let projectSample: { taskId: string; before: HistoryLength } | undefined;
    await interleave(options.iterations, options.batches, {
      raw: async (size) => {
        for (let i = 0; i < size; i++) {
          const workflowId = await stack.raw.waiting();
          await rawCpu.during(
            1,
            async () => void (await raw.time(() => rawCalls.during(() => stack.raw.resume(workflowId, 'approve')))),
          );
          rawSample = workflowId;
        }
      },
      recorded: async (size) => {
        for (let i = 0; i < size; i++) {
          const workflowId = await stack.raw.waitingRecorded();
          await recordedCpu.during(
            1,
            async () => void (await recorded.time(() => stack.raw.resumeRecorded(workflowId))),
          );
        }
      },
      overHttp: async (size) => {
        for (let i = 0; i < size; i++) {
          const workflowId = await stack.rawHttp.waiting();
          await overHttpCpu.during(1, () => overHttp.time(() => stack.rawHttp.resume(workflowId)));
        }
      },
      project: async (size) => {
        for (let i = 0; i < size; i++) {
          const taskId = await waitingExpenseTask(url);
          const before = await historyLength(stack.raw.client, workflowIdForTask(taskId));
          await projectCpu.during(1, () =>
            project.time(() =>
              stack.replySplit.time(() => projectCalls.during(() => replyBlocking(url, taskId, 'approve'))),
            ),
          );
          projectSample = { taskId, before };
        }
      },
    });
    const rawAfter = await historyLength(stack.raw.client, rawSample);
    const rawWaitingHistory = await historyLength(stack.raw.client, await stack.raw.waiting());
    const projectAfter = await historyLength(stack.raw.client, workflowIdForTask(projectSample!.taskId));
    const written =
      `Temporal calls per reply, raw client: ${rawCalls.describe()}; gateway: ${projectCalls.describe()}; ` +
      `events a reply added, raw: ${describeAdded(rawWaitingHistory, rawAfter)}; project: ${describeAdded(projectSample!.before, projectAfter)}`;
    return [
      {
        path: '3 HITL resume',
        metric: 'p50 latency',
        unit: 'ms',
        raw: raw.p(50),
        project: project.p(50),
        // Issue 35's target (1.3× before it).
        target: { kind: 'ratio-at-most', value: 1.15 },
        note:
          `${options.iterations} per side in ${options.batches} alternating batches; p99 raw ${raw.p(99).toFixed(1)} ms, project ${project.p(99).toFixed(1)} ms; ` +
          `raw: ${rawCpu.describe('client')}; project: ${projectCpu.describe('client + gateway')}; ` +
          `${stack.replySplit.describe()}; ${written}`,
      },
      {
        path: '3 HITL resume',
        metric: "p50 latency, raw writing the project's records",
        unit: 'ms',
        raw: recorded.p(50),
        project: project.p(50),
        target: { kind: 'none' },
        note:
          `raw workflows writing what the expense-approval task writes to Temporal (bench/raw-workflows.ts): ${recordedCpu.describe('client')}; ` +
          `${(recorded.p(50) / raw.p(50)).toFixed(2)}x the smallest workflow's p50`,
      },
      {
        path: '3 HITL resume',
        metric: 'p50 latency, the same records behind HTTP',
        unit: 'ms',
        raw: overHttp.p(50),
        project: project.p(50),
        target: { kind: 'none' },
        note:
          `those workflows behind an express JSON endpoint in this process, called with fetch (bench/raw-http.ts): ${overHttpCpu.describe('client + endpoint')}; ` +
          `${(overHttp.p(50) / raw.p(50)).toFixed(2)}x the smallest workflow's p50`,
      },
    ];
  },
};
