/**
 * The worker under fault: SIGKILLed while activities run, and down while an approval deadline
 * passes. The worker is the product's own `a2a-suite.temporal worker` command; clients speak A2A to an
 * `a2a-suite.temporal gateway` process on the same task queue. Each test prints what it tried, what
 * survived and what was lost.
 */
import { describe, expect, it } from 'vitest';
import { DEADLINE_REASON } from '../../fixtures/fault/fault-agents.js';
import { readLedger } from '../../fixtures/fault/ledger-store.js';
import {
  EventType,
  agentUrl,
  countEvents,
  historyOf,
  range,
  report,
  rpc,
  sleep,
  startProject,
  startWorker,
  taskOf,
  userMessage,
  waitFor,
  waitForTaskState,
  workflowTaskFailures,
  faultSuite,
} from '../../support/product-processes.js';

const suite = faultSuite();

const EXPENSE = 'Please approve an expense of 120 USD for a team lunch';

describe('a worker SIGKILLed while activities run', () => {
  it('loses no task, and every keyed side effect happens exactly once', async () => {
    const { taskQueue, ledgerDir, gateway, worker } = await startProject('sigkill');
    const url = agentUrl(gateway, 'fault-ledger');
    const TASKS = 6;
    const STEPS = 2;
    const request = { steps: STEPS, stepMs: 2000 };
    const taskIds = await Promise.all(
      range(TASKS).map(async () => {
        const message = userMessage([{ text: 'drill' }, { data: request }]);
        return taskOf(await rpc(url, 'SendMessage', { message, configuration: { returnImmediately: true } })).id;
      }),
    );

    // Each activity applies its effect first, then works for 2 s: once every task has applied its
    // first effect, the kill cuts short activities that have applied their effect and not finished.
    await waitFor('every task to apply its first effect', async () => {
      const { effects } = await readLedger(ledgerDir);
      return taskIds.every((id) => effects.has(`${id}:step-1`));
    });
    const atKill = await readLedger(ledgerDir);
    await worker.stop('SIGKILL');
    const killedAt = Date.now();
    await startWorker({ taskQueue, ledgerDir });
    const completed = await Promise.all(taskIds.map((id) => waitForTaskState(url, id, 'TASK_STATE_COMPLETED')));
    const recoveryMs = Date.now() - killedAt;

    const { attempts, effects } = await readLedger(ledgerDir);
    const expected = taskIds.flatMap((id) => range(STEPS).map((step) => `${id}:step-${step + 1}`));
    const retries = attempts.filter((entry) => entry.attempt > 1);
    // A retry whose key was already there: without the key, this effect would have happened twice.
    const doublesPrevented = retries.filter((entry) => effects.get(entry.key) !== `attempt ${entry.attempt}`);
    const histories = await Promise.all(taskIds.map((id) => historyOf(suite.temporal, id)));
    const completedActivities = histories.map((events) =>
      countEvents(events, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
    );
    report('worker SIGKILL with activities under way', {
      tried: `${TASKS} tasks x ${STEPS} keyed side effects; worker SIGKILLed after ${atKill.effects.size} effects, mid-activity`,
      survived: `${completed.length}/${TASKS} tasks completed; ${effects.size}/${expected.length} effects, each applied once`,
      lost: `${expected.filter((key) => !effects.has(key)).length} effects, ${TASKS - completed.length} tasks`,
      attempts: `${attempts.length} for ${expected.length} steps (${retries.length} retries after the kill)`,
      'doubles prevented by the key': doublesPrevented.length,
      'kill to all completed': `${recoveryMs} ms`,
      // A workflow task sent to the dead worker's sticky queue waits there 10 s (the SDK's default)
      // before any worker may take it.
      'workflow tasks timed out on the dead worker': histories
        .map((events) => countEvents(events, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT))
        .join(', '),
    });

    expect([...effects.keys()].sort()).toEqual(expected.sort());
    // Without retries the kill hit nothing and the test proved nothing.
    expect(retries.length).toBeGreaterThan(0);
    expect(doublesPrevented.length).toBeGreaterThan(0);
    expect(completedActivities).toEqual(taskIds.map(() => STEPS));
  });
});

describe('an approval deadline that passes while the worker is down', () => {
  it('takes effect once a worker returns; an answer sent past it is refused, as with the worker up', async () => {
    const { taskQueue, gateway, worker } = await startProject('deadline');
    const url = agentUrl(gateway, 'fault-deadline');
    const ask = async () => taskOf(await rpc(url, 'SendMessage', { message: userMessage([{ text: EXPENSE }]) }));
    // `unanswered` gets no answer; `late` gets one after its deadline, while no worker runs.
    const [unanswered, late] = await Promise.all([ask(), ask()]);
    for (const task of [unanswered, late]) expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const deadlines = [unanswered, late].map((task) => Date.parse(task.metadata.pendingQuestion.deadline));
    const leadMs = Math.min(...deadlines) - Date.now();
    expect(leadMs, 'the worker must stop before the deadline; the machine was too slow').toBeGreaterThan(500);

    await worker.stop('SIGKILL');
    await sleep(Math.max(...deadlines) - Date.now() + 1500);
    const whileDown = (await rpc(url, 'GetTask', { id: unanswered.id })).result;
    const lateMessage = userMessage([{ text: 'approve' }], { taskId: late.id });
    const lateAnswer = rpc(url, 'SendMessage', { message: lateMessage });
    await sleep(300); // the answer reaches Temporal before the worker does
    const restartedAt = Date.now();
    await startWorker({ taskQueue });

    const rejected = await waitForTaskState(url, unanswered.id, 'TASK_STATE_REJECTED');
    // With no worker to take it for seconds, the answer is refused as such (docs/deploying.md, "Changing agent code
    // while tasks wait"); sent again once one runs, it meets the deadline that decided meanwhile.
    const whileNoWorker = await lateAnswer;
    const refusedForNoWorker = JSON.stringify(whileNoWorker.error?.data ?? []).includes('NO_WORKER');
    const answer = refusedForNoWorker ? await rpc(url, 'SendMessage', { message: lateMessage }) : whileNoWorker;
    const lateFinal = await waitForTaskState(url, late.id, 'TASK_STATE_REJECTED');
    const [unansweredHistory, lateHistory] = await Promise.all([
      historyOf(suite.temporal, unanswered.id),
      historyOf(suite.temporal, late.id),
    ]);
    const lastEventId = (events: typeof lateHistory, type: number) =>
      String(events.findLast((event) => event.eventType === type)?.eventId ?? 'none');
    const settledStates = (task: any) =>
      task.metadata.timeline.filter((entry: any) => ['completed', 'rejected'].includes(entry.state)).length;
    const answerInHistory = (task: any, messageId: string) =>
      (task.history ?? []).filter((message: any) => message.messageId === messageId).length;
    report('approval deadline passing while the worker is down', {
      tried: `2 tasks waiting, ${Math.round(leadMs / 1000)} s before their deadline; worker SIGKILLed, restarted 1.5 s past it; one answer sent past it while down`,
      survived: `deadline outcome applied once (${rejected.status.state}, "${rejected.status.message.parts[0].text}"); late answer ${answer.error ? `refused (${answer.error.code}: ${answer.error.message})` : 'applied'}, task ${lateFinal.status.state}`,
      lost: '0',
      'GetTask while down, past the deadline': `${whileDown?.status?.state} (${whileDown?.metadata?.summaryOnly ? 'from search attributes' : 'from the workflow'})`,
      'timers fired (unanswered, late)': `${countEvents(unansweredHistory, EventType.EVENT_TYPE_TIMER_FIRED)}, ${countEvents(lateHistory, EventType.EVENT_TYPE_TIMER_FIRED)}`,
      'late task history': `deadline timer fired at event ${lastEventId(lateHistory, EventType.EVENT_TYPE_TIMER_FIRED)}, last update accepted at event ${lastEventId(lateHistory, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)}`,
      'restart to outcome': `${Date.now() - restartedAt} ms`,
    });

    expect(rejected.status.message.parts[0].text).toBe(DEADLINE_REASON);
    expect(settledStates(rejected)).toBe(1);
    expect(countEvents(unansweredHistory, EventType.EVENT_TYPE_TIMER_FIRED)).toBe(1);
    expect(workflowTaskFailures(unansweredHistory)).toEqual([]);
    // The deadline decided, and the client was told its answer came too late.
    expect(settledStates(lateFinal)).toBe(1);
    expect(answer.error?.code).toBe(-32004);
    // Sent again after the deadline settled the task, the answer meets the task it ended as.
    expect(answer.error?.message).toMatch(
      refusedForNoWorker ? /deadline passed|is rejected and accepts no more messages/ : /deadline passed/,
    );
    expect(lateFinal.status.message.parts[0].text).toBe(DEADLINE_REASON);
    expect(answerInHistory(lateFinal, lateMessage.messageId)).toBe(0);
  });
});
