/**
 * Divergences in the user's words: tasks of six agents wait on version A; version B changes each
 * agent in one way that breaks them (an activity inserted before the question, one removed, one
 * moved before an earlier question, one renamed, the question reworded, a `ctx.patched` check
 * dropped while tasks recorded it). `check-deploy` names each change in a sentence about the
 * activity and the question, and so does a task blocked once B is deployed anyway.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  agentUrl,
  cleanUp,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitForVisibility,
  type ServeProcess,
} from '../../support/product-processes.js';
import {
  DIVERGENCES,
  QUESTION,
  writeDivergenceProject,
  type DivergenceAgent,
} from '../../support/divergence-project.js';
import { runCli, type CliRun } from '../../support/cli-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { readHistoryFiles } from '../../../src/deploy-check/history-files.js';
import { replayTaskHistories } from '../../../src/deploy-check/replay.js';
import { TEST_AGENTS_MODULE, testClient } from '../../support/worker.js';

const temp = useTempDirs();
const AGENTS = Object.keys(DIVERGENCES) as DivergenceAgent[];

let temporal: Client;
let configs: Record<'a' | 'b', string>;
let taskQueue: string;
let gateway: ServeProcess;
let worker: ServeProcess;
const waiting = {} as Record<DivergenceAgent, string>;
let check: CliRun;

const send = (agent: DivergenceAgent, text: string, taskId?: string) =>
  rpc(agentUrl(gateway, agent), 'SendMessage', { message: userMessage([{ text }], taskId ? { taskId } : {}) });

beforeAll(async () => {
  temporal = await testClient();
  const dir = temp.make('a2a-divergence-');
  configs = writeDivergenceProject(dir);
  taskQueue = uniqueQueue('divergence');
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, config: configs.a }),
    startWorker({ taskQueue, config: configs.a }),
  ]);
  await Promise.all(
    AGENTS.map(async (agent) => {
      const task = taskOf(await send(agent, 'buy'));
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      waiting[agent] = task.id;
    }),
  );
  // The reordered agent's task is past its first question: `audit` ran after it.
  const second = taskOf(await send('divergence-reordered', 'yes', waiting['divergence-reordered']));
  expect(second.status.message.parts[0].text).toBe('Ship it?');
  await waitForVisibility(temporal, `TaskQueue = '${taskQueue}' AND A2ATaskState = 'input-required'`, AGENTS.length);
  check = await runCli(['check-deploy', configs.b], {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    A2A_TASK_QUEUE: taskQueue,
  });
  // Two processes start, six tasks wait for input, and the check bundles the agents: slow on a loaded machine.
}, 300_000);

afterAll(async () => {
  await cleanUp();
  await temporal?.connection.close();
});

/** The first divergence check-deploy reports for `agent`. */
function divergenceOf(agent: DivergenceAgent): string {
  const lines = check.stdout.split('\n');
  const at = lines.findIndex((line) => line.trim().startsWith(`${agent}:`));
  expect(at, check.stdout).toBeGreaterThanOrEqual(0);
  return /first divergence \(task \S+\): (.*)$/.exec(lines[at + 2]!)?.[1] ?? '';
}

describe('check-deploy names what changed', () => {
  it('refuses the deploy, listing every agent', () => {
    expect(check.code, check.stderr).toBe(5);
    for (const agent of AGENTS) expect(check.stdout).toContain(waiting[agent]);
  });

  it('an activity inserted before the question', () => {
    expect(divergenceOf('divergence-inserted')).toBe(
      `the new code runs activity \`audit\` before the question \`${QUESTION}\`; the task recorded the question first`,
    );
  });

  it('an activity removed before the question', () => {
    expect(divergenceOf('divergence-removed')).toBe(
      `the new code asks the question \`${QUESTION}\` before activity \`audit\`, or without it; the task ran activity \`audit\` first`,
    );
  });

  it('an activity moved before a question it came after', () => {
    expect(divergenceOf('divergence-reordered')).toBe(
      `the new code runs activity \`audit\` before the question \`${QUESTION}\`; the task ran activity \`audit\` after it`,
    );
  });

  it('a renamed activity', () => {
    expect(divergenceOf('divergence-renamed')).toBe(
      'the new code runs activity `notifyOwner` where the task ran activity `notify`',
    );
  });

  it('a reworded question (which Temporal replays without an error)', () => {
    expect(divergenceOf('divergence-question')).toBe(
      `the new code asks the question \`Approve the purchase of 3 laptops?\` where the task asked the question \`${QUESTION}\` (its answer would be taken for the new question)`,
    );
  });

  it('a ctx.patched check removed while tasks recorded it', () => {
    expect(divergenceOf('divergence-patch')).toBe(
      "the new code no longer checks `ctx.patched('audit-first')`, which the task recorded: keep the check until every task that recorded it has ended",
    );
  });
});

describe('no divergence where there is none', { timeout: 300_000 }, () => {
  it('finds nothing in the recorded histories of every earlier release, on the current code', async () => {
    // Every kind of task the fixtures hold (questions answered, continued as new, LLM tool approvals):
    // the check's reading of questions and calls must agree with the code that replays them fine.
    const histories = await readHistoryFiles(fileURLToPath(new URL('../../fixtures/histories/', import.meta.url)));
    const fixtures = await replayTaskHistories({ agentsModule: TEST_AGENTS_MODULE, agents: [] }, histories);
    expect(fixtures.replayed).toBe(histories.length);
    expect(fixtures.broken).toEqual([]);
  });
});

describe('a task blocked by the change anyway', { timeout: 120_000 }, () => {
  it('says what differs in its refused answer and in GetTask', async () => {
    await worker.stop('SIGTERM');
    worker = await startWorker({ taskQueue, config: configs.b });
    const said = {
      // The deployed code's failure names the activity it met, and the history the question.
      'divergence-renamed': 'the new code runs activity `notifyOwner` where the task ran activity `notify`',
      // Temporal's failure does not name an inserted activity, and the gateway runs no agent code to learn it.
      'divergence-inserted': `the new code runs an activity before the question \`${QUESTION}\`; the task recorded the question first`,
    };
    for (const [agent, reason] of Object.entries(said) as [DivergenceAgent, string][]) {
      const refused = await send(agent, 'yes', waiting[agent]);
      expect(refused.error?.message).toContain(`the deployed code cannot continue this task: ${reason}; deploy a fix`);
      const read = await rpc(agentUrl(gateway, agent), 'GetTask', { id: waiting[agent] });
      expect(read.result.metadata.blocked.reason).toBe(reason);
    }
  });
});
