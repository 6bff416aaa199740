/**
 * Delegation between two real stacks on one Temporal server: agent A (purchasing) delegates to
 * agent B (finance approval) through B's gateway, each with its own gateway, worker and task queue.
 * B's question travels up to A's client, the answer goes back down, and B's artifact comes back up;
 * the same across a restart of everything while B's question waits (one remote task only), a cancel
 * of A while B works, B down for 30 s, B rejecting, and B reached over gRPC. Then the edges: a
 * remote result over Temporal's payload limit (a hostile agent, test/support/hostile-agent.ts), calls no retry
 * can mend, B named in A's config instead of by URL, and B's signed card checked against its JWKS
 * (a card unsigned, or altered by a hostile agent, is refused).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { freePort } from '../../../src/temporal/dev-server.js';
import {
  agentUrl,
  cleanUp,
  historyOf,
  rpc,
  sleep,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  waitForTaskState,
  type ServeProcess,
} from '../../support/product-processes.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { startHostileAgent, type HostileAgent } from '../../support/hostile-agent.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { sseRpc, stateOf } from '../../support/sse.js';
import { testClient } from '../../support/worker.js';
import type { Client } from '@temporalio/client';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The Python a2a-sdk 0.3 with its server extras, installed by .ci/run (see test/integration/interop). */
const PYTHON_V03 = fileURLToPath(new URL('../../../.tools/a2a-sdk-0.3/bin/python', import.meta.url));
const temp = useTempDirs();

/** B's agents: finance approves, and sends big purchases on to the CFO (a chain of three agents). */
function financeAgents(cfoUrl: string): string {
  return `import { defineAgent } from '${ROOT}src/index.ts';

const skills = [{ id: 'approve', name: 'Approve', description: 'Approves a purchase', tags: [] }];

export default [
  defineAgent({
    name: 'finance-approval',
    description: 'Approves purchases.',
    skills,
    async run(ctx) {
      const request = ctx.message.text;
      if (request.startsWith('reject')) ctx.reject('over budget');
      if (request.startsWith('slow')) await ctx.sleep('1 hour', 'working on it');
      if (request.startsWith('bulky')) {
        // Each artifact within ctx.artifact's limit, together over what a task's result holds.
        for (const part of [1, 2, 3, 4]) ctx.artifact({ name: \`part \${part}\`, text: 'y'.repeat(450_000) });
        return 'finance sends it all';
      }
      if (request.startsWith('streamed')) {
        // Two chunks of one artifact, then a question: the remote task is far from completed.
        ctx.artifact({ artifactId: 'draft', name: 'draft', text: 'first half, ' });
        ctx.artifact({ artifactId: 'draft', text: 'second half', append: true, lastChunk: true });
        const reply = await ctx.ask(\`Approve the streamed \${request}?\`);
        return \`finance streamed and says \${reply.text}\`;
      }
      if (request.startsWith('pushed')) {
        await ctx.sleep('3 seconds', 'taking its time');
        return 'finance took its time';
      }
      if (request.startsWith('big')) {
        const cfo = await ctx.callAgent('${cfoUrl}', request);
        return \`finance says \${cfo.text}\`;
      }
      const reply = await ctx.ask({ question: \`Approve \${request}?\`, details: { request } });
      ctx.artifact({ name: 'decision', data: { request, approved: reply.text === 'yes', by: reply.responder ?? null } });
      return \`finance says \${reply.text}\`;
    },
  }),
  defineAgent({
    name: 'cfo-approval',
    description: 'Approves big purchases.',
    skills,
    async run(ctx) {
      const reply = await ctx.ask(\`CFO: approve \${ctx.message.text}?\`);
      return \`the CFO says \${reply.text}\`;
    },
  }),
];
`;
}

function purchasingAgents(
  financeUrl: string,
  pythonUrl: string,
  keyedFinanceUrl: string,
  financeJwksUrl: string,
  hostileStreamingUrl: string,
): string {
  const agent = (name: string, url: string, options: string) => `
  defineAgent({
    name: '${name}',
    description: 'Buys things, once finance approves.',
    skills: [{ id: 'buy', name: 'Buy', description: 'Buys a thing', tags: [] }],
    async run(ctx) {
      try {
        const approval = await ctx.callAgent('${url}', ctx.message.text, ${options});
        for (const artifact of approval.artifacts) ctx.artifact({ name: artifact.name, parts: artifact.parts });
        return \`purchased after "\${approval.text}" (\${approval.agent} task \${approval.taskId})\`;
      } catch (error) {
        if (error instanceof RemoteAgentFailed) return \`caught \${error.state}: \${error.remoteMessage}\`;
        throw error;
      }
    },
  }),`;
  return `import { defineAgent, defineLlmAgent, defineRemoteAgentTool, RemoteAgentFailed } from '${ROOT}src/index.ts';

export default [
  defineLlmAgent({
    name: 'purchasing-assistant',
    description: 'Buys things with a model deciding, once finance approves.',
    skills: [{ id: 'buy', name: 'Buy', description: 'Buys a thing', tags: [] }],
    instructions: 'Ask finance before you buy anything.',
    tools: { finance: defineRemoteAgentTool({ url: '${financeUrl}', description: 'Asks finance to approve a purchase' }) },
  }),
  defineAgent({
    name: 'purchasing-anywhere',
    description: 'Buys from the agent the message names first (a URL, or a name in the config).',
    skills: [{ id: 'buy', name: 'Buy', description: 'Buys a thing', tags: [] }],
    async run(ctx) {
      const [target, ...request] = ctx.message.text.split(' ');
      try {
        const result = await ctx.callAgent(target, request.join(' '));
        const names = result.artifacts.map((artifact) => artifact.name).join(', ');
        return \`got [\${names}]; omitted: \${result.artifactsOmitted ?? 'nothing'}\`;
      } catch (error) {
        if (error instanceof RemoteAgentFailed) return \`caught \${error.state}: \${error.remoteMessage}\`;
        throw error;
      }
    },
  }),${agent('purchasing', financeUrl, '{}')}${agent('purchasing-by-name', 'finance', '{}')}${agent('purchasing-grpc', financeUrl, "{ transport: 'GRPC' }")}${agent('purchasing-hasty', financeUrl, "{ deadline: '3 seconds' }")}${agent('purchasing-keyed', keyedFinanceUrl, "{ credentials: { apiKeyEnv: 'FINANCE_API_KEY' } }")}${agent('purchasing-python', pythonUrl, '{}')}${agent('purchasing-verifying', financeUrl, `{ cardKeys: { jwksUrl: '${financeJwksUrl}' } }`)}${agent('purchasing-streaming', financeUrl, '{ streaming: true }')}${agent('purchasing-pushed', financeUrl, "{ pushNotification: true, pushPollInterval: '1 hour' }")}${agent('purchasing-resubscribing', hostileStreamingUrl, '{ resubscribe: true }')}${agent('purchasing-from-a-dropping-stream', hostileStreamingUrl, '{ streaming: true }')}
];
`;
}

let temporal: Client;
let model: FakeModelServer;
let dir: string;
const queues = { a: uniqueQueue('delegation-a'), b: uniqueQueue('delegation-b') };
const ports = { a: 0, b: 0, bGrpc: 0, python: 0, bKeyed: 0 };
/** B's pushes may go to A's gateway on this machine (pushes inward are refused unless allowed). */
const PUSH_ALLOWED = { A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1' };
/** B's second gateway requires this API key, which A's worker has in FINANCE_API_KEY. */
const FINANCE_API_KEY = 'purchasing-bot-key';
let financeGateway: ServeProcess;
let financeWorker: ServeProcess;
let purchasingGateway: ServeProcess;
let purchasingWorker: ServeProcess;

/** B signs its cards with this key; A checks them against B's JWKS where the call or config says so. */
let financeCardKey: string;
/** B's gateway, on the same ports (and card key) each time it starts. */
const startFinanceGateway = () =>
  startGateway({
    taskQueue: queues.b,
    config: join(dir, 'b.config.ts'),
    port: ports.b,
    grpcPort: ports.bGrpc,
    env: { A2A_CARD_SIGNING_KEY: financeCardKey, ...PUSH_ALLOWED },
  });
const startFinance = async () => {
  [financeGateway, financeWorker] = await Promise.all([
    startFinanceGateway(),
    startWorker({ taskQueue: queues.b, config: join(dir, 'b.config.ts'), env: PUSH_ALLOWED }),
  ]);
};
const startPurchasing = async () => {
  [purchasingGateway, purchasingWorker] = await Promise.all([
    startGateway({ taskQueue: queues.a, config: join(dir, 'a.config.ts'), port: ports.a }),
    startWorker({
      taskQueue: queues.a,
      config: join(dir, 'a.config.ts'),
      env: {
        A2A_MODEL_BASE_URL: model.url,
        A2A_MODEL: 'fake-model',
        FINANCE_API_KEY,
        FINANCE_AGENT_URL: financeUrl(),
        // Where B pushes: A's gateway.
        A2A_PUBLIC_URL: `http://127.0.0.1:${ports.a}`,
      },
    }),
  ]);
};

const purchasing = (agent = 'purchasing') => agentUrl(purchasingGateway, agent);
const financeUrl = () => `http://127.0.0.1:${ports.b}/agents/finance-approval`;
const financeJwksUrl = () => `http://127.0.0.1:${ports.b}/.well-known/jwks.json`;
let hostile: HostileAgent;
const send = async (text: string, options: { taskId?: string; agent?: string; returnImmediately?: boolean } = {}) =>
  taskOf(
    await rpc(purchasing(options.agent), 'SendMessage', {
      message: userMessage([{ text }], options.taskId ? { taskId: options.taskId } : {}),
      ...(options.returnImmediately && { configuration: { returnImmediately: true } }),
    }),
  );
const financeTasks = async () => (await temporal.workflow.count(`TaskQueue = '${queues.b}'`)).count;
const delegationOf = (task: { metadata?: { delegations?: { taskId: string; state: string }[] } }) =>
  task.metadata?.delegations?.[0];

beforeAll(async () => {
  temporal = await testClient();
  model = await startFakeModelServer();
  dir = temp.make('a2a-delegation-');
  [ports.a, ports.b, ports.bGrpc] = [await freePort(), await freePort(), await freePort()];
  hostile = await startHostileAgent();
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'finance.ts'), financeAgents(`http://127.0.0.1:${ports.b}/agents/cfo-approval`));
  writeFileSync(join(dir, 'b.config.ts'), "export default { agents: './finance.ts' };\n");
  [ports.python, ports.bKeyed] = [await freePort(), await freePort()];
  const keyedUrl = `http://127.0.0.1:${ports.bKeyed}/agents/finance-approval`;
  writeFileSync(
    join(dir, 'purchasing.ts'),
    purchasingAgents(
      financeUrl(),
      `http://127.0.0.1:${ports.python}/`,
      keyedUrl,
      financeJwksUrl(),
      `${hostile.url}/streaming`,
    ),
  );
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  financeCardKey = JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'finance-card', alg: 'ES256' });
  // B named for A's agents: each deployment sets the URL (here the worker's FINANCE_AGENT_URL). The
  // hostile agent named twice as if it were B, its card to be signed by B's keys.
  const asFinance = (url: string) => ({ url, cardKeys: { jwksUrl: financeJwksUrl() } });
  const remoteAgents = {
    finance: { urlEnv: 'FINANCE_AGENT_URL' },
    unsigned: asFinance(hostile.url),
    forged: asFinance(`${hostile.url}/forged`),
  };
  writeFileSync(
    join(dir, 'a.config.ts'),
    `export default { agents: './purchasing.ts', remoteAgents: ${JSON.stringify(remoteAgents)} };\n`,
  );
  await Promise.all([startFinance(), startPurchasing()]);
});

afterAll(async () => {
  await cleanUp();
  await hostile?.close();
  await model?.close();
  await temporal?.connection.close();
});

/** A's task asks B's question (marked as B's); answered over A, it completes with B's decision. */
async function expectApprovalRoundTrip(
  task: { id: string; status: { state: string; message: any }; metadata: any },
  {
    agent,
    remote = 'finance-approval',
    says = 'finance says',
  }: { agent?: string; remote?: string; says?: string } = {},
) {
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const pending = task.metadata.pendingQuestion;
  expect(pending.from).toMatchObject({ agent: remote });
  expect(pending.prompt).toMatch(/approves? .*\?$/i);
  const answered = await send('yes', { taskId: task.id, ...(agent && { agent }) });
  expect(answered.status.state, JSON.stringify(answered.status.message)).toBe('TASK_STATE_COMPLETED');
  expect(answered.status.message.parts[0].text).toContain(`purchased after "${says} yes" (${remote} task`);
  expect(answered.artifacts[0]).toMatchObject({ name: 'decision', parts: [{ data: { approved: true } }] });
  expect(delegationOf(answered)).toMatchObject({ agent: remote, state: 'completed' });
  return answered;
}

describe('ctx.callAgent between two stacks', { timeout: 240_000 }, () => {
  it("carries B's question up to A's client and the answer back down", async () => {
    const before = await financeTasks();
    const task = await send('a laptop');
    expect(task.status.message.parts[0].text).toBe('Approve a laptop?');
    const answered = await expectApprovalRoundTrip(task);
    const remote = await waitForTaskState(
      agentUrl(financeGateway, 'finance-approval'),
      delegationOf(answered)!.taskId,
      'TASK_STATE_COMPLETED',
    );
    expect(remote.status.message.parts[0].text).toBe('finance says yes');
    expect((await financeTasks()) - before).toBe(1);
  });

  it("survives both stacks restarting while B's question waits, with one remote task only", async () => {
    const before = await financeTasks();
    const task = await send('a desk');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await Promise.all([financeGateway, financeWorker, purchasingGateway, purchasingWorker].map((p) => p.stop()));
    await Promise.all([startFinance(), startPurchasing()]);
    await expectApprovalRoundTrip(task);
    expect((await financeTasks()) - before).toBe(1);
  });

  it('cancels the remote task when A is canceled while B works, then ends canceled', async () => {
    const task = await send('slow purchase', { returnImmediately: true });
    let remoteId: string | undefined;
    await waitFor('A to delegate', async () => {
      remoteId = delegationOf((await rpc(purchasing(), 'GetTask', { id: task.id })).result)?.taskId;
      return remoteId !== undefined;
    });
    await waitForTaskState(agentUrl(financeGateway, 'finance-approval'), remoteId!, 'TASK_STATE_WORKING');
    const canceled = await rpc(purchasing(), 'CancelTask', { id: task.id });
    expect(canceled.error).toBeUndefined();
    const remote = await waitForTaskState(
      agentUrl(financeGateway, 'finance-approval'),
      remoteId!,
      'TASK_STATE_CANCELED',
    );
    expect(remote.status.state).toBe('TASK_STATE_CANCELED');
    const ended = await waitForTaskState(purchasing(), task.id, 'TASK_STATE_CANCELED');
    expect(delegationOf(ended)).toMatchObject({ taskId: remoteId, state: 'canceled' });
  });

  it("gives up at the call's deadline: cancels the remote task and throws RemoteAgentFailed", async () => {
    const task = await send('slow and steady', { agent: 'purchasing-hasty' });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('caught timed-out: no outcome within 3 seconds');
    const remote = delegationOf(task)!;
    expect(remote.state).toBe('canceled');
    await waitForTaskState(agentUrl(financeGateway, 'finance-approval'), remote.taskId, 'TASK_STATE_CANCELED');
  });

  it("retries while B's gateway is down for 30 s, then carries on", async () => {
    await financeGateway.stop();
    const task = await send('a chair', { returnImmediately: true });
    await sleep(30_000);
    const waiting = (await rpc(purchasing(), 'GetTask', { id: task.id })).result;
    expect(waiting.status.state).toBe('TASK_STATE_WORKING');
    expect(JSON.stringify(waiting.status.message ?? {})).toMatch(
      /a2aTemporal\.remoteAgent\.send failed \(attempt \d+\)/,
    );
    financeGateway = await startFinanceGateway();
    const asked = await waitForTaskState(purchasing(), task.id, 'TASK_STATE_INPUT_REQUIRED', { timeoutMs: 90_000 });
    await expectApprovalRoundTrip(asked);
  });

  it("lets A's agent catch B's rejection as RemoteAgentFailed", async () => {
    const task = await send('reject this purchase');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.parts[0].text).toBe('caught rejected: over budget');
  });

  it("authenticates to B with a key from the worker's environment, never in the task's history", async () => {
    const sha256 = createHash('sha256').update(FINANCE_API_KEY).digest('hex');
    const keyed = await startGateway({
      taskQueue: queues.b,
      config: join(dir, 'b.config.ts'),
      port: ports.bKeyed,
      env: { A2A_AUTH: 'api-key', A2A_API_KEYS: JSON.stringify([{ sha256, principal: 'purchasing-bot' }]) },
    });
    try {
      const task = await send('a keyboard', { agent: 'purchasing-keyed' });
      await expectApprovalRoundTrip(task, { agent: 'purchasing-keyed' });
      const remoteId = delegationOf(
        (await rpc(purchasing('purchasing-keyed'), 'GetTask', { id: task.id })).result,
      )!.taskId;
      const remote = await rpc(
        agentUrl(keyed, 'finance-approval'),
        'GetTask',
        { id: remoteId },
        { 'x-api-key': FINANCE_API_KEY },
      );
      expect(remote.result.metadata.owner).toBe('purchasing-bot');
      const { events } = await temporal.workflow.getHandle(workflowIdForTask(task.id)).fetchHistory();
      const inputs = (events ?? [])
        .flatMap((event) => event.activityTaskScheduledEventAttributes?.input?.payloads ?? [])
        .map((payload) => Buffer.from(payload.data ?? []).toString());
      expect(inputs.some((input) => input.includes('"apiKeyEnv":"FINANCE_API_KEY"'))).toBe(true);
      expect(inputs.join('\n')).not.toContain(FINANCE_API_KEY);
    } finally {
      await keyed.stop();
    }
  });

  it('reaches B over gRPC when the call prefers it', async () => {
    const task = await send('a monitor', { agent: 'purchasing-grpc' });
    await expectApprovalRoundTrip(task, { agent: 'purchasing-grpc' });
  });

  it('carries a question up a chain of three agents, and the answer down', async () => {
    const task = await send('big purchase');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.status.message.parts[0].text).toBe('CFO: approve big purchase?');
    // B asked A, but the question is C's: it says so, and through whom.
    expect(task.metadata.pendingQuestion.from).toMatchObject({
      agent: 'finance-approval',
      url: financeUrl(),
      via: [{ agent: 'cfo-approval', url: `http://127.0.0.1:${ports.b}/agents/cfo-approval` }],
    });
    const financeTask = task.metadata.pendingQuestion.from.taskId;
    const financeView = await rpc(agentUrl(financeGateway, 'finance-approval'), 'GetTask', { id: financeTask });
    expect(task.metadata.pendingQuestion.from.via[0].taskId).toBe(
      financeView.result.metadata.pendingQuestion.from.taskId,
    );
    const answered = await send('yes', { taskId: task.id });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.status.message.parts[0].text).toContain('purchased after "finance says the CFO says yes"');
  });

  it("lets an LLM agent's model delegate with a remote-agent tool, B's question answered by a human", async () => {
    const token = `printer-${Date.now()}`;
    model.script(
      { match: token, toolCalls: [{ name: 'finance', arguments: { message: 'a printer' } }] },
      { match: token, text: 'Bought the printer: finance approved.' },
    );
    const task = await send(`buy a printer (${token})`, { agent: 'purchasing-assistant' });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.metadata.pendingQuestion).toMatchObject({
      prompt: 'Approve a printer?',
      from: { agent: 'finance-approval' },
    });
    const answered = await send('yes', { taskId: task.id, agent: 'purchasing-assistant' });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.status.message.parts[0].text).toBe('Bought the printer: finance approved.');
    const toolResult = JSON.stringify(model.requestsMatching(token).at(-1)!.body.messages.at(-1));
    expect(toolResult).toContain('finance says yes');
    expect(toolResult).toContain('approved');
  });

  it.skipIf(!existsSync(PYTHON_V03))('reaches a v0.3 agent of another ecosystem (Python a2a-sdk 0.3)', async () => {
    const python = spawn(PYTHON_V03, [
      fileURLToPath(new URL('../../support/interop/v03_agent.py', import.meta.url)),
      String(ports.python),
    ]);
    try {
      await waitFor('the Python agent to serve its card', async () =>
        fetch(`http://127.0.0.1:${ports.python}/.well-known/agent-card.json`)
          .then((r) => r.ok)
          .catch(() => false),
      );
      const task = await send('a lamp', { agent: 'purchasing-python' });
      await expectApprovalRoundTrip(task, {
        agent: 'purchasing-python',
        remote: 'python-approval',
        says: 'python says',
      });
    } finally {
      python.kill();
    }
  });

  it('calls B by its name in the project config, at the URL the worker was given', async () => {
    const task = await send('a sofa', { agent: 'purchasing-by-name' });
    await expectApprovalRoundTrip(task, { agent: 'purchasing-by-name' });
    const done = (await rpc(purchasing('purchasing-by-name'), 'GetTask', { id: task.id })).result;
    expect(delegationOf(done)).toMatchObject({ agent: 'finance-approval', url: financeUrl() });
  });

  it("checks B's signed card against B's JWKS when the call names it", async () => {
    const task = await send('a desk', { agent: 'purchasing-verifying' });
    await expectApprovalRoundTrip(task, { agent: 'purchasing-verifying' });
  });
});

describe('ctx.callAgent at its edges', { timeout: 240_000 }, () => {
  const anywhere = async (text: string) => {
    const started = Date.now();
    const task = await send(text, { agent: 'purchasing-anywhere', returnImmediately: true });
    const ended = await waitForTaskState(purchasing('purchasing-anywhere'), task.id, 'TASK_STATE_COMPLETED', {
      timeoutMs: 60_000,
    });
    return { task: ended, text: ended.status.message.parts[0].text as string, seconds: (Date.now() - started) / 1000 };
  };

  it("carries what fits of a result over Temporal's payload limit, says what it left out, and stops", async () => {
    const { task, text } = await anywhere(`${hostile.url} a report`);
    expect(text).toBe(
      "got [summary]; omitted: Not all artifacts of the hostile-agent agent's task came back: " +
        'left out report (5.0 MB): over the 1.0 MB carried from a remote task',
    );
    expect(delegationOf(task)).toMatchObject({
      state: 'completed',
      artifactsOmitted: expect.stringContaining('report'),
    });
    const notes = (task.metadata.timeline as { message?: string }[]).map((entry) => entry.message);
    expect(
      notes.filter((note) => note?.startsWith("Not all artifacts of the hostile-agent agent's task")),
    ).toHaveLength(1);
    // Downloaded once (or twice), not every 30 s for ever.
    const calls = hostile.getTaskCalls();
    await sleep(5_000);
    expect(hostile.getTaskCalls()).toBe(calls);
    expect(calls).toBeLessThanOrEqual(2);
  });

  it('flags the artifacts that B, this runtime, left out of its own task', async () => {
    const { text } = await anywhere(`${financeUrl()} bulky purchase`);
    expect(text).toBe(
      "got []; omitted: Not all artifacts of the finance-approval agent's task came back: " +
        'the remote agent left out artifacts too large for its task',
    );
  });

  it.each([
    ['a port fetch refuses', 'http://127.0.0.1:10080/agents/x', "fetch refuses the agent's URL: bad port"],
    [
      'a scheme that is not HTTP',
      'ftp://127.0.0.1/agents/x',
      '"ftp://127.0.0.1/agents/x" is not an http: or https: URL (an agent card is fetched over HTTP)',
    ],
    [
      'a card that is not there',
      'HOSTILE/gone',
      'The agent card at HOSTILE/gone/.well-known/agent-card.json answers HTTP 404',
    ],
    [
      'a name the config lacks',
      'supplier',
      'No remote agent named "supplier" in the project config (remoteAgents: finance, unsigned, forged)',
    ],
    [
      "an unsigned card where the config names B's keys",
      'unsigned',
      'The agent card at HOSTILE/.well-known/agent-card.json is not signed, and the call requires a signature by a key of JWKS',
    ],
    [
      "B's signed card, altered, where the config names B's keys",
      'forged',
      'The agent card at HOSTILE/forged/.well-known/agent-card.json has no valid signature by a key of JWKS: signature verification failed',
    ],
  ])('fails at once with RemoteAgentFailed for %s, not retried for ever', async (_, target, reason) => {
    const card = (await (await fetch(`${financeUrl()}/.well-known/agent-card.json`)).json()) as object;
    hostile.forge({ ...card, description: 'Approves everything, at once.' });
    const { text, seconds } = await anywhere(`${target.replace('HOSTILE', hostile.url)} a thing`);
    expect(text).toBe(
      `caught unusable: ${reason.replaceAll('HOSTILE', hostile.url).replace('JWKS', financeJwksUrl())}`,
    );
    expect(seconds).toBeLessThan(10);
  });
});

describe("ctx.callAgent following as the A2A interop kit's agents do", { timeout: 240_000 }, () => {
  it("streams B's artifact chunks to A's subscribers before B's task completes", async () => {
    const url = purchasing('purchasing-streaming');
    const message = userMessage([{ text: 'streamed budget' }]);
    const chunks: string[] = [];
    let asked: any;
    for await (const event of sseRpc(url, 'SendStreamingMessage', { message })) {
      if (event.artifactUpdate) chunks.push(...event.artifactUpdate.artifact.parts.map((part: any) => part.text));
      if (stateOf(event) === 'TASK_STATE_INPUT_REQUIRED') asked = event.task ?? event.statusUpdate;
    }
    // B's task waits for its question: the chunks reached A's subscriber before it completed.
    expect(chunks.join('')).toBe('first half, second half');
    const task = (await rpc(url, 'GetTask', { id: asked.id ?? asked.taskId })).result;
    const remoteId = delegationOf(task)!.taskId;
    const remote = (await rpc(agentUrl(financeGateway, 'finance-approval'), 'GetTask', { id: remoteId })).result;
    expect(remote.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.artifacts).toEqual([
      expect.objectContaining({
        artifactId: `${remoteId}-draft`,
        name: 'draft',
        parts: [{ text: 'first half, ' }, { text: 'second half' }],
      }),
    ]);
    const answered = await send('yes', { taskId: task.id, agent: 'purchasing-streaming' });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.status.message.parts[0].text).toContain('purchased after "finance streamed and says yes"');
  });

  it("is woken by B's push to A's gateway, not by polling", async () => {
    // The poll interval is an hour: only B's push can tell A that B's task completed.
    const task = await send('pushed order', { agent: 'purchasing-pushed', returnImmediately: true });
    const done = await waitForTaskState(purchasing('purchasing-pushed'), task.id, 'TASK_STATE_COMPLETED', {
      timeoutMs: 60_000,
    });
    expect(done.status.message.parts[0].text).toContain('purchased after "finance took its time"');
    // B's task was given A's route, and A read B's task when woken instead of following it by polling.
    const configs = await rpc(agentUrl(financeGateway, 'finance-approval'), 'ListTaskPushNotificationConfigs', {
      taskId: delegationOf(done)!.taskId,
    });
    expect(configs.result.configs).toEqual([
      expect.objectContaining({ url: `http://127.0.0.1:${ports.a}/a2a-temporal/remote-push/${task.id}` }),
    ]);
    const activities = (await historyOf(temporal, task.id)).flatMap(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    expect(activities).toContain('a2aTemporal.remoteAgent.read');
    expect(activities).not.toContain('a2aTemporal.remoteAgent.follow');
  });

  it.each([
    ['resumes a stream that drops mid-way with SubscribeToTask', 'purchasing-from-a-dropping-stream'],
    ["leaves the send's stream and resubscribes when asked to", 'purchasing-resubscribing'],
  ])('%s, without a second remote task', async (_, agent) => {
    const sends = hostile.streamingCalls('SendStreamingMessage');
    const subscriptions = hostile.streamingCalls('SubscribeToTask');
    const task = await send('a streamed report', { agent, returnImmediately: true });
    const done = await waitForTaskState(purchasing(agent), task.id, 'TASK_STATE_COMPLETED', { timeoutMs: 60_000 });
    expect(done.status.message.parts[0].text).toContain('purchased after');
    expect(done.artifacts[0]).toMatchObject({
      artifactId: 'hostile-stream-task-report',
      parts: [{ text: 'chunk one, ' }, { text: 'chunk two' }],
    });
    expect(hostile.streamingCalls('SendStreamingMessage') - sends).toBe(1);
    expect(hostile.streamingCalls('SubscribeToTask') - subscriptions).toBe(1);
  });

  it("ends A's question with a clear message when B's task is canceled while it waits", async () => {
    const task = await send('a cabinet');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const remoteId = task.metadata.pendingQuestion.from.taskId;
    const canceled = await rpc(agentUrl(financeGateway, 'finance-approval'), 'CancelTask', { id: remoteId });
    expect(canceled.error).toBeUndefined();
    // No answer is sent: A sees B's cancel by itself.
    const done = await waitForTaskState(purchasing(), task.id, 'TASK_STATE_COMPLETED', { timeoutMs: 60_000 });
    expect(done.status.message.parts[0].text).toMatch(/^caught canceled/);
    expect(done.metadata.pendingQuestion).toBeUndefined();
    const notes = (done.metadata.timeline as { message?: string }[]).map((entry) => entry.message);
    expect(notes).toContain(
      'The finance-approval agent\'s task ended canceled while its question waited here; the question "Approve a cabinet?" is withdrawn',
    );
  });
});
