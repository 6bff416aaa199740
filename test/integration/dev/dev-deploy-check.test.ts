/**
 * `a2a-temporal dev` checks a save against the tasks waiting in its database before it switches
 * the worker over: a project in a temporary folder has an agent that notifies, audits, then asks;
 * one task waits for the answer. A save that only edits a comment replays it cleanly; a save that
 * audits before notifying (no patch) makes the console name the task, the first diverging call
 * and the two ways out (ctx.patched, or discarding the task), and the reload goes on.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevStack, type RunningDevStack } from '../../../src/dev/dev-stack.js';
import { freePort } from '../../../src/temporal/dev-server.js';
import { approvalAgentsModule, writeApprovalProjectBase } from '../../support/approval-project.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { readSettings } from '../../../src/config/settings.js';

const AGENT = 'dev-check-approval';
const temp = useTempDirs();

const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

let dir: string;
let stack: RunningDevStack;
let printed = '';
let temporal: Connection;

beforeAll(async () => {
  // The check's replay fails on purpose, and the SDK says so in its own log: keep that quiet here.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  dir = temp.make('a2a-dev-check-');
  writeApprovalProjectBase(dir);
  writeFileSync(join(dir, 'agents.ts'), approvalAgentsModule(AGENT, 'a'));
  writeFileSync(
    join(dir, 'a2a-temporal.config.ts'),
    "export default { agents: './agents.ts', activities: './activities.ts' };\n",
  );
  const ports = { gateway: await freePort(), temporal: await freePort(), ui: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.gateway),
    GRPC_PORT: 'off',
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    A2A_DATA_DB: join(dir, '.data', 'temporal.db'),
  };
  delete env.TEMPORAL_ADDRESS;
  delete env.A2A_TASK_QUEUE;
  // No model: an LLM agent added by a save gets the hint (below).
  for (const name of ['A2A_MODEL_BASE_URL', 'A2A_MODEL_API_KEY', 'A2A_MODEL']) delete env[name];
  stack = await startDevStack({ config: dir, env, settings: readSettings(env), print: (text) => (printed += text) });
  temporal = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  log(`stack up: gateway ${stack.ready.gatewayUrl}`);
});

afterAll(async () => {
  await temporal?.close();
  await stack?.stop();
});

async function send(text: string, taskId?: string): Promise<{ id: string; status: { state: string } }> {
  const response = await fetch(`${stack.ready.gatewayUrl}/agents/${AGENT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) } },
    }),
  });
  const body = (await response.json()) as { result?: { task?: { id: string; status: { state: string } } } };
  if (!body.result?.task) throw new Error(`SendMessage failed: ${JSON.stringify(body)}`);
  return body.result.task;
}

/** Saves the agents module and waits for the reload it causes: what it printed, and how long from the save's notice. */
async function save(content: string): Promise<{ output: string; ms: number }> {
  const before = printed.length;
  const since = () => printed.slice(before);
  writeFileSync(join(dir, 'agents.ts'), content);
  await expect.poll(since, { timeout: 60_000, interval: 20 }).toMatch(/changed: restarting/);
  const changed = performance.now();
  await expect.poll(since, { timeout: 90_000, interval: 20 }).toMatch(/Reloaded: |failed to start/);
  return { output: since(), ms: Math.round(performance.now() - changed) };
}

describe('a2a-temporal dev checks a save against the tasks waiting in its database', { timeout: 180_000 }, () => {
  it('says which waiting task a change breaks and what to do, and reloads anyway', async () => {
    const task = await send('lunch');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // The check counts waiting tasks through visibility, which is eventually consistent.
    const client = new Client({ connection: temporal, namespace: 'default' });
    await expect
      .poll(async () => (await client.workflow.count(`A2ATaskState = 'input-required'`)).count, { timeout: 10_000 })
      .toBe(1);
    log(`task ${task.id} waits for approval`);

    const harmless = await save(approvalAgentsModule(AGENT, 'a', { note: 'version A, with a comment edited' }));
    log(`harmless save reloaded in ${harmless.ms} ms:\n${harmless.output}`);
    expect(harmless.output).toMatch(
      /Replayed the 1 task waiting in the dev database on the change \([\d.]+ s\): none breaks/,
    );
    expect(harmless.output).toContain('Reloaded: ');

    const breaking = await save(approvalAgentsModule(AGENT, 'b', { note: 'version B: audits first, no patch' }));
    log(`breaking save reloaded in ${breaking.ms} ms:\n${breaking.output}`);
    expect(breaking.output).toMatch(/WARNING: this change breaks 1 task waiting in the dev database/);
    expect(breaking.output).toContain(`${AGENT}: ${task.id} (input-required)`);
    expect(breaking.output).toMatch(
      /first divergence \(task \S+\): the new code runs activity `audit` before activity `notify`; the task ran activity `notify` first\n/,
    );
    expect(breaking.output).toContain("if (ctx.patched('my-change'))");
    expect(breaking.output).toContain('temporal workflow terminate');
    expect(breaking.output).toContain(join(dir, '.data', 'temporal.db'));
    // The warning comes before the switch, and the switch still happens.
    expect(breaking.output.indexOf('WARNING')).toBeLessThan(breaking.output.indexOf('Reloaded: '));
    expect(breaking.output).toContain(`Reloaded: ${AGENT}`);
  });

  it('says what to set when a save adds an LLM agent and no model is configured', async () => {
    const withLlmAgent = approvalAgentsModule(AGENT, 'b', { note: 'with an LLM agent' }).replace(
      'export default [',
      `import { defineLlmAgent } from '${fileURLToPath(new URL('../../../src/index.ts', import.meta.url))}';\n` +
        "export default [\n  defineLlmAgent({ name: 'dev-check-llm', description: 'Needs a model', skills: [], instructions: 'Help.' }),",
    );
    const added = await save(withLlmAgent);
    log(`save adding an LLM agent:\n${added.output}`);
    expect(added.output).toContain(`Reloaded: dev-check-llm, ${AGENT}`);
    expect(added.output).toMatch(
      /dev-check-llm: No model endpoint is configured: set A2A_MODEL_BASE_URL .*\n.*Until then/,
    );
  });
});
