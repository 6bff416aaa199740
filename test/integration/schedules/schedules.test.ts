/**
 * Scheduled tasks on the run's dev server: the config's schedules become Temporal Schedules whose
 * runs are ordinary A2A tasks, found and answered through the gateway and owned by the schedule's
 * owner; paused ones do not fire; the overlap policy holds back a run while the last one waits;
 * reconciling is idempotent and touches no other Schedule; the CLI lists, pauses, resumes, triggers.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import { exportJWK, generateKeyPair } from 'jose';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import agents from '../../../examples/agents/index.js';
import type { Io } from '../../../src/cli/io.js';
import { run } from '../../../src/cli/run.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { createProjectWorker } from '../../../src/config/project.js';
import type { CheckedSchedule } from '../../../src/config/schedules.js';
import { createAuthenticator } from '../../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../../src/gateway/auth/settings.js';
import { taskIdOfWorkflow } from '../../../src/protocol/contract.js';
import { reconcileSchedules, scheduleIdOf } from '../../../src/schedules/schedules.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { temporalSettings } from '../../../src/temporal/connection.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { readSettings } from '../../../src/config/settings.js';

const PEOPLE = ['alice', 'bob'] as const;
type Person = (typeof PEOPLE)[number];
const authenticator = createAuthenticator({
  methods: ['api-key'],
  apiKeys: PEOPLE.map((person) => ({ sha256: hashApiKey(`key-of-${person}`), principal: person, groups: [] })),
});
const harness = useGatewayHarness({ gateway: { agents: [...agents, askingAgent], authenticator } });
const temp = useTempDirs();
const as = (person: Person) => ({ 'x-api-key': `key-of-${person}` });

/** Every Schedule a test made, deleted at the end: the dev server is shared with other files. */
const made = new Set<string>();
afterAll(async () => {
  for (const id of made) {
    await harness.temporal.schedule
      .getHandle(scheduleIdOf(id))
      .delete()
      .catch(() => {});
  }
});

function schedule(overrides: Partial<CheckedSchedule> & Pick<CheckedSchedule, 'agent'>): CheckedSchedule {
  const entry: CheckedSchedule = {
    id: `s-${randomUUID().slice(0, 8)}`,
    every: '2 seconds',
    message: 'Good morning',
    owner: 'alice',
    overlap: 'skip',
    ...overrides,
  };
  made.add(entry.id);
  return entry;
}

function reconcile(schedules: CheckedSchedule[]) {
  return reconcileSchedules(harness.temporal, harness.worker.taskQueue, schedules);
}

async function rpc(agent: string, method: string, params: unknown, person: Person) {
  const response = await fetch(`${harness.gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...as(person) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: any };
}

/** The IDs of the tasks a schedule's runs started, as ListTasks shows them to `person`. */
async function listedRuns(agent: string, id: string, person: Person = 'alice'): Promise<string[]> {
  const listed = await rpc(agent, 'ListTasks', {}, person);
  return (listed.result.tasks as { id: string }[])
    .map((task) => task.id)
    .filter((taskId) => taskId.startsWith(`schedule-${id}-`))
    .sort();
}

/** The workflows a Schedule started, from Temporal itself (not through the gateway). */
async function startedRuns(id: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of harness.temporal.workflow.list({ query: `TemporalScheduledById = '${scheduleIdOf(id)}'` })) {
    ids.push(run.workflowId);
  }
  return ids;
}

function captureIo(extraEnv: NodeJS.ProcessEnv = {}): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'default', ...extraEnv };
  return { io: { out: (text) => out.push(text), err: (text) => err.push(text), env, now: () => new Date() }, out, err };
}

describe('scheduled tasks', () => {
  it('run as A2A tasks of their agent, owned by the owner, served by the gateway', { timeout: 60_000 }, async () => {
    const echo = schedule({ agent: 'echo', message: 'Report the weather' });
    expect(await reconcile([echo])).toMatchObject({ added: [echo.id] });
    await expect.poll(() => listedRuns('echo', echo.id), { timeout: 20_000, interval: 500 }).toHaveLength(2);
    const [taskId] = await listedRuns('echo', echo.id);
    // The task ID is the run's workflow ID less the task prefix, Temporal's time suffix included.
    expect(taskId).toMatch(new RegExp(`^schedule-${echo.id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));
    const task = (await rpc('echo', 'GetTask', { id: taskId }, 'alice')).result;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata.owner).toBe('alice');
    expect(task.history[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'Report the weather' }] });
    // Each run is a task of its own, in a context of its own.
    const other = (await rpc('echo', 'GetTask', { id: (await listedRuns('echo', echo.id))[1] }, 'alice')).result;
    expect(other.contextId).not.toBe(task.contextId);
    // On HTTP+JSON too, where the ID (with its colons) is part of the path.
    const rest = await fetch(`${harness.gateway.url}/agents/echo/rest/tasks/${encodeURIComponent(taskId!)}`, {
      headers: { 'A2A-Version': '1.0', ...as('alice') },
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { id: string }).id).toBe(taskId);
    // And through the CLI over HTTP+JSON, whose SDK client puts the ID in the path.
    const { io, out } = captureIo({ A2A_API_KEY: 'key-of-alice' });
    const gateway = ['--url', harness.gateway.url, '--transport', 'rest', '--json'];
    expect(await run(['tasks', 'show', taskId!, '--agent', 'echo', ...gateway], io)).toBe(0);
    expect(JSON.parse(out.join(''))).toMatchObject({ id: taskId, metadata: { owner: 'alice' } });
    // Someone else does not see the owner's tasks.
    expect((await rpc('echo', 'GetTask', { id: taskId }, 'bob')).error.code).toBe(-32001);
    expect(await listedRuns('echo', echo.id, 'bob')).toEqual([]);
    await reconcile([]);
  });

  it(
    'skip: no run starts while the last one waits for input; answered, the next one starts',
    { timeout: 60_000 },
    async () => {
      const ask = schedule({ agent: 'test-ask', message: 'Anything to report?' });
      await reconcile([ask]);
      await expect.poll(() => listedRuns('test-ask', ask.id), { timeout: 20_000, interval: 500 }).toHaveLength(1);
      const [taskId] = await listedRuns('test-ask', ask.id);
      const waiting = (await rpc('test-ask', 'GetTask', { id: taskId }, 'alice')).result;
      expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      // Three periods pass: overlap 'skip' starts none of them.
      await sleep(6_000);
      expect(await startedRuns(ask.id)).toHaveLength(1);
      // The owner answers through A2A, as for any task (here the CLI over HTTP+JSON); the task
      // completes and the next run starts.
      const { io, err } = captureIo({ A2A_API_KEY: 'key-of-alice' });
      const reply = ['tasks', 'reply', taskId!, 'all quiet', '--agent', 'test-ask', '--transport', 'rest'];
      expect(await run([...reply, '--url', harness.gateway.url], io), err.join('\n')).toBe(0);
      const answered = (await rpc('test-ask', 'GetTask', { id: taskId }, 'alice')).result;
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.status.message.parts[0].text).toContain('"responder":"alice"');
      await expect.poll(() => startedRuns(ask.id), { timeout: 15_000, interval: 500 }).toHaveLength(2);
      await reconcile([]);
    },
  );

  it(
    'reconciles: adds, changes, removes, idempotently, and leaves other Schedules alone',
    { timeout: 60_000 },
    async () => {
      const daily = schedule({ agent: 'echo', every: '1 day' });
      const hourly = schedule({ agent: 'echo', cron: '0 * * * *', every: undefined });
      const foreign = `foreign-${randomUUID().slice(0, 8)}`;
      await harness.temporal.schedule.create({
        scheduleId: foreign,
        spec: { intervals: [{ every: '1 day' }] },
        action: { type: 'startWorkflow', workflowType: 'echo', taskQueue: harness.worker.taskQueue, args: [] },
      });
      try {
        expect(await reconcile([daily, hourly])).toEqual({
          added: [daily.id, hourly.id],
          changed: [],
          removed: [],
          unchanged: [],
        });
        expect(await reconcile([daily, hourly])).toEqual({
          added: [],
          changed: [],
          removed: [],
          unchanged: [daily.id, hourly.id],
        });
        const changedDaily = { ...daily, message: 'Another message', owner: 'bob', overlap: 'buffer-one' as const };
        // An operator's pause survives a change of the config.
        await harness.temporal.schedule.getHandle(scheduleIdOf(daily.id)).pause('by hand');
        expect(await reconcile([changedDaily, hourly])).toMatchObject({ changed: [daily.id], unchanged: [hourly.id] });
        const described = await harness.temporal.schedule.getHandle(scheduleIdOf(daily.id)).describe();
        expect(described.action.args).toEqual([
          {
            firstMessage: {
              text: 'Another message',
              responder: 'bob',
              caller: { id: 'bob', groups: [] },
              agent: 'echo',
            },
          },
        ]);
        expect(described.policies.overlap).toBe('BUFFER_ONE');
        expect(described.state.paused).toBe(true);
        expect(await reconcile([changedDaily, hourly])).toMatchObject({
          changed: [],
          unchanged: [daily.id, hourly.id],
        });
        // Removal reads the list of Schedules, which Temporal's visibility fills a moment later.
        await expect
          .poll(async () => (await reconcile([changedDaily])).removed, { timeout: 10_000, interval: 500 })
          .toEqual([hourly.id]);
        await expect(harness.temporal.schedule.getHandle(scheduleIdOf(hourly.id)).describe()).rejects.toThrow(
          ScheduleNotFoundError,
        );
        expect(await reconcile([changedDaily])).toMatchObject({ removed: [], unchanged: [daily.id] });
        await reconcile([]);
        await expect.poll(async () => (await reconcile([])).removed, { timeout: 10_000, interval: 500 }).toEqual([]);
        // Not this project's: still there.
        expect((await harness.temporal.schedule.getHandle(foreign).describe()).scheduleId).toBe(foreign);
      } finally {
        await harness.temporal.schedule.getHandle(foreign).delete();
      }
    },
  );

  it('the CLI lists, pauses (no runs), resumes and triggers them', { timeout: 60_000 }, async () => {
    const echo = schedule({ agent: 'echo', every: '2 seconds' });
    const other = schedule({ agent: 'echo', every: '1 day' });
    await reconcile([echo, other]);
    const { io, out, err } = captureIo();
    expect(await run(['schedules', 'pause', echo.id, '--note', 'quiet please'], io)).toBe(0);
    const before = (await startedRuns(echo.id)).length;
    await sleep(5_000);
    // Paused: nothing fires (a run may have started in the moment before the pause).
    expect(await startedRuns(echo.id)).toHaveLength(before);
    await expect
      .poll(
        async () => {
          out.length = 0;
          await run(['schedules', 'list', '--json'], io);
          const listed: { id: string }[] = JSON.parse(out.at(-1)!).schedules;
          return [echo.id, other.id].map((id) => listed.find((row) => row.id === id));
        },
        { timeout: 10_000, interval: 500 },
      )
      .toMatchObject([
        { agent: 'echo', paused: true, note: 'quiet please', taskQueue: harness.worker.taskQueue },
        { agent: 'echo', paused: false },
      ]);
    out.length = 0;
    expect(await run(['schedules', 'list'], io)).toBe(0);
    expect(out.join('\n')).toMatch(new RegExp(`${echo.id} .*echo .*paused \\(quiet please\\)`));

    // Triggered by hand, a paused schedule runs once, and the CLI names the task.
    out.length = 0;
    expect(await run(['schedules', 'trigger', echo.id], io)).toBe(0);
    const started = /started task (\S+)\./.exec(out.join('\n'))?.[1];
    expect(started).toMatch(new RegExp(`^schedule-${echo.id}-`));
    await expect
      .poll(async () => (await rpc('echo', 'GetTask', { id: started }, 'alice')).result?.status.state)
      .toBe('TASK_STATE_COMPLETED');

    expect(await run(['schedules', 'resume', echo.id], io)).toBe(0);
    const resumedAt = (await startedRuns(echo.id)).length;
    await expect
      .poll(async () => (await startedRuns(echo.id)).length, { timeout: 15_000, interval: 500 })
      .toBeGreaterThan(resumedAt);
    for (const workflowId of await startedRuns(echo.id)) expect(taskIdOfWorkflow(workflowId)).toBeDefined();

    // An unknown ID, or one of a Schedule a2a-temporal does not manage: exit 3, saying so.
    err.length = 0;
    expect(await run(['schedules', 'pause', 'no-such-schedule'], io)).toBe(3);
    expect(err.join('\n')).toMatch(/No scheduled task "no-such-schedule".*schedules list/);
    await reconcile([]);
  });

  it(
    "a project's worker makes its config's schedules when it starts, and runs them, asking for the receipts it signs",
    { timeout: 120_000 },
    async () => {
      const dir = temp.make('a2a-schedules-project-');
      const entry = schedule({ agent: 'echo', message: 'From the config' });
      const taskQueue = `project-${randomUUID()}`;
      const examples = (path: string) => fileURLToPath(new URL(`../../../examples/${path}`, import.meta.url));
      const { overlap: _default, ...configured } = entry;
      writeFileSync(
        join(dir, 'a2a-temporal.config.mjs'),
        `export default ${JSON.stringify({
          agents: examples('agents/index.ts'),
          activities: examples('activities/index.ts'),
          taskQueue,
          schedules: [configured],
        })};\n`,
      );
      const config = await loadConfig(dir);
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const receiptKey = { ...(await exportJWK(privateKey)), kid: 'schedules', alg: 'ES256' };
      const environment = readSettings({
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        A2A_RECEIPT_SIGNING_KEY: JSON.stringify(receiptKey),
      });
      const settings = temporalSettings(environment, { taskQueue });
      const connection = await NativeConnection.connect(settings.connection);
      try {
        const worker = await createProjectWorker(config, connection, settings, environment);
        const description = await harness.temporal.schedule.getHandle(scheduleIdOf(entry.id)).describe();
        expect(description.action).toMatchObject({ workflowType: 'echo', taskQueue });
        // The worker has the receipt key: its Schedules' tasks ask for receipts (ReceiptRequest).
        expect(description.action.args).toMatchObject([{ receipts: true }]);
        await worker.runUntil(async () => {
          await expect
            .poll(
              async () => {
                const [workflowId] = await startedRuns(entry.id);
                return workflowId && (await harness.temporal.workflow.getHandle(workflowId).describe()).status.name;
              },
              { timeout: 30_000, interval: 500 },
            )
            .toBe('COMPLETED');
        });
      } finally {
        await connection.close();
      }
    },
  );
});
