/**
 * Paths 1 and 2: a blocking SendMessage to the echo agent (a new task that answers and completes)
 * against raw update-with-start on a workflow that returns the update's argument and completes.
 */
import { workflowIdForTask } from '../../src/protocol/contract.js';
import { sendBlocking } from '../a2a.js';
import { describeTypes, historyLength } from '../history.js';
import { interleave, pool, Sample } from '../measure.js';
import { CpuSplit } from '../processes.js';
import type { BenchPath } from './types.js';

const COMPLETED = 'TASK_STATE_COMPLETED';

export const echoSequential: BenchPath = {
  title: '1. blocking SendMessage to echo, one at a time (raw: executeUpdateWithStart)',
  async run({ stack, options }) {
    const raw = new Sample();
    const project = new Sample();
    const url = stack.agentUrl('echo');
    // Where a request's time goes: each side's CPU per process and each Temporal call it makes.
    const rawCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const projectCpu = new CpuSplit(stack.projectWorker.pid!, stack.temporalPid);
    const rawCalls = stack.calls.raw.recording();
    const projectCalls = stack.calls.project.recording();
    let taskId = '';
    await interleave(options.iterations, options.batches, {
      raw: (size) =>
        rawCpu.during(size, () =>
          raw.batch(size, async () => {
            for (let i = 0; i < size; i++) await raw.time(() => rawCalls.during(() => stack.raw.echo('hello')));
          }),
        ),
      project: (size) =>
        projectCpu.during(size, () =>
          project.batch(size, async () => {
            for (let i = 0; i < size; i++) {
              taskId = await project.time(() => projectCalls.during(() => sendBlocking(url, 'hello', COMPLETED)));
            }
          }),
        ),
    });
    // What each side's workflow wrote (the worker's calls to Temporal: memo and search attribute upserts, markers).
    const rawHistory = await historyLength(stack.raw.client, await stack.raw.lastEchoWorkflowId());
    const projectHistory = await historyLength(stack.raw.client, workflowIdForTask(taskId));
    const path = '1 echo, sequential';
    const note =
      `${options.iterations} per side in ${options.batches} alternating batches; p99 raw ${raw.p(99).toFixed(1)} ms, project ${project.p(99).toFixed(1)} ms; ` +
      `raw: ${rawCpu.describe('client')}; project: ${projectCpu.describe('client + gateway')}; ` +
      `Temporal calls per request, raw client: ${rawCalls.describe()}; gateway: ${projectCalls.describe()}; ` +
      `a task's history, raw: ${describeTypes(rawHistory)}; project: ${describeTypes(projectHistory)}`;
    return [
      {
        path,
        metric: 'p50 latency',
        unit: 'ms',
        raw: raw.p(50),
        project: project.p(50),
        note,
        // Issue 46's target (1.3× before it).
        target: { kind: 'ratio-at-most', value: 1.1 },
      },
      {
        path,
        metric: 'throughput',
        unit: '/s',
        raw: raw.throughput,
        project: project.throughput,
        // Issue 46's target (0.7× before it).
        target: { kind: 'ratio-at-least', value: 0.9 },
      },
    ];
  },
};

export const echoInFlight: BenchPath = {
  title: '2. blocking SendMessage to echo, N in flight (raw: executeUpdateWithStart)',
  async run({ stack, options }) {
    const raw = new Sample();
    const recorded = new Sample();
    const overHttp = new Sample();
    const project = new Sample();
    const url = stack.agentUrl('echo');
    const inFlight = options.concurrency;
    // A batch must be long next to its ramp-up and drain: at least 4 waves of `inFlight`.
    const batches = Math.max(1, Math.min(options.batches, Math.floor(options.parallelOps / (4 * inFlight))));
    // In flight, the machine's cores are the limit: where each side spends CPU explains the ratio.
    const rawCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const recordedCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const overHttpCpu = new CpuSplit(stack.rawWorker.pid!, stack.temporalPid);
    const projectCpu = new CpuSplit(stack.projectWorker.pid!, stack.temporalPid);
    await interleave(options.parallelOps, batches, {
      raw: (size) =>
        rawCpu.during(size, () =>
          raw.batch(size, () => pool(size, inFlight, async () => void (await raw.time(() => stack.raw.echo('hello'))))),
        ),
      recorded: (size) =>
        recordedCpu.during(size, () =>
          recorded.batch(size, () =>
            pool(size, inFlight, async () => void (await recorded.time(() => stack.raw.echoRecorded()))),
          ),
        ),
      overHttp: (size) =>
        overHttpCpu.during(size, () =>
          overHttp.batch(size, () => pool(size, inFlight, () => overHttp.time(() => stack.rawHttp.echo()))),
        ),
      project: (size) =>
        projectCpu.during(size, () =>
          project.batch(size, () =>
            pool(size, inFlight, async () => void (await project.time(() => sendBlocking(url, 'hello', COMPLETED)))),
          ),
        ),
    });
    const path = `2 echo, ${inFlight} in flight`;
    return [
      {
        path,
        metric: 'throughput',
        unit: '/s',
        raw: raw.throughput,
        project: project.throughput,
        // Issue 35's target (0.7× before it).
        target: { kind: 'ratio-at-least', value: 0.9 },
        note:
          `${options.parallelOps} per side in ${batches} alternating batches; p50 latency raw ${raw.p(50).toFixed(1)} ms, project ${project.p(50).toFixed(1)} ms; ` +
          `raw: ${rawCpu.describe('client')}; project: ${projectCpu.describe('client + gateway')}`,
      },
      {
        path,
        metric: "throughput, raw writing the project's records",
        unit: '/s',
        raw: recorded.throughput,
        project: project.throughput,
        target: { kind: 'none' },
        note:
          `raw workflows writing what the echo task writes to Temporal (bench/raw-workflows.ts): ${recordedCpu.describe('client')}; ` +
          `${(recorded.throughput / raw.throughput).toFixed(2)}x the smallest workflow's throughput`,
      },
      {
        path,
        metric: 'throughput, the same records behind HTTP',
        unit: '/s',
        raw: overHttp.throughput,
        project: project.throughput,
        target: { kind: 'none' },
        note:
          `those workflows behind an express JSON endpoint in this process, called with fetch (bench/raw-http.ts): ${overHttpCpu.describe('client + endpoint')}; ` +
          `${(overHttp.throughput / raw.throughput).toFixed(2)}x the smallest workflow's throughput`,
      },
    ];
  },
};
