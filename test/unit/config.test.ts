/** Loading a project's config: paths resolve against the config file, and every mistake says what to do. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs();

const CONFIGS = fileURLToPath(new URL('../fixtures/configs/', import.meta.url));

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
});
