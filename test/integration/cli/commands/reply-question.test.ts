/**
 * A task waiting on several questions through the CLI: `tasks show` lists each with its id and who
 * may answer, `tasks list` says who may answer each, a reply naming none is refused with the open
 * ids and the `--question` hint, and `tasks reply --question` answers the one it names; with
 * `--stream`, the questions still open are listed as `tasks show` lists them. `chat` lists each
 * open question with its id and answers the one `/answer` names.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askingTwiceAgent } from '../../../support/agents/test-agents.js';
import { parseCommandLine } from '../../../../src/cli/args.js';
import { runChat } from '../../../../src/cli/commands/chat.js';
import { ChatStateStore, conversationKey } from '../../../../src/cli/state-file.js';
import { cliAgainst, collectingIo } from '../../../support/cli.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const harness = useGatewayHarness({ gateway: { agents: [askingTwiceAgent], grpcPort: false } });

const cli = cliAgainst(harness);
const temp = useTempDirs();

/** A task of test-ask-several waiting on one question per prompt (anyone may answer), and the questions' ids. */
async function askSeveral(...prompts: string[]): Promise<{ taskId: string; contextId: string; ids: string[] }> {
  const questions = prompts.map((question) => ({ question }));
  const sent = await cli('send', 'test-ask-several', '--data', JSON.stringify({ questions }), '--json');
  const { id: taskId, contextId } = JSON.parse(sent.out).task as { id: string; contextId: string };
  const shown = JSON.parse((await cli('tasks', 'show', taskId, '--json')).out);
  return { taskId, contextId, ids: shown.metadata.pendingQuestions.map((question: { id: string }) => question.id) };
}

describe('tasks reply --question', () => {
  it('shows every open question with its id and responders, and answers the one it names', async () => {
    const run = randomUUID().slice(0, 8);
    const questions = [
      { question: `Desk ${run}?`, responders: ['alice'] },
      { question: `Chair ${run}?`, responders: ['bob'] },
    ];
    const sent = await cli('send', 'test-ask-several', '--data', JSON.stringify({ questions }), '--json');
    const taskId = JSON.parse(sent.out).task.id as string;
    const shownJson = JSON.parse((await cli('tasks', 'show', taskId, '--json')).out);
    const [desk, chair] = shownJson.metadata.pendingQuestions.map((question: { id: string }) => question.id) as [
      string,
      string,
    ];

    const shown = await cli('tasks', 'show', taskId);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('Waiting for input: 2 questions');
    expect(shown.out).toMatch(new RegExp(`Question ${desk}\\n +Question +Desk ${run}\\?[^]*Responders +alice`));
    expect(shown.out).toMatch(new RegExp(`Question ${chair}\\n +Question +Chair ${run}\\?[^]*Responders +bob`));
    expect(shown.out).toContain(`tasks reply ${taskId} <answer> --question ${chair}`);

    // Visibility may list the task a moment after it asked.
    await expect
      .poll(async () => (await cli('tasks', 'list', '--agent', 'test-ask-several')).out, { timeout: 20_000 })
      .toContain(`${desk}: alice; ${chair}: bob`);

    // Naming none while two wait: refused, with each open question and how to name one.
    const unnamed = await cli('tasks', 'reply', taskId, 'yes', '--as', 'bob');
    expect(unnamed.code).toBe(3);
    expect(unnamed.err).toContain(`${desk}: Desk ${run}? (may answer: alice)`);
    expect(unnamed.err).toContain(`${chair}: Chair ${run}? (may answer: bob)`);
    expect(unnamed.err).toContain(`tasks reply ${taskId} <answer> --question ${desk}`);

    const chairAnswered = await cli('tasks', 'reply', taskId, 'chair ok', '--question', chair, '--as', 'bob');
    expect(chairAnswered.code).toBe(0);
    expect(chairAnswered.out).toMatch(/State +input-required/);
    expect(chairAnswered.out).toMatch(new RegExp(`Question +Desk ${run}\\?`));
    // One question left: a reply need not name it.
    const deskAnswered = await cli('tasks', 'reply', taskId, 'desk ok', '--as', 'alice');
    expect(deskAnswered.code).toBe(0);
    expect(deskAnswered.out).toMatch(/State +completed/);
    expect(deskAnswered.out).toContain('"text":"chair ok","responder":"bob"');
  });
});

describe('tasks reply --stream', () => {
  it('lists the questions still open, with their ids, when the task waits again', async () => {
    const run = randomUUID().slice(0, 8);
    const { taskId, ids } = await askSeveral(`Desk ${run}?`, `Chair ${run}?`, `Lamp ${run}?`);
    const [desk, chair, lamp] = ids as [string, string, string];
    const reply = await cli('tasks', 'reply', taskId, 'ok', '--question', chair, '--stream');
    expect(reply.code).toBe(0);
    expect(reply.out).toContain('Waiting for input: 2 questions');
    expect(reply.out).toMatch(new RegExp(`Question ${desk}\\n +Question +Desk ${run}\\?`));
    expect(reply.out).toMatch(new RegExp(`Question ${lamp}\\n +Question +Lamp ${run}\\?`));
    expect(reply.out).toContain(`tasks reply ${taskId} <answer> --question ${lamp}`);
    expect(reply.out).not.toContain(`Chair ${run}?`);
  });
});

describe('chat', () => {
  it('lists every open question with its id and answers the one /answer names', async () => {
    const run = randomUUID().slice(0, 8);
    const { taskId, contextId, ids } = await askSeveral(`Desk ${run}?`, `Chair ${run}?`);
    const [desk, chair] = ids as [string, string];
    // The conversation as a chat that started the task left it (state-file.ts).
    const env = { A2A_CLI_STATE: join(temp.make('a2a-chat-'), 'chat.json') };
    const key = conversationKey(harness.gateway.url, 'test-ask-several');
    new ChatStateStore(env.A2A_CLI_STATE, () => {}).set(key, { contextId, pendingTaskId: taskId });

    const { io, printed } = collectingIo(env);
    const command = parseCommandLine(['chat', 'test-ask-several', '--url', harness.gateway.url], env);
    if (command.kind !== 'chat') throw new Error('not a chat command');
    const lines = ['yes', `/answer ${chair} chair ok`, `/answer ${desk} desk ok`].map((line) => `${line}\n`);
    expect(await runChat(command, io, { input: Readable.from(lines), output: new PassThrough() })).toBe(0);
    const { out } = printed();

    expect(out).toContain(`Task ${taskId} waits on 2 questions; answer one with /answer <id> <answer>:`);
    expect(out).toContain(`  ${desk}: Desk ${run}?`);
    expect(out).toContain(`  ${chair}: Chair ${run}?`);
    // A line that names no question is not sent while two wait.
    expect(out).toContain('Your line was not sent: answer one question with /answer <id> <answer>.');
    expect(out).toMatch(/completed/);
    const shown = JSON.parse((await cli('tasks', 'show', taskId, '--json')).out);
    expect(shown.status.state).toBe('TASK_STATE_COMPLETED');
    expect(shown.status.message.parts[0].text).toBe('[{"text":"desk ok"},{"text":"chair ok"}]');
  });
});
