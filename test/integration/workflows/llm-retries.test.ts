/**
 * LLM agents when things are retried or misnamed: a model call that breaks mid-answer and is retried
 * restarts its `answer` artifact (no splice of two attempts); partial retry options keep the default
 * attempt limits (a model endpoint that is down fails the task, a failing tool's error reaches the
 * model); a tool naming an activity the worker lacks stops the worker from starting.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { stateOf } from '../../../src/protocol/states.js';
import type { WireTask } from '../../../src/protocol/wire.js';
import { agentsPlugin } from '../../../src/worker/agents-plugin.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { finalTask, startTask } from '../../support/tasks.js';
import { brokenToolCalls } from '../../support/test-activities.js';
import { startTestWorker, testClient, TEST_ACTIVITIES } from '../../support/worker.js';
import { useTemporal } from '../../support/use-temporal.js';

let model: FakeModelServer;
beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(() => model?.close());

const temporal = useTemporal(() => ({ baseURL: model.url, model: 'fake-model' }));

const token = () => `t${randomUUID().slice(0, 8)}`;

/** The text of the task's `answer` artifacts, each joined from its parts. */
function answers(task: WireTask): string[] {
  return (task.artifacts ?? [])
    .filter((artifact) => artifact.name === 'answer')
    .map((artifact) => artifact.parts.map((part) => part.text ?? '').join(''));
}

describe('a model call retried after it streamed part of its answer', () => {
  it("restarts the answer artifact: it holds the successful attempt's text only", async () => {
    const t = token();
    const answer = `The real answer about ${t}.`;
    model.script(
      // Streamed slowly enough that several chunks reach the task before the connection drops.
      { match: t, text: 'BROKEN '.repeat(20), chunkSize: 7, chunkDelayMs: 150, dropAfterChunks: 4 },
      { match: t, text: answer },
    );
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm', { text: `Tell ${t}` });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(model.requestsMatching(t)).toHaveLength(2);
    expect(task.status.message?.parts[0]?.text).toBe(answer);
    expect(answers(task)).toEqual([answer]);
  });
});

describe('partial retry options', () => {
  it('keep the default attempt limit of model calls: a model endpoint that is down fails the task', async () => {
    const down = await startFakeModelServer();
    const url = down.url;
    await down.close();
    const worker = await startTestWorker(undefined, { model: { baseURL: url, model: 'fake-model' } });
    const client = await testClient();
    try {
      const { handle } = await startTask(client, worker.taskQueue, 'test-llm-retry', { text: 'Check' });
      const { task } = await finalTask(handle);
      expect(stateOf(task)).toBe('failed');
      expect(task.status.message?.parts[0]?.text).toMatch(/^The model call failed: /);
      const history = await handle.fetchHistory();
      const started = history.events?.filter((event) => event.activityTaskStartedEventAttributes);
      expect(started?.at(-1)?.activityTaskStartedEventAttributes?.attempt).toBe(3);
    } finally {
      await worker.shutdown();
      await client.connection.close();
    }
  }, 30_000);

  it("keep the default attempt limit of tools: a failing tool's last error reaches the model", async () => {
    const t = token();
    model.script(
      { match: t, toolCalls: [{ name: 'check_warehouse', arguments: { key: t } }] },
      { match: 'warehouse is unreachable', text: 'The warehouse cannot be reached.' },
    );
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-llm-retry', {
      text: `Check ${t}`,
    });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe('The warehouse cannot be reached.');
    expect(brokenToolCalls.filter((key) => key === t)).toHaveLength(3);
  }, 30_000);
});

describe('a tool naming an activity the worker does not register', () => {
  it('stops the worker from starting, naming the tool, the agent and the activity', async () => {
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const creating = Worker.create({
        connection,
        taskQueue: `test-${randomUUID()}`,
        plugins: [
          agentsPlugin({
            agents: fileURLToPath(new URL('../../support/agents/unknown-tool-activity.ts', import.meta.url)),
            activities: TEST_ACTIVITIES,
          }),
        ],
      });
      await expect(creating).rejects.toThrow(
        /the tool lookup_price of agent test-llm-misnamed-tool names the activity "testLookupPrise", which this worker does not register/,
      );
    } finally {
      await connection.close();
    }
  });
});
