/**
 * A task waiting on several questions through the CLI: `tasks show` lists each with its id and who
 * may answer, `tasks list` says who may answer each, a reply naming none is refused with the open
 * ids and the `--question` hint, and `tasks reply --question` answers the one it names.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { run } from '../../../../src/cli/run.js';
import { askingTwiceAgent } from '../../../support/agents/test-agents.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const harness = useGatewayHarness({ gateway: { agents: [askingTwiceAgent], grpcPort: false } });

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (text: string) => out.push(text),
    err: (text: string) => err.push(text),
    env: {},
    now: () => new Date(),
  };
  const code = await run([...argv, '--url', harness.gateway.url], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
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
