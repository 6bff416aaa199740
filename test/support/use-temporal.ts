/** A worker and a client shared by the tests of one file. */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import type { ModelSettings } from '../../src/llm/model-settings.js';
import { startTestWorker, testClient, type TestWorker } from './worker.js';

/** `model()` is read when the worker starts (e.g. a fake model server's URL). */
export function useTemporal(model?: () => ModelSettings): { worker: TestWorker; client: Client } {
  const shared = {} as { worker: TestWorker; client: Client };
  beforeAll(async () => {
    shared.worker = await startTestWorker(undefined, model ? { model: model() } : {});
    shared.client = await testClient();
  });
  afterAll(async () => {
    await shared.worker?.shutdown();
    await shared.client?.connection.close();
  });
  return shared;
}
