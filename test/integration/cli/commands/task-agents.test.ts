/**
 * Any task ID works without --agent: `tasks show`, `reply` and `cancel` reach a task of another
 * agent than the gateway's default one, `tasks list` lists every agent's tasks with their agents and
 * who may answer — and a caller who may not see a task learns nothing of it, not even its agent.
 * The CLI runs in process against a real gateway (with API keys), worker and Temporal.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import agents from '../../../../examples/agents/index.js';
import { run as runCli } from '../../../../src/cli/run.js';
import { createAuthenticator } from '../../../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../../../src/gateway/auth/settings.js';
import { TASK_AGENT_METADATA } from '../../../../src/tasks/errors.js';
import { startGateway, type RunningGateway } from '../../../../src/gateway/server.js';
import { askingAgent } from '../../../support/agents/test-agents.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const PEOPLE = ['alice', 'bob', 'carol'] as const;
type Person = (typeof PEOPLE)[number];
const keyOf = (person: Person) => `key-of-${person}`;

const harness = useGatewayHarness();
let gateway: RunningGateway;

beforeAll(async () => {
  // `echo` at the root: the tasks below are another agent's.
  gateway = await startGateway({
    client: harness.temporal,
    agents: [...agents, askingAgent],
    defaultAgent: 'echo',
    taskQueue: harness.worker.taskQueue,
    grpcPort: false,
    authenticator: createAuthenticator({
      methods: ['api-key'],
      apiKeys: PEOPLE.map((person) => ({ sha256: hashApiKey(keyOf(person)), principal: person, groups: [] })),
    }),
  });
  return () => gateway.close();
});

/** The CLI as `person` runs it: its exit code, its stdout, and everything it printed. */
async function cli(person: Person, ...argv: string[]): Promise<{ code: number; stdout: string; text: string }> {
  const lines: string[] = [];
  const out: string[] = [];
  const io = {
    out: (text: string) => (lines.push(text), out.push(text)),
    err: (text: string) => lines.push(text),
    env: { A2A_API_KEY: keyOf(person), A2A_URL: gateway.url, NO_COLOR: '1' },
    now: () => new Date(),
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join('\n'), text: lines.join('\n') };
}

/** A task of `test-ask`, started by alice, whose question only carol may answer. */
async function askCarol(): Promise<string> {
  const sent = await cli('alice', 'send', 'test-ask', 'Need an answer', '--data', '{"responders":["carol"]}', '--json');
  expect(sent.code, sent.text).toBe(0);
  const task = (JSON.parse(sent.stdout) as { task: { id: string; status: { state: string } } }).task;
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task.id;
}

/** GetTask at the gateway's root (the default agent) over JSON-RPC, as `person`. */
async function getTaskAtRoot(person: Person, id: string) {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'x-api-key': keyOf(person) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
  });
  return (await response.json()) as { error?: { code: number; message: string; data?: unknown } };
}

describe('a task of another agent than the default one', () => {
  it('is shown, listed and answered without --agent', async () => {
    const id = await askCarol();

    for (const transport of ['jsonrpc', 'rest']) {
      const shown = await cli('alice', 'tasks', 'show', id, '--transport', transport);
      expect(shown.code, shown.text).toBe(0);
      expect(shown.text).toMatch(/Agent +test-ask/);
      expect(shown.text).toMatch(/Responders +carol/);
    }

    // Visibility catches up within a second or so.
    await expect.poll(async () => (await cli('alice', 'tasks', 'list')).text, { timeout: 10_000 }).toContain(id);
    const listed = await cli('alice', 'tasks', 'list');
    expect(listed.text).toMatch(/^TASK ID +AGENT +STATE +UPDATED +MAY ANSWER +MESSAGE$/m);
    expect(listed.text).toMatch(new RegExp(`^${id} +test-ask +input-required +\\S+ \\S+ +carol `, 'm'));
    expect(listed.text).toMatch(/tasks? of \d+ agents\./);
    expect((await cli('alice', 'tasks', 'list', '--agent', 'echo')).text).not.toContain(id);

    const replied = await cli('carol', 'tasks', 'reply', id, 'yes');
    expect(replied.code, replied.text).toBe(0);
    expect(replied.text).toMatch(/State +completed/);

    const streamed = await cli('carol', 'tasks', 'reply', await askCarol(), 'yes', '--stream');
    expect(streamed.code, streamed.text).toBe(0);
    expect(streamed.text).toMatch(/completed/);

    const other = await askCarol();
    const canceled = await cli('alice', 'tasks', 'cancel', other);
    expect(canceled.code, canceled.text).toBe(0);
    expect(canceled.stdout).toBe(`Task ${other} is canceled.`);
  });

  it('names its agent on the wire to those who may see it, and to no one else', async () => {
    const id = await askCarol();
    const named = await getTaskAtRoot('carol', id);
    expect(named.error?.code).toBe(-32001);
    expect(named.error?.message).toContain('a task of agent test-ask');
    expect(named.error?.data).toEqual([expect.objectContaining({ metadata: { [TASK_AGENT_METADATA]: 'test-ask' } })]);

    // bob neither owns the task nor may answer it: the same answer as for a task that does not exist.
    const stranger = await getTaskAtRoot('bob', id);
    expect(stranger.error?.message).toBe(`Task ${id} not found`);
    expect(JSON.stringify(stranger)).not.toContain('test-ask');
    for (const argv of [
      ['show', id],
      ['reply', id, 'yes'],
      ['cancel', id],
    ]) {
      const refused = await cli('bob', 'tasks', ...argv);
      expect(refused.code, refused.text).toBe(3);
      expect(refused.text).not.toContain('test-ask');
    }
    expect((await cli('bob', 'tasks', 'list')).text).not.toContain(id);
    // An explicit --agent is taken at its word; the error says where the task is.
    const wrong = await cli('alice', 'tasks', 'show', id, '--agent', 'echo');
    expect(wrong.code).toBe(3);
    expect(wrong.text).toContain('a task of agent test-ask');
  });

  it('the gateway lists its agents, to callers it knows', async () => {
    const listing = await fetch(`${gateway.url}/agents`, { headers: { 'x-api-key': keyOf('bob') } });
    expect(listing.status).toBe(200);
    const directory = (await listing.json()) as { defaultAgent: string; agents: { name: string; url: string }[] };
    expect(directory.defaultAgent).toBe('echo');
    expect(directory.agents).toContainEqual(
      expect.objectContaining({ name: 'test-ask', url: `${gateway.url}/agents/test-ask` }),
    );
    expect((await fetch(`${gateway.url}/agents`)).status).toBe(401);
  });
});
