/** The dev stack refuses ports that are taken instead of silently using whatever server holds them, and reloads on code and config changes only. */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startDevStack, watchProjectFiles } from '../../../src/dev/dev-stack.js';
import { freePort } from '../../../src/temporal/dev-server.js';
import { readSettings } from '../../../src/config/settings.js';

describe('a2a-temporal dev', () => {
  it('refuses a Temporal port that is already in use, and says what to do', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const env = { TEMPORAL_PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()) };
      await expect(
        startDevStack({ config: 'examples', env, settings: readSettings(env), print: () => {} }),
      ).rejects.toThrow(
        new RegExp(`Port ${port} \\(TEMPORAL_PORT\\) is in use.*TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port}`),
      );
    } finally {
      taken.close();
    }
  });
});

describe('a2a-temporal dev reloads', () => {
  it('on changes to source and config files only, not on a log written into the project', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-dev-watch-'));
    mkdirSync(join(dir, 'src'));
    const seen: string[] = [];
    const watcher = watchProjectFiles(dir);
    watcher.on('all', (_event, path) => seen.push(relative(dir, path)));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    try {
      // A log written and appended to, as a worker logging into its project folder does.
      writeFileSync(join(dir, 'worker.log'), 'started\n');
      appendFileSync(join(dir, 'worker.log'), 'more\n');
      writeFileSync(join(dir, 'src', 'notes.txt'), 'x');
      await sleep(500);
      expect(seen).toEqual([]);
      writeFileSync(join(dir, 'src', 'agents.ts'), 'export default [];\n');
      writeFileSync(join(dir, 'a2a-temporal.config.ts'), 'export default {};\n');
      writeFileSync(join(dir, 'approvers.json'), '{}\n');
      await expect
        .poll(() => [...new Set(seen)].sort())
        .toEqual(['a2a-temporal.config.ts', 'approvers.json', join('src', 'agents.ts')]);
    } finally {
      await watcher.close();
    }
  });
});
