/**
 * Path 8: a reply to a task whose workflow left the worker's cache, as an approval answered days
 * later does: the worker fetches the task's whole history and replays it before it can take the
 * reply. Its own workers, with a workflow cache of COLD_CACHE, on task queues of their own: after a
 * batch of waiting tasks, COLD_CACHE newer ones push every task of the batch out of the cache, and
 * each reply then finds its workflow cold. Two agents: the expense approval (an activity, then a
 * question), and the purchasing assistant asking to approve its third tool call (two catalog
 * lookups, then an order over the limit; a local fake OpenAI-compatible model scripts its calls).
 *
 * Raw: a minimal workflow whose history, when it waits, is as long as the project task's, in events
 * and bytes (one activity per step, results padded to the same total size: bench/raw-workflows.ts
 * `rawStepsWaiting`), evicted the same way and answered with one update that returns once it has
 * completed (after as many activities as the project's agent still runs after the reply). Only the
 * replies are timed, blocking until the task (workflow) completed.
 */
import { Client, Connection } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { workflowIdForTask } from '../../src/protocol/contract.js';
import { startFakeModelServer, type FakeModelServer } from '../../src/testing/fake-model-server.js';
import { replyBlocking, sendBlocking, waitingExpenseTask } from '../a2a.js';
import { describeHistory, describeTypes, historyLength } from '../history.js';
import { interleave, Sample } from '../measure.js';
import { CpuSplit, startColdProjectWorker, startRawWorker, stopChild } from '../processes.js';
import { RawFloor } from '../raw.js';
import type { StepsPlan } from '../raw-workflows.js';
import type { Stack } from '../stack.js';
import type { BenchPath } from './types.js';

/** The cold workers' workflow cache: this many newer tasks evict every older one. */
const COLD_CACHE = 2;
const COLD_PROJECT_QUEUE = 'bench-a2a-cold';
const COLD_RAW_QUEUE = 'bench-raw-cold';

interface ColdSide {
  raw: RawFloor;
  rawWorker: ChildProcess;
  projectWorker: ChildProcess;
  client: Client;
  model: FakeModelServer;
  agentUrl(name: string): string;
  stop(): Promise<void>;
}

async function startColdSide(stack: Stack, profileDir: string | undefined): Promise<ColdSide> {
  const { startGateway } = await import('../../src/gateway/server.js');
  const { default: agents } = await import('../../examples/agents/index.js');
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) {
      await stopOne().catch((error: unknown) => console.error(`stopping: ${String(error)}`));
    }
  };
  try {
    const model = await startFakeModelServer();
    stops.push(() => model.close());
    const [projectWorker, rawWorker] = await Promise.all([
      startColdProjectWorker(
        stack.temporalAddress,
        COLD_PROJECT_QUEUE,
        COLD_CACHE,
        {
          A2A_MODEL_BASE_URL: model.url,
          A2A_MODEL: 'fake-model',
          A2A_MODEL_API_KEY: 'fake',
        },
        profileDir && join(profileDir, 'cold-project-worker'),
      ),
      startRawWorker(
        stack.temporalAddress,
        COLD_RAW_QUEUE,
        COLD_CACHE,
        profileDir && join(profileDir, 'cold-raw-worker'),
      ),
    ]);
    stops.push(
      () => stopChild(projectWorker),
      () => stopChild(rawWorker),
    );
    const raw = await RawFloor.connect(stack.temporalAddress, COLD_RAW_QUEUE);
    stops.push(() => raw.close());
    const connection = await Connection.connect({ address: stack.temporalAddress });
    stops.push(() => connection.close());
    const client = new Client({ connection });
    const gateway = await startGateway({ client, agents, grpcPort: false, taskQueue: COLD_PROJECT_QUEUE });
    stops.push(() => gateway.close());
    return {
      raw,
      rawWorker,
      projectWorker,
      client,
      model,
      agentUrl: (name) => `${gateway.url}/agents/${name}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One kind of waiting task: how to make one, and what its agent still runs after the reply. */
interface Kind {
  name: string;
  agent: string;
  /** A new task of this kind, waiting for its reply; its task ID. */
  waiting(cold: ColdSide): Promise<string>;
  /** Activities the agent runs between the reply and the end. */
  afterSteps: number;
}

const EXPENSE: Kind = {
  name: 'expense approval',
  agent: 'expense-approval',
  waiting: (cold) => waitingExpenseTask(cold.agentUrl('expense-approval')),
  // The reply records the decision in the workflow itself.
  afterSteps: 0,
};

/** The purchasing assistant: lookup, lookup, then an order that waits for approval; after it, the order and a last model call. */
const LLM: Kind = {
  name: 'LLM approval after 3 tool calls',
  agent: 'purchasing-assistant',
  async waiting(cold) {
    const ref = randomUUID();
    const call = (name: string, args: object) => ({ match: ref, toolCalls: [{ name, arguments: args }] });
    cold.model.script(
      call('lookup_product', { query: 'monitor' }),
      call('lookup_product', { query: 'keyboard' }),
      call('place_order', { sku: 'MN-27-4K', quantity: 3, unitPrice: 329 }),
      { match: ref, text: 'Ordered 3 27" 4K monitors for 987 EUR.' },
    );
    return sendBlocking(
      cold.agentUrl('purchasing-assistant'),
      `Order 3 27" 4K monitors for the new team (ref ${ref})`,
      'TASK_STATE_INPUT_REQUIRED',
    );
  },
  afterSteps: 2,
};

export const coldResume: BenchPath = {
  title: '8. cold resume: a reply to a task evicted from the worker cache (raw: the same history length, replayed)',
  async run({ stack, options, log }) {
    log('  starting the cold workers (workflow cache of 2) and a gateway on their task queue');
    const cold = await startColdSide(stack, options.cpuProfileDir);
    try {
      const rows = [];
      for (const kind of [EXPENSE, LLM]) rows.push(...(await measureKind(cold, kind, stack, options, log)));
      return rows;
    } finally {
      await cold.stop();
    }
  },
};

async function measureKind(
  cold: ColdSide,
  kind: Kind,
  stack: Stack,
  options: { iterations: number; batches: number },
  log: (line: string) => void,
) {
  // The project task's history when it waits, then a raw plan as long: events first (six per
  // activity step: its three and a workflow task's three), then bytes (the steps' results).
  const sampleTask = await kind.waiting(cold);
  const project = await historyLength(cold.client, workflowIdForTask(sampleTask));
  const base = await historyLength(cold.raw.client, await cold.raw.stepsWaiting(planOf(0, 0, 0)));
  const steps = Math.max(1, Math.round((project.events - base.events) / 6));
  const unpadded = await historyLength(cold.raw.client, await cold.raw.stepsWaiting(planOf(steps, 0, kind.afterSteps)));
  const stepBytes = Math.max(0, Math.round((project.bytes - unpadded.bytes) / steps));
  const plan = planOf(steps, stepBytes, kind.afterSteps);
  const raw = await historyLength(cold.raw.client, await cold.raw.stepsWaiting(plan));
  log(`  ${kind.name}: project history ${describeHistory(project)}: ${describeTypes(project)}`);
  log(`  ${kind.name}: raw history ${describeHistory(raw)} (${steps} steps of ${stepBytes} bytes)`);

  const rawSample = new Sample();
  const projectSample = new Sample();
  const rawCpu = new CpuSplit(cold.rawWorker.pid!, stack.temporalPid);
  const projectCpu = new CpuSplit(cold.projectWorker.pid!, stack.temporalPid);
  const url = cold.agentUrl(kind.agent);
  // COLD_CACHE newer workflows on each side's worker push the batch's out of its cache.
  const evictRaw = async () => {
    for (let i = 0; i < COLD_CACHE; i++) await cold.raw.waiting();
  };
  const evictProject = async () => {
    for (let i = 0; i < COLD_CACHE; i++) await waitingExpenseTask(cold.agentUrl('expense-approval'));
  };
  await interleave(options.iterations, options.batches, {
    raw: async (size) => {
      const ids = [];
      for (let i = 0; i < size; i++) ids.push(await cold.raw.stepsWaiting(plan));
      await evictRaw();
      for (const id of ids) {
        await rawCpu.during(1, async () => void (await rawSample.time(() => cold.raw.resume(id, 'approve'))));
      }
    },
    project: async (size) => {
      const ids = [];
      for (let i = 0; i < size; i++) ids.push(await kind.waiting(cold));
      await evictProject();
      for (const id of ids) {
        await projectCpu.during(1, () => projectSample.time(() => replyBlocking(url, id, 'approve')));
      }
    },
  });
  const path = `8 cold resume, ${kind.name}`;
  return [
    {
      path,
      metric: 'p50 latency',
      unit: 'ms',
      raw: rawSample.p(50),
      project: projectSample.p(50),
      target: { kind: 'ratio-at-most' as const, value: 1.3 },
      note:
        `${options.iterations} per side in ${options.batches} alternating batches, workers caching ${COLD_CACHE} workflows; ` +
        `history replayed: project ${describeHistory(project)}, raw ${describeHistory(raw)} (${steps} activities` +
        `${kind.afterSteps > 0 ? `, ${kind.afterSteps} more after the reply` : ''}); ` +
        `p99 raw ${rawSample.p(99).toFixed(1)} ms, project ${projectSample.p(99).toFixed(1)} ms; ` +
        `raw: ${rawCpu.describe('client')}; project: ${projectCpu.describe('client + gateway')}`,
    },
  ];
}

function planOf(steps: number, stepBytes: number, afterSteps: number): StepsPlan {
  return { steps, stepBytes, afterSteps };
}
