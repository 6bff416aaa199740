/**
 * The gateway command checks its settings before it serves (src/gateway/config.ts): a mistake stops it
 * at start with a usage exit and words that say what to set. The product's own command as a child
 * process, so it runs with the integration tests (the unit tests start no process).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the gateway command at start', () => {
  it('stops when email answer links are on without an approver directory, saying what to set', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', GRPC_PORT: 'off', A2A_AUTH: 'none' };
    env.A2A_APPROVAL_LINK_SECRET = 'a'.repeat(32);
    delete env.A2A_APPROVER_DIRECTORY;
    const child = spawn(process.execPath, ['bin/a2a-temporal.js', 'gateway', 'examples/a2a-temporal.config.ts'], {
      cwd: ROOT,
      env,
    });
    // A gateway that starts anyway is stopped, and fails the test.
    const started = setTimeout(() => child.kill(), 20_000);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(started);
    expect(stderr).toContain(
      'A2A_APPROVAL_LINK_SECRET is set (one-click answers in emails), but no approver directory is: name the ' +
        "workers' one, approvals.directory in the project config or A2A_APPROVER_DIRECTORY",
    );
    expect(code).toBe(1);
  });
});
