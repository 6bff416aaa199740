/**
 * An answer no worker can take: the task waits, its worker stops and none replaces it. The reply
 * is refused within the gateway's usual few seconds, naming the queue no worker polls (JSON-RPC and
 * the CLI alike), logged at warn, not as an internal error, and without listener warnings; once a
 * worker runs again, the same message goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApprovalProject } from '../../support/approval-project.js';
import { runCli } from '../../support/cli-process.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import {
  agentUrl,
  cleanUp,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  type ServeProcess,
} from '../../support/product-processes.js';

const AGENT = 'no-worker-approval';
const temp = useTempDirs();

let config: string;
let taskQueue: string;
let gateway: ServeProcess;
let taskId: string;

beforeAll(async () => {
  ({ a: config } = writeApprovalProject(temp.make('a2a-no-worker-'), AGENT, ['a']));
  taskQueue = uniqueQueue('no-worker');
  const [started, worker] = await Promise.all([
    startGateway({ taskQueue, config }),
    startWorker({ taskQueue, config }),
  ]);
  gateway = started;
  taskId = taskOf(await rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text: 'go' }]) })).id;
  await worker.stop('SIGTERM');
});

afterAll(cleanUp);

describe('an answer no worker can take', { timeout: 120_000 }, () => {
  it('is refused instead of waiting, naming the queue, on JSON-RPC and in the CLI, and goes through once a worker runs', async () => {
    const message = userMessage([{ text: 'approve' }], { taskId });
    const started = performance.now();
    const refused = await rpc(agentUrl(gateway, AGENT), 'SendMessage', { message });
    const rpcMs = performance.now() - started;
    expect(refused.error?.message).toMatch(`no worker is polling queue ${taskQueue}`);
    expect(refused.error?.data).toEqual([expect.objectContaining({ reason: 'NO_WORKER', domain: 'a2a-temporal' })]);
    expect(refused.httpStatus).toBe(503); // retry later, as for a busy Temporal
    expect(refused.retryAfter).not.toBeNull();

    const cli = await runCli(['tasks', 'reply', taskId, 'approve', '--agent', AGENT, '--url', gateway.url]);
    expect(cli.stderr).toContain(`no worker is polling queue ${taskQueue}`);
    expect(cli.code).toBe(2); // ExitCode.Unreachable: try again later
    console.log(`no worker: JSON-RPC refused after ${Math.round(rpcMs)} ms, CLI exited after ${cli.ms} ms`);

    const output = gateway.output();
    expect(gateway.errorLines()).toEqual([]);
    expect(output).not.toContain('MaxListenersExceededWarning');
    expect(output).toMatch(/"level":40[^\n]*no worker is polling queue/);

    await startWorker({ taskQueue, config });
    const answered = await rpc(agentUrl(gateway, AGENT), 'SendMessage', { message });
    expect(answered.result?.task?.status?.state ?? answered.error).toBe('TASK_STATE_COMPLETED');
  });
});
