/**
 * `a2a-temporal/testing`: test a project's agents end to end, against a real Temporal dev server
 * and the real gateway (Node only). Run tests in processes, not worker threads (vitest: `pool: 'forks'`).
 *
 * @example
 * import { afterAll, beforeAll, expect, it } from 'vitest';
 * import { startTestEnvironment, stateOf, type TestEnvironment } from 'a2a-temporal/testing';
 *
 * let env: TestEnvironment;
 * beforeAll(async () => (env = await startTestEnvironment()), 120_000); // reads ./a2a-temporal.config.ts
 * afterAll(() => env?.stop());
 *
 * it('waits for approval', async () => {
 *   const approvals = env.agent('purchase-approval');
 *   const task = await approvals.send('Buy 3 monitors for 450 EUR');
 *   expect(stateOf(task)).toBe('input-required');
 *   expect(stateOf(await approvals.reply(task.id, 'approve'))).toBe('completed');
 * });
 *
 * LLM agents: `startFakeModelServer()` is a scripted OpenAI-compatible model server on loopback;
 * `startTestEnvironment({ model: { baseURL: fake.url, model: 'fake-model' } })` points the agents at it.
 *
 * Deploy safety: `saveTaskHistory` records a waiting task's history, `replayHistoryFiles` replays
 * recordings on the code as it is now, and `replayOpenTasks` a namespace's open tasks (as
 * `a2a-temporal check-deploy` does); `broken` lists the tasks the code would fail.
 *
 * @module a2a-temporal/testing
 */
export {
  startTestEnvironment,
  type AgentTestClient,
  type TestEnvironment,
  type TestEnvironmentOptions,
  type TestMessage,
} from './test-environment.js';
export { startDevServer, type DevServer, type DevServerExit, type DevServerOptions } from '../temporal/dev-server.js';
export {
  startFakeModelServer,
  type ChatCompletionsBody,
  type ChatCompletionsTool,
  type FakeModelServer,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedToolCall,
} from './fake-model-server.js';
export {
  describeDeployCheck,
  replayHistoryFiles,
  replayOpenTasks,
  saveTaskHistory,
  type BrokenTask,
  type DeployCheck,
  type ReplayHistoryFilesOptions,
  type ReplayOptions,
  type ReplayOpenTasksOptions,
} from './deploy-check.js';
export { stateOf, TASK_STATES, type TaskStateName, type WireTaskState } from '../protocol/states.js';
export {
  textOf,
  type WireArtifact,
  type WireMessage,
  type WirePart,
  type WireRole,
  type WireTask,
  type WireTaskStatus,
} from '../protocol/wire.js';
