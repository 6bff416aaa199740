/** A worker and a client shared by the tests of one file. */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { startTestWorker, testClient, type TestWorker } from '../support/worker.js';

export function useTemporal(): { worker: TestWorker; client: Client } {
  const shared = {} as { worker: TestWorker; client: Client };
  beforeAll(async () => {
    shared.worker = await startTestWorker();
    shared.client = await testClient();
  });
  afterAll(async () => {
    await shared.worker?.shutdown();
    await shared.client?.connection.close();
  });
  return shared;
}
