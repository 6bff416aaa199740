/**
 * `a2a-temporal check-deploy` as a deploy pipeline runs it: a project in a temporary folder has two
 * approvals waiting on version A; version B swaps two activity calls that come before the wait
 * (no patch), version C makes the same swap behind `ctx.patched`. The check refuses B, naming both
 * tasks and the diverging call, and passes C, on which both approvals then complete. The same
 * check runs from code (`a2a-temporal/testing`) on the open tasks and on saved history files.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { replayHistoryFiles, replayOpenTasks, saveTaskHistory } from '../../../../src/testing/index.js';
import { workflowIdForTask } from '../../../../src/protocol/contract.js';
import { locateTemporalCli } from '../../../../src/temporal/cli.js';
import { bundleAgents } from '../../../../src/worker/agents-bundle.js';
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
} from '../../../support/product-processes.js';
import { writeApprovalProject } from '../../../support/approval-project.js';
import { runCli, type CliRun } from '../../../support/cli-process.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { quietLogger, testClient } from '../../../support/worker.js';

const AGENT = 'deploy-check-approval';
const temp = useTempDirs();

type Version = 'a' | 'b' | 'c';

function checkDeploy(args: string[], taskQueue: string): Promise<CliRun> {
  return runCli(['check-deploy', ...args], { TEMPORAL_ADDRESS: inject('temporalAddress'), A2A_TASK_QUEUE: taskQueue });
}

let temporal: Client;
let dir: string;
let configs: Record<Version, string>;
let taskQueue: string;
let gateway: ServeProcess;
let worker: ServeProcess;
let waiting: string[];
const bundles = {} as Record<'b' | 'c', Promise<WorkflowBundleWithSourceMap>>;

const send = (text: string, taskId?: string) =>
  rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text }], taskId ? { taskId } : {}) }).then(
    taskOf,
  );

beforeAll(async () => {
  // The replays below fail on purpose: keep the SDK's own report of that quiet.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  temporal = await testClient();
  dir = temp.make('a2a-check-deploy-');
  configs = writeApprovalProject(dir, AGENT, ['a', 'b', 'c']);
  taskQueue = uniqueQueue('check-deploy');
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, config: configs.a }),
    startWorker({ taskQueue, config: configs.a }),
  ]);
  const tasks = await Promise.all([send('first'), send('second')]);
  for (const task of tasks) expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  waiting = tasks.map((task: { id: string }) => task.id);
  // Visibility is eventually consistent: wait until the check would see both.
  await waitForVisibility(temporal, `TaskQueue = '${taskQueue}' AND A2ATaskState = 'input-required'`, waiting.length);
});

afterAll(async () => {
  await cleanUp();
  await temporal?.connection.close();
});

function bundleOf(version: 'b' | 'c'): Promise<WorkflowBundleWithSourceMap> {
  bundles[version] ??= bundleAgents(join(dir, `agents-${version}.ts`), { logger: quietLogger });
  return bundles[version];
}

// Each bundles the agents once or twice (about 2 s each, much longer on a loaded machine).
describe('a2a-temporal check-deploy', { timeout: 150_000 }, () => {
  it('refuses a change that reorders calls without a patch, and passes the patched one', async () => {
    const [unpatched, patched] = await Promise.all([
      checkDeploy([configs.b], taskQueue),
      checkDeploy([configs.c], taskQueue),
    ]);
    console.log(`check-deploy of 2 waiting tasks: B ${unpatched.ms} ms, C ${patched.ms} ms (run side by side)`);
    console.log(unpatched.stdout);

    expect(unpatched.code, unpatched.stderr).toBe(5);
    expect(unpatched.stdout).toContain(`${AGENT}: 2 tasks, 2 waiting for input`);
    for (const id of waiting) expect(unpatched.stdout).toContain(id);
    expect(unpatched.stdout).toMatch(
      /first divergence \(task \S+\): the new code runs activity `audit` before activity `notify`; the task ran activity `notify` first\n/,
    );
    expect(unpatched.stdout).toContain("ctx.patched('my-change')");

    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stdout).toContain('None would break');
  });

  it('tells the same from code, on a sample of the open tasks', async () => {
    const check = await replayOpenTasks({
      client: temporal,
      config: configs.b,
      taskQueue,
      sample: 1,
      workflowBundle: await bundleOf('b'),
    });
    expect(check).toMatchObject({ replayed: 1, waiting: 1, broken: [{ agent: AGENT, state: 'input-required' }] });
    expect(waiting).toContain(check.broken[0]!.taskId);

    const all = await replayOpenTasks({
      client: temporal,
      config: configs.c,
      taskQueue,
      workflowBundle: await bundleOf('c'),
    });
    expect(all).toMatchObject({ replayed: 2, waiting: 2, broken: [] });
  });

  it('replays saved histories: its own recordings and those of the Temporal CLI', async () => {
    const histories = join(dir, 'histories');
    mkdirSync(histories);
    await saveTaskHistory(temporal, waiting[0]!, join(histories, 'first.json'));
    const cli = locateTemporalCli(process.env);
    const shown = spawnSync(
      cli.kind === 'path' ? cli.path : 'temporal',
      [
        'workflow',
        'show',
        '--address',
        inject('temporalAddress'),
        '--workflow-id',
        workflowIdForTask(waiting[1]!),
        '--output',
        'json',
      ],
      { encoding: 'utf8' },
    );
    expect(shown.status, shown.stderr).toBe(0);
    writeFileSync(join(histories, `${workflowIdForTask(waiting[1]!)}.json`), shown.stdout);

    const broken = await replayHistoryFiles({ config: configs.b, histories, workflowBundle: await bundleOf('b') });
    expect(broken.replayed).toBe(2);
    expect(broken.broken.map((task) => task.taskId).sort()).toEqual([...waiting].sort());
    const fine = await replayHistoryFiles({ config: configs.c, histories, workflowBundle: await bundleOf('c') });
    expect(fine).toMatchObject({ replayed: 2, broken: [] });
  });

  it('after switching the worker to C, both approvals complete', async () => {
    await worker.stop('SIGTERM');
    worker = await startWorker({ taskQueue, config: configs.c });
    const answered = await Promise.all(waiting.map((id) => send('approve', id)));
    for (const task of answered) {
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.message.parts[0].text).toBe('approve on C');
    }
  });
});
