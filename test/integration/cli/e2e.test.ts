/**
 * The a2a-temporal CLI end to end, as a user runs it (a child process), against a real gateway,
 * worker and Temporal: send, stream, list, show, reply, cancel, and chat resuming a pending task
 * after the CLI restarts.
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import agents from '../../../examples/agents/index.js';
import { startGateway } from '../../../src/gateway/server.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const temp = useTempDirs();

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const harness = useGatewayHarness();
let stateFile: string;

beforeAll(() => {
  stateFile = join(temp.make('a2a-cli-'), 'chat.json');
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `input` lines are written one by one, each once stdout shows `waitFor` (if given). */
function cli(
  args: string[],
  options: { url?: string; input?: { waitFor?: string; line: string }[]; interruptOn?: string } = {},
) {
  const child = spawn(process.execPath, ['bin/a2a-temporal.js', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      A2A_URL: options.url ?? harness.gateway.url,
      A2A_CLI_STATE: stateFile,
      NO_COLOR: '1',
      npm_command: '',
    },
  });
  let stdout = '';
  let stderr = '';
  const pending = [...(options.input ?? [])];
  const feed = () => {
    while (pending.length > 0 && (!pending[0]!.waitFor || stdout.includes(pending[0]!.waitFor))) {
      const next = pending.shift()!;
      stdout = stdout.replace(next.waitFor ?? '', '');
      child.stdin.write(`${next.line}\n`);
    }
    if (pending.length === 0) child.stdin.end();
  };
  let interrupted = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    // Ctrl-C, as a person at the terminal would press it once the output shows what they waited for.
    if (options.interruptOn && !interrupted && stdout.includes(options.interruptOn)) {
      interrupted = true;
      child.kill('SIGINT');
    }
    feed();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  feed();
  return new Promise<Run>((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

async function sendJson(text: string): Promise<any> {
  const run = await cli(['send', 'expense-approval', text, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).task;
}

describe('a2a-temporal CLI', () => {
  it('send, list, show and reply drive an approval to completion', async () => {
    const task = await sendJson(EXPENSE_REQUEST);
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    // ListTasks reads Temporal visibility, which is eventually consistent.
    let listed = '';
    for (let attempt = 0; attempt < 20 && !listed.includes(task.id); attempt++) {
      listed = (await cli(['tasks', 'list', '--agent', 'expense-approval', '--state', 'input-required', '--json']))
        .stdout;
      if (!listed.includes(task.id)) await new Promise((r) => setTimeout(r, 250));
    }
    expect(listed).toContain(task.id);
    // No match: still a `tasks` list for scripts, not an object without it.
    const none = await cli(['tasks', 'list', '--context', randomUUID(), '--json']);
    expect(JSON.parse(none.stdout)).toMatchObject({ tasks: [] });

    const shown = await cli(['tasks', 'show', task.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('120 USD');
    expect(shown.stdout).toContain('input-required');

    const replied = await cli(['tasks', 'reply', task.id, 'approve', '--as', 'alice']);
    expect(replied.code, replied.stderr).toBe(0);
    expect(replied.stdout).toContain('completed');
    expect(replied.stdout).toContain('approval-record');
  });

  it('send --stream shows live states, and cancel ends the task canceled', async () => {
    const streamed = await cli([
      'send',
      'expense-approval',
      'Please approve an expense of 5 USD for stamps',
      '--stream',
    ]);
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(streamed.stdout).toMatch(/working[\s\S]*Assessing the expense[\s\S]*input-required/);
    const taskId = /tasks reply (\S+)/.exec(streamed.stdout)?.[1];
    expect(taskId).toBeDefined();

    const canceled = await cli(['tasks', 'cancel', taskId!, '--json']);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(JSON.parse(canceled.stdout).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('exit codes: denied task 4, unknown task 3, unreachable gateway 2', async () => {
    const task = await sendJson('Please approve an expense of 7 USD for pens');
    expect((await cli(['tasks', 'reply', task.id, 'deny'])).code).toBe(4);
    expect((await cli(['tasks', 'show', 'no-such-task'])).code).toBe(3);
    expect((await cli(['tasks', 'show', 'x'], { url: 'http://127.0.0.1:9' })).code).toBe(2);
  });

  it('chat resumes a pending question after the CLI restarts', async () => {
    const first = await cli(['chat', 'expense-approval'], {
      input: [{ line: 'Please approve an expense of 42 USD for books' }],
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('42 USD');

    const second = await cli(['chat', 'expense-approval'], { input: [{ waitFor: '42 USD', line: 'approve' }] });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/completed/);
    expect(second.stdout).toContain('Approved: 42 USD');
  });

  it('prints commands that work when pasted: a task of another agent than the default, on another gateway', async () => {
    const gateway = await startGateway({
      client: harness.temporal,
      agents,
      defaultAgent: 'echo',
      taskQueue: harness.worker.taskQueue,
      grpcPort: false,
    });
    try {
      const nowhere = 'http://127.0.0.1:9'; // A2A_URL points elsewhere: the hints must carry --url
      const sent = await cli(['send', 'expense-approval', EXPENSE_REQUEST, '--url', gateway.url], { url: nowhere });
      const answer = /Answer: +(a2a-temporal tasks reply .*)/.exec(sent.stdout)?.[1];
      expect(answer, sent.stdout).toContain(`--agent expense-approval --url ${gateway.url}`);
      const shown = await cli(pasted(answer!.replace(' <answer>', '').replace('tasks reply', 'tasks show')), {
        url: nowhere,
      });
      expect(shown.code, shown.stderr).toBe(0);
      const again = /Answer: +(a2a-temporal tasks reply .*)/.exec(shown.stdout)?.[1];
      expect(again).toBe(answer);
      const replied = await cli(pasted(answer!.replace('<answer>', 'approve')), { url: nowhere });
      expect(replied.code, replied.stderr).toBe(0);
      expect(replied.stdout).toContain('completed');
      console.log(`pasted and ran: ${answer}`);

      // Ctrl-C on a streaming send detaches; its "Follow it" hint shows the task still running.
      const streamed = await cli(['send', 'long-report', 'Quarterly figures', '--stream', '--url', gateway.url], {
        url: nowhere,
        interruptOn: 'working',
      });
      const follow = /Follow it: +(a2a-temporal tasks show .*)/.exec(streamed.stderr)?.[1];
      expect(follow, streamed.stderr).toContain(`--agent long-report --url ${gateway.url}`);
      const followed = await cli(pasted(follow!), { url: nowhere });
      expect(followed.code, followed.stderr).toBe(0);
      expect(followed.stdout).toMatch(/working|completed/);
      console.log(`pasted and ran: ${follow}`);
    } finally {
      await gateway.close();
    }
  });
});

/** A printed command line as argv (the hints quote nothing here: IDs, names and URLs are plain words). */
function pasted(line: string): string[] {
  const [program, ...args] = line.split(' ');
  expect(program).toBe('a2a-temporal');
  return args;
}
