import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../support/temp-dirs.js';
import { COMMANDS } from '../../../src/cli/spec.js';
import { helpFor } from '../../../src/cli/help.js';
import { run } from '../../../src/cli/run.js';
import type { Io } from '../../../src/cli/io.js';

function captureIo(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), env, now: () => new Date() };
  return { io, out, err };
}

const temp = useTempDirs();

/** Nothing listens on port 9 (discard) here: connections are refused at once. */
const DEAD_GATEWAY = 'http://127.0.0.1:9';

describe('run', () => {
  it('prints help with the exit codes, exit 0', async () => {
    const { io, out } = captureIo();
    expect(await run(['--help'], io)).toBe(0);
    expect(out.join('\n')).toMatch(/Exit codes:[\s\S]*4 {2}send\/reply: the task ended failed/);
  });

  it('has help for every command', () => {
    for (const command of COMMANDS) {
      const text = helpFor(command.id);
      expect(text).toContain(`Usage: a2a-temporal ${command.usage}`);
      expect(text).toContain('--help');
      expect(text).toContain('Exit codes:');
    }
    expect(helpFor('tasks')).toContain('tasks reply ID');
  });

  it('exits 1 on usage errors, on stderr', async () => {
    const { io, out, err } = captureIo();
    expect(await run(['frobnicate'], io)).toBe(1);
    expect(out).toEqual([]);
    expect(err[0]).toMatch(/^error: Unknown command "frobnicate"/);
  });

  it('exits 1 on a wrong setting, wherever it is read (a short answer-link secret, read as the gateway starts)', async () => {
    const { io, err } = captureIo({ A2A_AUTH: 'none', A2A_APPROVAL_LINK_SECRET: 'short' });
    expect(await run(['gateway', 'examples/a2a-temporal.config.ts'], io)).toBe(1);
    expect(err[0]).toBe('error: A2A_APPROVAL_LINK_SECRET must be at least 32 bytes (e.g. `openssl rand -base64 48`)');
  });

  it('exits 2 when the gateway is down, with JSON on stdout in --json mode', async () => {
    const { io, out, err } = captureIo({ A2A_URL: DEAD_GATEWAY });
    expect(await run(['tasks', 'show', 't1', '--json'], io)).toBe(2);
    expect(err[0]).toBe(`error: Cannot reach the gateway at ${DEAD_GATEWAY}: is it running? (npm start)`);
    expect(JSON.parse(out[0]!)).toEqual({ error: { exitCode: 2, message: expect.stringContaining('Cannot reach') } });
  });

  it('names the npm script that starts the gateway: npm run dev in a project made by init', async () => {
    const project = temp.make('a2a-init-');
    expect(await run(['init', project], captureIo().io)).toBe(0);
    const started = process.cwd();
    try {
      // Outside any project, the command itself (through npx when the tests run under npm).
      for (const [dir, hint] of [
        [project, /\(npm run dev\)$/],
        [temp.make('a2a-no-project-'), /\((npx )?a2a-temporal dev\)$/],
      ] as const) {
        process.chdir(dir);
        const { io, err } = captureIo({ A2A_URL: DEAD_GATEWAY });
        expect(await run(['tasks', 'show', 't1'], io)).toBe(2);
        expect(err[0]).toContain(`error: Cannot reach the gateway at ${DEAD_GATEWAY}: is it running? (`);
        expect(err[0]).toMatch(hint);
      }
    } finally {
      process.chdir(started);
    }
  });
});
