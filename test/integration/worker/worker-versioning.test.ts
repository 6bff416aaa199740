/**
 * Worker Versioning, as docs/deploying.md's rollout runs it: two versions of a project's worker side by side
 * on one dev server. Version A's agent notifies then audits before it asks; version B audits first
 * with no patch, which would break A's waiting task on B's code. A task started on A is pinned to
 * A: after B becomes the deployment's current version it still completes on A's worker, while a
 * new task starts and completes on B; `check-deploy` of B leaves the pinned task out and passes.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { writeApprovalProject } from '../../support/approval-project.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { testClient } from '../../support/worker.js';
import {
  agentUrl,
  cleanUp,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  type ServeProcess,
} from '../../support/product-processes.js';
import { runCli } from '../../support/cli-process.js';

const AGENT = 'versioned-approval';
const temp = useTempDirs();

let temporal: Client;
let configs: Record<'a' | 'b', string>;
let taskQueue: string;
let deployment: string;
let gateway: ServeProcess;

const send = (text: string, taskId?: string) =>
  rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text }], taskId ? { taskId } : {}) }).then(
    taskOf,
  );

function startVersion(version: 'a' | 'b'): Promise<ServeProcess> {
  return startWorker({
    taskQueue,
    config: configs[version],
    env: { A2A_WORKER_DEPLOYMENT: deployment, A2A_WORKER_BUILD_ID: version, A2A_WORKER_VERSIONING: 'auto-upgrade' },
  });
}

/** What `temporal worker deployment set-current-version` does; the version exists once its worker polled. */
async function makeCurrent(buildId: string): Promise<void> {
  await waitFor(`build ${buildId} to become current`, async () => {
    try {
      await temporal.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: 'default',
        deploymentName: deployment,
        buildId,
        identity: 'worker-versioning.test',
      });
      return true;
    } catch {
      return false;
    }
  });
}

async function versionOf(taskId: string) {
  const description = await temporal.workflow.getHandle(workflowIdForTask(taskId)).describe();
  const info = description.raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId };
}

beforeAll(async () => {
  temporal = await testClient();
  // The agent pins itself; the workers' default is the other behaviour: the agent's choice wins.
  configs = writeApprovalProject(temp.make('a2a-versioning-'), AGENT, ['a', 'b'], { versioning: 'pinned' });
  taskQueue = uniqueQueue('versioning');
  deployment = `approvals-${randomUUID().slice(0, 8)}`;
  gateway = await startGateway({ taskQueue, config: configs.a });
});

afterAll(async () => {
  await cleanUp();
  await temporal?.connection.close();
});

describe('Worker Versioning', { timeout: 180_000 }, () => {
  let onA: string;
  let versionA: ServeProcess;

  it('a versioned worker says when no version is current yet, and takes new tasks once it is', async () => {
    versionA = await startVersion('a');
    expect(versionA.output()).toContain(`"deployment":"${deployment}","buildId":"a","versioning":"auto-upgrade"`);
    await waitFor('the routing report', async () => versionA.output().includes('set-current-version'));
    expect(versionA.output()).toContain('no version is current: new tasks wait for one');
    expect(versionA.output()).toContain(
      `temporal worker deployment set-current-version --namespace default --deployment-name ${deployment} --build-id a --yes`,
    );
    await makeCurrent('a');
    const task = await send('first');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    onA = task.id;
    expect(await versionOf(onA)).toEqual({ behavior: 1 /* PINNED */, buildId: 'a' });
  });

  it('a task pinned to A completes on an A worker while B, now current, serves new tasks', async () => {
    const versionB = await startVersion('b');
    await makeCurrent('b');
    const onB = (await send('second')).id;
    expect(await versionOf(onB)).toEqual({ behavior: 1, buildId: 'b' });

    // B's code would break A's task (check-deploy.test.ts shows it); pinned, the task never meets it,
    // and the check leaves both pinned tasks out.
    const check = await runCli(['check-deploy', configs.b], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      A2A_TASK_QUEUE: taskQueue,
    });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain(`2 tasks pinned by Worker Versioning not replayed`);
    expect(check.stdout).toContain(`1 on ${deployment}:a`);

    const [first, second] = await Promise.all([send('approve', onA), send('approve', onB)]);
    expect(first.status.state).toBe('TASK_STATE_COMPLETED');
    expect(first.status.message.parts[0].text).toBe('approve on A');
    expect(second.status.message.parts[0].text).toBe('approve on B');
    const visible = await temporal.workflow.count(
      `TaskQueue = '${taskQueue}' AND TemporalWorkerDeploymentVersion = '${deployment}:a'`,
    );
    expect(visible.count).toBe(1);
    await versionB.stop();
  });

  it('a reply to a task pinned to a version whose workers are gone is refused, naming it, instead of waiting', async () => {
    const versionB = await startVersion('b');
    const onB = (await send('third')).id;
    await versionB.stop(); // A's worker still polls the queue: only B's are gone
    const reply = await rpc(agentUrl(gateway, AGENT), 'SendMessage', {
      message: userMessage([{ text: 'approve' }], { taskId: onB }),
    });
    expect(reply.error?.message).toContain(`no worker for version ${deployment}:b is running`);
    const cli = await runCli(['tasks', 'reply', onB, 'approve', '--agent', AGENT, '--url', gateway.url]);
    expect(cli.stderr).toContain(`no worker for version ${deployment}:b is running`);
    expect(cli.code).toBe(2); // ExitCode.Unreachable: try again later
    expect(gateway.errorLines()).toEqual([]);
    expect(gateway.output()).not.toContain('MaxListenersExceededWarning');
    expect(gateway.output()).toMatch(new RegExp(`"level":40[^\\n]*no worker for version ${deployment}:b is running`));
  });
});
