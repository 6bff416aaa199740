/** Loading a project's config: paths resolve against the config file, and every mistake says what to do. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { ConfigError } from '../../../src/config/config-error.js';

const temp = useTempDirs();

const CONFIGS = fileURLToPath(new URL('../../fixtures/configs/', import.meta.url));

describe('loadConfig', () => {
  it('finds the config in a folder and reads the agents in their order, with the task queue and default agent', async () => {
    const config = await loadConfig(join(CONFIGS, 'good'));
    expect(config.file).toBe(join(CONFIGS, 'good/a2a-temporal.config.ts'));
    expect(config.agentsModule).toBe(join(CONFIGS, 'good/agents/index.ts'));
    expect(config.agents.map((agent) => agent.name)).toEqual(['first', 'second']);
    expect(config).toMatchObject({ taskQueue: 'fixture-queue', defaultAgent: 'second' });
    expect(await config.loadActivities()).toEqual({});
  });

  it('says how to start when there is no config', async () => {
    const empty = temp.make('a2a-config-');
    await expect(loadConfig(undefined, empty)).rejects.toThrow(/No a2a-temporal\.config\.ts in .*a2a-temporal init/);
    await expect(loadConfig('missing.config.ts', empty)).rejects.toBeInstanceOf(ConfigError);
  });

  it.each([
    ['no-default', /has no default export\. Export your agents: `export default \[myAgent\]`/],
    ['duplicate', /two agents are named "twin"/],
    ['unknown-default', /defaultAgent "third" is not one of the agents \(first, second\)/],
  ])('%s: refuses with a reason', async (fixture, reason) => {
    await expect(loadConfig(join(CONFIGS, fixture))).rejects.toThrow(reason);
  });

  it('reads remoteAgents, and names the field of each mistake in it', async () => {
    const dir = temp.make('a2a-config-');
    let configs = 0;
    // A file of its own each time: Node keeps the module it imported first.
    const load = (remoteAgents: unknown) => {
      const file = join(dir, `a2a-temporal.config.${++configs}.ts`);
      writeFileSync(
        file,
        `export default ${JSON.stringify({ agents: join(CONFIGS, 'good/agents/index.ts'), remoteAgents })};\n`,
      );
      return loadConfig(file);
    };
    const supplier = { urlEnv: 'SUPPLIER_URL', credentials: { bearerTokenEnv: 'SUPPLIER_TOKEN' } };
    expect((await load({ supplier })).remoteAgents).toEqual({ supplier });
    await expect(load({ supplier: { url: 'ftp://supplier.example.com' } })).rejects.toThrow(
      /remoteAgents\.supplier\.url: must be an http: or https: URL/,
    );
    await expect(load({ supplier: {} })).rejects.toThrow(/remoteAgents\.supplier: give exactly one of url and urlEnv/);
    await expect(load({ 'https://x': { url: 'https://x' } })).rejects.toThrow(
      /remoteAgents\.https:\/\/x: is not a name/,
    );
    await expect(load({ supplier: { urlEnv: 'S', credentials: { token: 'secret' } } })).rejects.toThrow(
      /remoteAgents\.supplier\.credentials: must be \{ bearerTokenEnv \} or \{ apiKeyEnv, header\? \}/,
    );
    const signed = { url: 'https://x', cardKeys: { jwksUrl: 'https://x/.well-known/jwks.json' } };
    expect((await load({ signed })).remoteAgents).toEqual({ signed });
    await expect(load({ signed: { url: 'https://x', cardKeys: { keys: [] } } })).rejects.toThrow(
      /remoteAgents\.signed\.cardKeys\.keys: must hold at least one public JWK/,
    );
    await expect(load({ signed: { url: 'https://x', cardKeys: { jwks: 'https://x' } } })).rejects.toThrow(
      /remoteAgents\.signed\.cardKeys: must be \{ jwksUrl \} or \{ keys: \[public JWKs\] \}/,
    );
  });
});

describe('loadConfig: schedules', () => {
  /** A config of the `good` fixture's agents (first, second) with these schedules. */
  function withSchedules(schedules: unknown[]): string {
    const dir = temp.make('a2a-schedules-');
    const agents = join(CONFIGS, 'good/agents/index.ts');
    writeFileSync(join(dir, 'a2a-temporal.config.mjs'), `export default ${JSON.stringify({ agents, schedules })};\n`);
    return dir;
  }
  const daily = { id: 'daily', agent: 'first', every: '1 day', message: 'Report', owner: 'alice' };

  it('reads them with their defaults', async () => {
    const config = await loadConfig(
      withSchedules([daily, { ...daily, id: 'weekly', every: undefined, cron: '0 9 * * MON' }]),
    );
    expect(config.schedules).toEqual([
      { ...daily, overlap: 'skip' },
      { id: 'weekly', agent: 'first', cron: '0 9 * * MON', message: 'Report', owner: 'alice', overlap: 'skip' },
    ]);
    expect((await loadConfig(join(CONFIGS, 'good'))).schedules).toEqual([]);
  });

  it.each([
    ['an unknown agent', { agent: 'third' }, /schedules\[0\]\.agent: is not one of the agents \(first, second\)/],
    [
      'both every and cron',
      { cron: '0 9 * * *' },
      /schedules\[0\]: give either `every` or `cron` \(exactly one of them\)/,
    ],
    ['neither every nor cron', { every: undefined }, /schedules\[0\]: give either `every` or `cron`/],
    [
      'a bad overlap',
      { overlap: 'sometimes' },
      /schedules\[0\]\.overlap: must be one of skip, buffer-one, buffer-all, cancel-other, terminate-other, allow-all/,
    ],
    ['a bad interval', { every: 'daily' }, /schedules\[0\]\.every: must be a duration of at least 1 second/],
    [
      'an interval under a second',
      { every: '500ms' },
      /schedules\[0\]\.every: must be a duration of at least 1 second/,
    ],
    ['an ID with a space', { id: 'daily report' }, /schedules\[0\]\.id: must be letters, digits/],
    ['no owner', { owner: undefined }, /schedules\[0\]\.owner: /],
    ['an unknown field', { ownr: 'bob' }, /schedules\[0\]: .*ownr/],
  ])('refuses %s, saying which schedule and field', async (_name, change, reason) => {
    await expect(loadConfig(withSchedules([{ ...daily, ...change }]))).rejects.toThrow(reason);
  });

  it('refuses two schedules with one ID', async () => {
    await expect(loadConfig(withSchedules([daily, daily]))).rejects.toThrow(
      /schedules: two schedules have the same id/,
    );
  });
});
