/**
 * The model's token usage on the worker's Prometheus endpoint: the product's own `worker` command
 * (a child process: a process installs one Temporal runtime, with or without metrics) runs the
 * example purchasing assistant against the fake model server; its counters, by agent and model,
 * equal what the model reported.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/temporal/dev-server.js';
import { cleanUp, startWorker, uniqueQueue } from '../../support/product-processes.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { finalTask, startTask, stateOf } from '../../support/tasks.js';
import { testClient } from '../../support/worker.js';

const EXAMPLES_CONFIG = fileURLToPath(new URL('../../../examples/a2a-temporal.config.ts', import.meta.url));
let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(async () => {
  await cleanUp();
  await model?.close();
});

describe("the worker's model metrics", () => {
  it('count the tokens and calls of model calls by agent and model, as the model reported them', async () => {
    const taskQueue = uniqueQueue('model-metrics');
    const port = await freePort();
    await startWorker({
      taskQueue,
      config: EXAMPLES_CONFIG,
      env: {
        A2A_WORKER_METRICS_PORT: String(port),
        HOST: '127.0.0.1',
        A2A_MODEL_BASE_URL: model.url,
        A2A_MODEL: 'fake-model',
      },
    });
    model.script(
      { toolCalls: [{ name: 'lookup_product', arguments: { query: 'keyboard' } }] },
      { text: 'The ergonomic keyboard costs 89 EUR.' },
    );
    const client = await testClient();
    try {
      const { handle } = await startTask(client, taskQueue, 'purchasing-assistant', {
        text: 'What does a keyboard cost?',
      });
      expect(stateOf((await finalTask(handle)).task)).toBe('completed');
    } finally {
      await client.connection.close();
    }
    const reported = model.requests.map((request) => request.usage!);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    console.log(
      metrics
        .split('\n')
        .filter((line) => line.startsWith('a2a_model_'))
        .join('\n'),
    );
    const value = (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    const labels = (type?: string) =>
      `agent="purchasing-assistant",model="fake-model"${type ? `,[^}]*type="${type}"` : ''}`;
    expect(value('a2a_model_calls_total', labels())).toBe(2);
    expect(value('a2a_model_tokens_total', labels('input'))).toBe(reported.reduce((n, u) => n + u.prompt_tokens, 0));
    expect(value('a2a_model_tokens_total', labels('output'))).toBe(
      reported.reduce((n, u) => n + u.completion_tokens, 0),
    );
  });
});
