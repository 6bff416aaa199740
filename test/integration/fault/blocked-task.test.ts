/**
 * A deploy that breaks waiting tasks, made without `check-deploy`: version A of an agent notifies
 * and audits, then asks; two tasks wait. Version B swaps the two calls without `ctx.patched` (its
 * worker cannot continue them), version C makes the swap behind `ctx.patched` (the fix). While B
 * runs, an answer is refused at once with a typed "blocked" error on every transport, GetTask and
 * `tasks show` show the question and why the task is blocked; C's worker, as it starts, resets the
 * tasks B failed (test/integration/fault/unblock.test.ts shows that it did), so they go on at once rather than
 * at Temporal's next retry. The answer sent while blocked, sent again, is applied once.
 */
import { Message } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/temporal/dev-server.js';
import { sseRpc } from '../../support/sse.js';
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

const AGENT = 'blocked-approval';
const temp = useTempDirs();
const BLOCKED =
  /^Task \S+ is blocked by a deploy: the deployed code cannot continue this task: the new code runs activity `audit` before activity `notify`; the task ran activity `notify` first; deploy a fix guarded with `ctx\.patched` \(see docs\/deploying\.md, "Changing agent code while tasks wait"\), then send this message again/;

let configs: Record<'a' | 'b' | 'c', string>;
let taskQueue: string;
let gateway: ServeProcess;
let worker: ServeProcess;
let waiting: string[];

/** One answer per task, sent as often as needed: the same message applies once, however often it is sent. */
const answers = new Map<string, ReturnType<typeof userMessage>>();
const answerOf = (taskId: string) =>
  answers.get(taskId) ?? answers.set(taskId, userMessage([{ text: 'approve' }], { taskId })).get(taskId)!;
const send = (taskId: string) => rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: answerOf(taskId) });

beforeAll(async () => {
  configs = writeApprovalProject(temp.make('a2a-blocked-'), AGENT, ['a', 'b', 'c']);
  taskQueue = uniqueQueue('blocked');
  const grpcPort = await freePort();
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, config: configs.a, grpcPort }),
    startWorker({ taskQueue, config: configs.a }),
  ]);
  const tasks = await Promise.all(
    ['first', 'second'].map((text) =>
      rpc(agentUrl(gateway, AGENT), 'SendMessage', { message: userMessage([{ text }]) }).then(taskOf),
    ),
  );
  waiting = tasks.map((task: { id: string }) => task.id);
  await worker.stop('SIGTERM');
  worker = await startWorker({ taskQueue, config: configs.b }); // the breaking deploy
});

afterAll(cleanUp);

describe('a task the deployed code cannot continue', { timeout: 120_000 }, () => {
  it('refuses an answer (and a subscription) at once with a typed error, on every transport, and says so in GetTask and tasks show', async () => {
    const [first] = waiting;
    const started = performance.now();
    const refused = await send(first!);
    const firstMs = performance.now() - started;
    expect(refused.error?.code).toBe(-32004);
    expect(refused.error?.message).toMatch(BLOCKED);
    expect(refused.error?.data).toEqual([expect.objectContaining({ reason: 'TASK_BLOCKED', domain: 'a2a-temporal' })]);
    expect(firstMs).toBeLessThan(5_000);

    // Temporal refuses later Updates at once: the same words, at once.
    const again = performance.now();
    expect((await send(first!)).error?.message).toMatch(BLOCKED);
    const againMs = performance.now() - again;
    expect(againMs).toBeLessThan(3_000);

    const rest = await fetch(`${gateway.url}/agents/${AGENT}/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: answerOf(first!) }),
    });
    const restBody = (await rest.json()) as { error: { status: string; message: string; details: unknown[] } };
    expect(rest.status).toBe(400);
    expect(restBody.error).toMatchObject({ status: 'FAILED_PRECONDITION', details: [{ reason: 'TASK_BLOCKED' }] });
    expect(restBody.error.message).toMatch(BLOCKED);

    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
    });
    const grpc = await new ClientFactory(options).createFromUrl(`${gateway.url}/agents/${AGENT}/`);
    const grpcError = await grpc.sendMessage({ message: Message.fromJSON(answerOf(first!)) } as never).then(
      () => undefined,
      (error: { status?: number; message: string }) => error,
    );
    expect(grpcError?.status).toBe(9 /* FAILED_PRECONDITION */);
    expect(grpcError?.message).toMatch(/is blocked by a deploy/);

    const read = await rpc(agentUrl(gateway, AGENT), 'GetTask', { id: first });
    expect(read.result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(read.result.metadata.pendingQuestion.prompt).toBe('Approve?');
    expect(read.result.metadata.blocked.reason).toBe(
      'the new code runs activity `audit` before activity `notify`; the task ran activity `notify` first',
    );
    expect(read.result.metadata.summaryOnly).toBeUndefined();

    const subscribed = performance.now();
    const stream = sseRpc(agentUrl(gateway, AGENT), 'SubscribeToTask', { id: first });
    // Refused before the stream opens: a JSON-RPC error, not an event.
    await expect(stream.next()).rejects.toThrow(
      /"code":-32004,"message":"Task \S+ is blocked by a deploy: .*subscribe again/,
    );
    expect(performance.now() - subscribed).toBeLessThan(3_000);

    const shown = await runCli(['tasks', 'show', first!, '--agent', AGENT, '--url', gateway.url]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Question  Approve?');
    expect(shown.stdout).toContain('Blocked by a deploy: the deployed code cannot continue this task');
    expect(shown.stdout).not.toContain('tasks reply');

    const alerts = gateway
      .output()
      .split('\n')
      .filter((line) => line.includes('task blocked'));
    expect(alerts.some((line) => line.includes(first!) && line.includes('"level":40'))).toBe(true);
    expect(gateway.errorLines()).toEqual([]);
    console.log(`blocked answer refused after ${Math.round(firstMs)} ms (first), ${Math.round(againMs)} ms (next)`);
  });

  it('answers go through within 5 s of a fix deployed at once, each applied once, none lost', async () => {
    await worker.stop('SIGTERM');
    worker = await startWorker({ taskQueue, config: configs.c }); // the fix
    const fixed = performance.now();
    const answered = await Promise.all(
      waiting.map(async (taskId) => {
        for (;;) {
          const answer = await send(taskId);
          if (answer.result) return { task: answer.result.task, ms: performance.now() - fixed };
          expect(answer.error?.message).toMatch(BLOCKED);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }),
    );
    console.log(`answerable after the fix: ${answered.map(({ ms }) => `${Math.round(ms)} ms`).join(', ')}`);
    for (const { task, ms } of answered) {
      expect(ms).toBeLessThan(5_000);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.message.parts[0].text).toBe('approve on C');
      // The answer sent while blocked (Temporal may have held it) and sent again went in once.
      expect(task.history.filter((m: { role: string }) => m.role === 'ROLE_USER')).toHaveLength(2);
    }
  });
});
