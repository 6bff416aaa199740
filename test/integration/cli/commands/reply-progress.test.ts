/**
 * A blocking `tasks reply` whose task is held by a retrying activity says so while it waits, and
 * `--no-wait` returns as soon as the answer is taken.
 */
import { describe, expect, it } from 'vitest';
import { askThenFlakyAgent } from '../../../support/agents/test-agents.js';
import { cliAgainst } from '../../../support/cli.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const harness = useGatewayHarness({ gateway: { agents: [askThenFlakyAgent], grpcPort: false } });

const cli = cliAgainst(harness);

async function waitingTask(): Promise<string> {
  const sent = await cli('send', 'test-ask-then-flaky', 'start', '--json');
  const task = JSON.parse(sent.out).task as { id: string; status: { state: string } };
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task.id;
}

describe('tasks reply', () => {
  it('prints the task status while a retrying activity holds it, then the settled task', async () => {
    const taskId = await waitingTask();
    const reply = await cli('tasks', 'reply', taskId, 'yes');
    expect(reply.code).toBe(0);
    expect(reply.err).toMatch(/working: flakyStep failed \(attempt [12]\) and is being retried/);
    expect(reply.out).toContain('State    completed');
  });

  it('--no-wait returns once the answer is taken', async () => {
    const taskId = await waitingTask();
    const reply = await cli('tasks', 'reply', taskId, 'yes', '--no-wait', '--json');
    expect(reply.code).toBe(0);
    // Not settled: the activity is still being retried.
    expect(JSON.parse(reply.out).task.status.state).toBe('TASK_STATE_WORKING');
    expect(reply.err).toBe('');
  });
});
