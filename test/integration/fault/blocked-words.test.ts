/**
 * A blocked task's reason in the user's words where Temporal's failure has none: version A of an
 * agent notifies and audits, then asks; D audits once more before the question, without
 * `ctx.patched`. Temporal's failure only says "Activity machine does not handle this event:
 * HistoryEvent(id: …, WorkflowPropertiesModified)"; D's worker replays the task on its own code,
 * names the inserted activity in a warn line with the task ID and in a signal to the task, which
 * the Temporal UI shows in its history and the gateway's blocked marker reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { DIVERGENCE_SIGNAL } from '../../../src/protocol/contract.js';
import { writeApprovalProject } from '../../support/approval-project.js';
import { useTempDirs } from '../../support/temp-dirs.js';
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
  workflowTaskFailures,
  type ServeProcess,
} from '../../support/product-processes.js';

const AGENT = 'inserted-activity';
const temp = useTempDirs();
const WORDS = 'the new code runs activity `audit` before the question `Approve?`; the task recorded the question first';

let client: Client;
let gateway: ServeProcess;
let worker: ServeProcess;
let taskId: string;

beforeAll(async () => {
  client = await testClient();
  const configs = writeApprovalProject(temp.make('a2a-blocked-words-'), AGENT, ['a', 'd']);
  const taskQueue = uniqueQueue('blocked-words');
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, config: configs.a }),
    startWorker({ taskQueue, config: configs.a }),
  ]);
  taskId = taskOf(await rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text: 'go' }]) })).id;
  await worker.stop('SIGTERM');
  worker = await startWorker({ taskQueue, config: configs.d }); // an activity inserted before the question
});

afterAll(async () => {
  await cleanUp();
  await client?.connection.close();
});

describe('a blocked task says in words the call Temporal does not name', { timeout: 120_000 }, () => {
  it('the worker that failed it names the inserted activity: in its warn line, in the task history and in the marker', async () => {
    const answer = userMessage([{ text: 'approve' }], { taskId });
    expect((await rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: answer })).error?.message).toMatch(
      /is blocked by a deploy/,
    );

    await waitFor('the worker to say why it failed the task', async () => worker.output().includes(taskId), {
      describe: () => worker.output().slice(-2000),
    });
    const alert = worker
      .output()
      .split('\n')
      .find((line) => line.includes(taskId));
    expect(JSON.parse(alert!)).toMatchObject({
      level: 40,
      taskId,
      reason: WORDS,
      msg: 'task blocked: this worker cannot continue it',
    });

    const history = await historyOf(client, taskId);
    // Temporal's own words name no activity.
    expect(workflowTaskFailures(history)).toEqual([expect.stringMatching(/^\[TMPRL1100\] .*Activity machine/)]);
    await waitFor('the words in the task history', async () =>
      (await historyOf(client, taskId)).some(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === DIVERGENCE_SIGNAL,
      ),
    );

    // The signal makes Temporal try the workflow task again at once; it fails again, and stays blocked.
    let read = await rpc(agentUrl(gateway, AGENT), 'GetTask', { id: taskId });
    await waitFor(
      'the marker to say it in words',
      async () => {
        read = await rpc(agentUrl(gateway, AGENT), 'GetTask', { id: taskId });
        return read.result.metadata.blocked?.reason === WORDS;
      },
      { describe: () => JSON.stringify(read.result.metadata) },
    );
    // Once: the worker finds its words in the history as it fails the task again.
    const signals = (await historyOf(client, taskId)).filter(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === DIVERGENCE_SIGNAL,
    );
    expect(signals).toHaveLength(1);
    expect(read.result.metadata.pendingQuestion.prompt).toBe('Approve?');
    expect(worker.errorLines()).toEqual([]);
  });
});
