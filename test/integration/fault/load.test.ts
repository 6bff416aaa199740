/**
 * Many clients at once: hundreds of SendMessage calls to the echo agent in flight together, limited
 * only by the HTTP client, against one gateway process and one worker process. Every call is either
 * accepted (a task) or refused in a way a client may retry; every accepted task completes; Temporal
 * holds exactly the accepted tasks: none half-made by a refused call, none lost.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  agentUrl,
  mapLimit,
  report,
  rpc,
  startGateway,
  startWorker,
  tally,
  uniqueQueue,
  userMessage,
  waitFor,
  waitForTaskState,
  type RpcAnswer,
  type ServeOptions,
  faultSuite,
} from '../../support/product-processes.js';

const suite = faultSuite();

/** Overridable to measure other sizes: `FAULT_CREATES=1000 npx vitest run test/integration/fault/load.test.ts`. */
const CREATES = Number(process.env.FAULT_CREATES ?? 500);

describe(`${CREATES} concurrent creates`, () => {
  it('are each accepted or refused retriably; every accepted task completes; none half-made or lost', async () => {
    const outcome = await burst('creates', CREATES);
    report(`${CREATES} concurrent creates`, outcome.figures);
    outcome.expectSound();
  }, 180_000);

  it('over a per-caller new-task limit, the excess is refused retriably and starts nothing', async () => {
    const key = 'fault-suite-api-key';
    const sha256 = createHash('sha256').update(key).digest('hex');
    const env = {
      A2A_AUTH: 'api-key',
      A2A_API_KEYS: JSON.stringify([{ sha256, principal: 'load-tester' }]),
      A2A_NEW_TASKS_PER_MINUTE: '60',
    };
    const outcome = await burst('limited', 200, { env }, { 'x-api-key': key });
    report('200 concurrent creates over a limit of 60 new tasks a minute', outcome.figures);
    outcome.expectSound();
    expect(outcome.refused).toBeGreaterThan(0);
    for (const answer of outcome.refusals)
      expect(answer).toMatchObject({ httpStatus: 429, retryAfter: expect.any(String) });
  }, 180_000);
});

/** A refusal a client may retry: the HTTP status says so, or a Retry-After header, or the error text. */
function retriable(answer: RpcAnswer): boolean {
  if (answer.result) return false;
  return (
    answer.httpStatus === 429 ||
    answer.httpStatus === 503 ||
    answer.retryAfter !== null ||
    /retry/i.test(answer.error?.message ?? '')
  );
}

/**
 * `count` creates at once through a fresh gateway (with `gateway` settings) and worker; then every
 * accepted task is awaited to completion over A2A, and Temporal's list of the queue's workflows is
 * compared with the accepted tasks.
 */
async function burst(
  scenario: string,
  count: number,
  gateway: Pick<ServeOptions, 'env'> = {},
  headers: Record<string, string> = {},
) {
  const taskQueue = uniqueQueue(scenario);
  const [server] = await Promise.all([startGateway({ taskQueue, ...gateway }), startWorker({ taskQueue })]);
  const url = agentUrl(server, 'echo');

  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const params = { message: userMessage([{ text: `create ${i}` }]), configuration: { returnImmediately: true } };
      return rpc(url, 'SendMessage', params, headers).catch((error: Error): RpcAnswer => ({
        httpStatus: 0,
        retryAfter: null,
        error: { code: 0, message: `${error.message}: ${String(error.cause)}` },
      }));
    }),
  );
  const sendMs = Date.now() - started;
  const accepted = new Map<string, string>();
  answers.forEach((answer, i) => answer.result?.task && accepted.set(answer.result.task.id, `create ${i}`));
  const refusals = answers.filter(retriable);
  const failed = answers.filter((answer) => !answer.result?.task && !retriable(answer));

  const finals = await mapLimit([...accepted.keys()], 16, (id) =>
    waitForTaskState(url, id, 'TASK_STATE_COMPLETED', { headers }),
  );
  const settledMs = Date.now() - started;
  const echoedWrong = finals.filter((task) => task.status.message.parts[0].text !== accepted.get(task.id));

  // Visibility is eventually consistent: wait for it to catch up before comparing.
  const query = `TaskQueue = "${taskQueue}"`;
  let listed: string[] = [];
  let running = -1;
  await waitFor(
    'visibility to list every workflow of the queue as closed',
    async () => {
      listed = [];
      for await (const workflow of suite.temporal.workflow.list({ query })) listed.push(workflow.workflowId);
      running = (await suite.temporal.workflow.count(`${query} AND ExecutionStatus = "Running"`)).count;
      return listed.length >= accepted.size && running === 0;
    },
    { timeoutMs: 30_000, intervalMs: 1000, describe: () => `${listed.length} listed, ${running} running` },
  );
  const acceptedWorkflows = new Set([...accepted.keys()].map((id) => `a2a-task-${id}`));
  const halfMade = listed.filter((id) => !acceptedWorkflows.has(id));
  const lost = [...acceptedWorkflows].filter((id) => !listed.includes(id));

  return {
    refused: refusals.length,
    refusals,
    figures: {
      tried: `${count} SendMessage (echo, returnImmediately) in flight at once through one gateway process, one worker process`,
      survived: `${accepted.size} accepted, all ${finals.length} completed with their own echo; ${refusals.length} refused retriably`,
      lost: `${lost.length} accepted tasks missing from Temporal; ${halfMade.length} workflows no client was told about`,
      'other failures': failed.length ? tally(failed.map(describeAnswer)) : 0,
      refusals: refusals.length ? tally(refusals.map(describeAnswer)) : 'none',
      'all answered in': `${sendMs} ms (${Math.round((count / sendMs) * 1000)}/s)`,
      'all completed in': `${settledMs} ms`,
    },
    expectSound() {
      expect(failed.map((answer) => `${describeAnswer(answer)}${loggedAs(answer, server.errorLines())}`)).toEqual([]);
      expect(echoedWrong).toEqual([]);
      expect(halfMade).toEqual([]);
      expect(lost).toEqual([]);
      expect(running).toBe(0);
    },
  };
}

/** The gateway's log line for an internal error's reference, so that a failure shows its cause. */
function loggedAs(answer: RpcAnswer, gatewayErrors: string[]): string {
  const ref = /\(ref (\w+)\)/.exec(answer.error?.message ?? '')?.[1];
  if (!ref) return '';
  const line = gatewayErrors.find((entry) => entry.includes(`"ref":"${ref}"`));
  return `\n  gateway log: ${line ?? `(no error line with ref ${ref})`}`;
}

function describeAnswer(answer: RpcAnswer): string {
  const retry = answer.retryAfter ? ` retry-after ${answer.retryAfter}` : '';
  return `HTTP ${answer.httpStatus}${retry} ${answer.error?.code}: ${answer.error?.message}`;
}
