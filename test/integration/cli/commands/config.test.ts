/** `a2a-temporal config` and the settings every command reads: run as a user runs the CLI, in its own process. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../support/cli-process.js';

const JWT_SECRET = 'a-jwt-secret-that-is-long-enough-0123456789';
const WEBHOOK = 'https://hooks.slack.com/services/T000/B000/WEBHOOKSECRET';

interface Shown {
  name: string;
  value: string;
  source: string;
}

describe('a2a-temporal config', () => {
  it('prints each setting with its source, secrets masked', async () => {
    const run = await runCli(['config', 'examples', '--json'], {
      A2A_JWT_SECRET: JWT_SECRET,
      A2A_SLACK_WEBHOOK_URL: WEBHOOK,
      TEMPORAL_NAMESPACE: 'agents',
      A2A_TASK_QUEUE: '',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(JWT_SECRET);
    expect(run.stdout).not.toContain('WEBHOOKSECRET');
    const shown = new Map((JSON.parse(run.stdout) as { settings: Shown[] }).settings.map((s) => [s.name, s]));
    expect(shown.get('A2A_JWT_SECRET')).toEqual({ name: 'A2A_JWT_SECRET', group: 'auth', value: '***', source: 'env' });
    expect(shown.get('A2A_SLACK_WEBHOOK_URL')).toMatchObject({ value: 'webhook at hooks.slack.com', source: 'env' });
    expect(shown.get('TEMPORAL_NAMESPACE')).toMatchObject({ value: 'agents', source: 'env' });
    expect(shown.get('A2A_NEW_TASKS_PER_MINUTE')).toMatchObject({ value: '120', source: 'default' });
    // The variables the CLI itself reads are settings like the others.
    expect(shown.get('A2A_TRANSPORT')).toMatchObject({ value: 'jsonrpc', source: 'default' });
    expect(shown.has('A2A_RESPONDER')).toBe(true);
  });

  it('names the source of a value the project config gives', async () => {
    const run = await runCli(['config', 'test/fixtures/configs/good', '--json'], { A2A_TASK_QUEUE: '' });
    expect(run.code).toBe(0);
    const settings = (JSON.parse(run.stdout) as { settings: Shown[] }).settings;
    expect(settings.find((s) => s.name === 'A2A_TASK_QUEUE')).toMatchObject({ source: 'project config' });
  });

  it('exits 1 naming a variable whose value is wrong', async () => {
    const run = await runCli(['config'], { A2A_NEW_TASKS_PER_MINUTE: 'many' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('A2A_NEW_TASKS_PER_MINUTE must be a positive number (got "many")');
  });
});

describe('a wrong setting', () => {
  it('stops the gateway command with exit 1, naming the variable', async () => {
    const run = await runCli(['gateway', 'examples/a2a-temporal.config.ts'], {
      PORT: 'abc',
      GRPC_PORT: 'off',
      A2A_AUTH: 'none',
    });
    expect(run.stderr).toContain('error: PORT must be a port number (0 to 65535) (got "abc")');
    expect(run.code).toBe(1);
  });
});
