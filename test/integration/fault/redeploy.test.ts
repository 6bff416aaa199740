/**
 * A redeploy while tasks wait: release 1 of the agents runs, tasks wait for answers, the worker is
 * stopped as a deploy stops it, and release 2 (its changes behind `ctx.patched()`) takes over. Both are
 * the product's own `a2a-temporal worker` command with a config of their own.
 */
import type { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { bundleAgents } from '../../../src/worker/agents-bundle.js';
import { testClient } from '../../support/worker.js';
import { AUDIT_PATCH, CHAT_PATCH, NOTIFY_PATCH } from '../../fixtures/fault/fault-agents.js';
import { readLedger } from '../../fixtures/fault/ledger-store.js';
import {
  REDEPLOYED_CONFIG,
  UNPATCHED_AGENTS,
  agentUrl,
  cleanUp,
  historyOf,
  patchesOf,
  range,
  report,
  rpc,
  startProject,
  startWorker,
  taskOf,
  userMessage,
  workflowTaskFailures,
  type HistoryEvent,
} from '../../support/product-processes.js';

const WAITING = 4;
const CHAT_REPLIES_ON_RELEASE_1 = 3;

let temporal: Client;
let deploy: Awaited<ReturnType<typeof redeployWithWaitingTasks>>;

beforeAll(async () => {
  // The replay control below fails on purpose: keep the SDK's own report of that quiet.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  temporal = await testClient();
  deploy = await redeployWithWaitingTasks();
});
afterAll(async () => {
  await cleanUp();
  await temporal?.connection.close();
});

/** Release 1 with approvals waiting and a conversation under way; then release 2 instead. */
async function redeployWithWaitingTasks() {
  const { taskQueue, ledgerDir, gateway, worker } = await startProject('redeploy');
  const send = (agent: string, text: string, taskId?: string) =>
    rpc(agentUrl(gateway, agent), 'SendMessage', { message: userMessage([{ text }], taskId ? { taskId } : {}) }).then(
      taskOf,
    );
  const approvals = await Promise.all(range(WAITING).map(() => send('fault-approval', 'drill')));
  const chat = await send('fault-chat', 'hello');
  for (const i of range(CHAT_REPLIES_ON_RELEASE_1)) await send('fault-chat', `reply ${i}`, chat.id);
  const approvalHistory = await temporal.workflow.getHandle(workflowIdForTask(approvals[0].id)).fetchHistory();

  const stopped = await worker.stop('SIGTERM'); // as a deploy stops the old release
  await startWorker({ taskQueue, ledgerDir, config: REDEPLOYED_CONFIG });
  return { ledgerDir, send, approvals, chat, approvalHistory, stopped };
}

describe('a redeploy with a patched agent while tasks wait', () => {
  it('finishes the waiting tasks on the new code, without nondeterminism', async () => {
    const { approvals, send, ledgerDir, stopped, approvalHistory } = deploy;
    for (const task of approvals) expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await Promise.all(approvals.map((task) => send('fault-approval', 'approve', task.id)));
    const fresh = await send('fault-approval', 'drill');
    const freshDone = await send('fault-approval', 'approve', fresh.id);

    const { effects } = await readLedger(ledgerDir);
    const stepsOf = (taskId: string) =>
      ['notify', 'audit'].filter((step) => effects.has(`${taskId}:${step}`)).join('+') || 'none';
    const histories = await Promise.all([...approvals, fresh].map((task) => historyOf(temporal, task.id)));
    const failures = histories.flatMap(workflowTaskFailures);
    const ours = (events: HistoryEvent[]) =>
      patchesOf(events).filter((id) => id === NOTIFY_PATCH || id === AUDIT_PATCH);

    // The control: release 2 written without patched() cannot replay what release 1 recorded.
    const unpatched = await bundleAgents(UNPATCHED_AGENTS, { logger: quiet });
    const control = await Worker.runReplayHistory({ workflowBundle: unpatched }, approvalHistory).then(
      () => 'replayed (so the control proves nothing)',
      (error: Error) => (error.name === 'DeterminismViolationError' ? 'nondeterminism, as expected' : String(error)),
    );
    const completed = answered.filter((task) => task.status.state === 'TASK_STATE_COMPLETED');
    report('redeploy with a patched agent while tasks wait', {
      tried: `${WAITING} approvals waiting on release 1; worker stopped (exit ${stopped.code ?? stopped.signal}); release 2 started; all answered; 1 new task on release 2`,
      survived: `${completed.length}/${WAITING} waiting tasks completed on release 2; new task ${freshDone.status.state}`,
      lost: `${WAITING - completed.length} tasks`,
      'workflow task failures (nondeterminism among them)': failures.length,
      'steps taken by the old tasks (notify comes before the wait)': answered
        .map((task) => stepsOf(task.id))
        .join(', '),
      'steps taken by the new task': stepsOf(fresh.id),
      'release 2 without patched(), replaying a release 1 history': control,
    });

    expect(stopped.code).toBe(0);
    for (const task of answered) {
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.message.parts[0].text).toBe('approve (answered on release 2)');
      expect(stepsOf(task.id)).toBe('audit');
    }
    expect(freshDone.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stepsOf(fresh.id)).toBe('notify+audit');
    expect(failures).toEqual([]);
    expect(histories.slice(0, WAITING).map(ours)).toEqual(approvals.map(() => [AUDIT_PATCH]));
    expect(ours(histories[WAITING]!)).toEqual([NOTIFY_PATCH, AUDIT_PATCH]);
    expect(control).toBe('nondeterminism, as expected');
  });

  // After continue-as-new the agent's `run` executes again from the top with its steps answered from
  // the journal; Temporal's patched() alone would then say true (a new run has no history to replay)
  // where release 1 had asked instead of greeting. ctx.patched() answers from the journal.
  it('keeps a conversation that started on release 1 going across continue-as-new on release 2', async () => {
    const { chat, send } = deploy;
    const handle = temporal.workflow.getHandle(workflowIdForTask(chat.id));
    const firstRun = (await handle.describe()).runId;
    let task = chat;
    let replies = CHAT_REPLIES_ON_RELEASE_1;
    let continuedAfter: number | undefined;
    // Replies until Temporal suggests continue-as-new (after 120 history events in tests), then two more.
    while (task.status.state === 'TASK_STATE_INPUT_REQUIRED' && replies < 60) {
      task = await send('fault-chat', `reply ${replies}`, chat.id);
      replies++;
      if (continuedAfter === undefined && (await handle.describe()).runId !== firstRun) continuedAfter = replies;
      if (continuedAfter !== undefined && replies >= continuedAfter + 2) break;
    }
    if (task.status.state === 'TASK_STATE_INPUT_REQUIRED') task = await send('fault-chat', 'done', chat.id);
    const patches = patchesOf(await historyOf(temporal, chat.id)).filter((id) => id === CHAT_PATCH);
    report('a conversation across a redeploy and continue-as-new', {
      tried: `${CHAT_REPLIES_ON_RELEASE_1} replies on release 1, then ${replies - CHAT_REPLIES_ON_RELEASE_1} on release 2; continued as new after reply ${continuedAfter ?? 'never'}`,
      survived: `task ${task.status.state}: "${task.status.message?.parts?.[0]?.text}"`,
      lost: task.status.state === 'TASK_STATE_COMPLETED' ? '0' : 'the conversation',
      'greeting patch in the new run': patches.length ? 'taken' : 'not taken',
    });

    expect(continuedAfter).toBeDefined();
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe(`${replies} replies (release 2)`);
  });
});

const quiet = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: (message: string) => console.error(message),
};
