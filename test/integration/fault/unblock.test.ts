/**
 * Recovering from a deploy that broke waiting tasks, without waiting for Temporal's retry gap.
 * Version A of an agent notifies and audits, then asks; B swaps the two calls without
 * `ctx.patched` (it cannot continue A's tasks); C makes the swap behind `ctx.patched` (the fix).
 * While B runs, an answer is refused with words that say to send it again once a fix is deployed;
 * `tasks unblock` resets a blocked task on demand; and C, as it starts, resets the tasks B failed,
 * so the answer sent again completes the task on C. That the worker or the command did it (not
 * Temporal's own retry) is read from the new run's history: the reset names who reset it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { freePort } from '../../../src/temporal/dev-server.js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { writeApprovalProject } from '../../support/approval-project.js';
import { runCli } from '../../support/cli-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { browserAvailable, launchBrowser, newContext } from '../../support/browser.js';
import { testClient } from '../../support/worker.js';
import {
  agentUrl,
  cleanUp,
  historyOf,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  type ServeProcess,
} from '../../support/product-processes.js';

const AGENT = 'unblock-approval';
const temp = useTempDirs();
const SEND_AGAIN = /is blocked by a deploy: .*deploy a fix guarded with `ctx\.patched`.*, then send this message again/;

let configs: Record<'a' | 'b' | 'c', string>;
let taskQueue: string;
let client: Client;
let gateway: ServeProcess;
let worker: ServeProcess;
let metricsPort: number;
/** Answered while B runs and sent again after the fix; answered from the command; never answered. */
let [answered, unblockedByHand, untouched] = ['', '', ''];

const answers = new Map<string, ReturnType<typeof userMessage>>();
const answerOf = (taskId: string) =>
  answers.get(taskId) ?? answers.set(taskId, userMessage([{ text: 'approve' }], { taskId })).get(taskId)!;
const send = (taskId: string) => rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: answerOf(taskId) });
const temporalEnv = () => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), A2A_TASK_QUEUE: taskQueue });

/** Until the task's workflow task has failed and is being retried. */
async function blocked(taskId: string): Promise<void> {
  await waitFor(`task ${taskId} to be blocked`, async () => {
    const pending = (await client.workflow.getHandle(workflowIdForTask(taskId)).describe()).raw.pendingWorkflowTask;
    return (pending?.attempt ?? 0) > 1;
  });
}

/** The reasons of the resets in the task's current run (Temporal records each as a failed workflow task). */
async function resetsOf(taskId: string): Promise<string[]> {
  return (await historyOf(client, taskId))
    .map((event) => event.workflowTaskFailedEventAttributes)
    .filter(
      (failed) =>
        failed?.cause === temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
    )
    .map((failed) => failed?.failure?.message ?? '');
}

beforeAll(async () => {
  client = await testClient();
  configs = writeApprovalProject(temp.make('a2a-unblock-'), AGENT, ['a', 'b', 'c']);
  taskQueue = uniqueQueue('unblock');
  metricsPort = await freePort();
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, config: configs.a, env: { A2A_METRICS_PORT: String(metricsPort) } }),
    startWorker({ taskQueue, config: configs.a }),
  ]);
  const tasks = await Promise.all(
    ['first', 'second', 'third'].map((text) =>
      rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text }]) }).then(taskOf),
    ),
  );
  [answered, unblockedByHand, untouched] = tasks.map((task: { id: string }) => task.id) as [string, string, string];
  await worker.stop('SIGTERM');
  worker = await startWorker({ taskQueue, config: configs.b }); // the breaking deploy
});

afterAll(async () => {
  await cleanUp();
  await client?.connection.close();
});

describe('unblocking tasks a deploy broke', { timeout: 180_000 }, () => {
  it('refuses an answer to a blocked task saying to send it again after the fix, and counts the refusal', async () => {
    const refused = await send(answered);
    expect(refused.error?.data).toEqual([expect.objectContaining({ reason: 'TASK_BLOCKED' })]);
    expect(refused.error?.message).toMatch(SEND_AGAIN);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/a2a_gateway_requests_total\{[^}]*method="SendMessage"[^}]*outcome="TaskBlocked"\} [1-9]/);
  });

  it.runIf(browserAvailable())(
    'the inbox lists the blocked task as blocked by a deploy; its page says why and offers no answer',
    async () => {
      expect((await send(answered)).error?.message).toMatch(SEND_AGAIN);
      const browser = await launchBrowser();
      try {
        const page = await (await newContext(browser)).newPage();
        await page.goto(`${gateway.url}/inbox/`);
        const row = page.locator(`li.question[data-task="${answered}"] .blocked-row`);
        // Visibility lags Temporal's flag of the failing workflow task by a second or so.
        await expect
          .poll(() => row.textContent({ timeout: 1_000 }).catch(() => null), { timeout: 30_000 })
          .toBe('Blocked by a deploy: the code deployed makes other calls than the task recorded');

        await page.goto(`${gateway.url}/inbox/task?${new URLSearchParams({ agent: AGENT, id: answered })}`);
        const notice = page.locator('#answer .blocked');
        await notice.waitFor({ state: 'visible' });
        expect(await notice.textContent()).toMatch(
          /^Blocked by a deployThe code deployed cannot continue this task: the new code runs activity `audit` before activity `notify`.*No answer can be taken until a fix is deployed/,
        );
        expect(await page.locator('#question-body').textContent()).toContain('Approve?');
        expect(await page.locator('form.answer').count()).toBe(0);
        expect(await page.locator('#task-meta .state').textContent()).toBe('Blocked by a deploy');
      } finally {
        await browser.close();
      }
    },
  );

  it('tasks unblock resets a blocked task on demand and says what it did; a task that is not blocked is left as it is', async () => {
    expect((await send(unblockedByHand)).error?.message).toMatch(SEND_AGAIN);
    await blocked(unblockedByHand);
    const unblocked = await runCli(['tasks', 'unblock', unblockedByHand], temporalEnv());
    expect(unblocked.code, unblocked.stderr).toBe(0);
    expect(unblocked.stdout).toMatch(
      new RegExp(
        `^Unblocked task ${unblockedByHand}: its workflow task had failed under build \\S+; reset to that point \\(new run \\S+\\)`,
      ),
    );
    expect(await resetsOf(unblockedByHand)).toEqual([
      expect.stringContaining('unblocked by a2a-temporal tasks unblock'),
    ]);

    const notBlocked = await runCli(['tasks', 'unblock', untouched], temporalEnv());
    expect(notBlocked.code, notBlocked.stderr).toBe(0);
    expect(notBlocked.stdout.trim()).toBe(`Task ${untouched} is not blocked: nothing to do.`);

    // B still runs and fails the reset task again: --all finds it (and only it) on the queue.
    await blocked(unblockedByHand);
    const all = await runCli(['tasks', 'unblock', '--all'], temporalEnv());
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(`Unblocked task ${unblockedByHand}:`);
    expect(all.stdout).toContain(`Unblocked task ${answered}:`);
    expect(all.stdout).not.toContain(untouched);

    const usage = await runCli(['tasks', 'unblock'], temporalEnv());
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('Name one task ID, or --all');
  });

  it('a fixed worker resets the blocked tasks as it starts; the answer sent again completes the task, once', async () => {
    await Promise.all([blocked(answered), blocked(unblockedByHand)]);
    await worker.stop('SIGTERM');
    const resetsBefore = await resetsOf(answered);
    const workerMetricsPort = await freePort();
    worker = await startWorker({
      taskQueue,
      config: configs.c, // the fix
      env: { A2A_WORKER_METRICS_PORT: String(workerMetricsPort), HOST: '127.0.0.1' },
    });
    await waitFor('the worker to unblock both tasks', async () =>
      [answered, unblockedByHand].every((taskId) =>
        worker
          .output()
          .split('\n')
          .some((line) => line.includes('"task unblocked"') && line.includes(taskId)),
      ),
    );
    const unblockLine = worker
      .output()
      .split('\n')
      .find((line) => line.includes('"task unblocked"'))!;
    expect(JSON.parse(unblockLine)).toMatchObject({ level: 30, by: expect.stringMatching(/^worker /) });
    const resets = await resetsOf(answered);
    expect(resets).toHaveLength(resetsBefore.length + 1);
    expect(resets.at(-1)).toMatch(/^a2a-temporal: unblocked by worker \S+: its workflow task failed under build \S+/);

    const workerMetrics = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
    expect(workerMetrics).toMatch(new RegExp(`a2a_tasks_unblocked_total\\{[^}]*taskQueue="${taskQueue}"[^}]*\\} 2\\b`));

    for (const taskId of [answered, unblockedByHand]) {
      const done = await send(taskId);
      expect(done.error).toBeUndefined();
      expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.result.task.status.message.parts[0].text).toBe('approve on C');
      // The first message and the answer, once: nothing refused while blocked went in besides.
      expect(done.result.task.history.filter((m: { role: string }) => m.role === 'ROLE_USER')).toHaveLength(2);
    }
    expect(worker.errorLines()).toEqual([]);
  });
});
