/** Temporal connection settings come from Temporal's envconfig: standard variables, profiles, and our task queue. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalSettings } from '../../../src/temporal/connection.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { readSettings } from '../../../src/config/settings.js';

const temp = useTempDirs();

describe('temporalSettings', () => {
  it('defaults to a local server, the default namespace and the a2a-temporal queue', () => {
    const settings = temporalSettings(readSettings({ TEMPORAL_CONFIG_FILE: '/nonexistent.toml' }));
    expect(settings).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'a2a-temporal' });
    expect(settings.connection.tls).toBeUndefined();
  });

  it('reads the standard variables; an API key turns TLS on; A2A_TASK_QUEUE beats the config', () => {
    const settings = temporalSettings(
      readSettings({
        TEMPORAL_CONFIG_FILE: '/nonexistent.toml',
        TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'ns.acct',
        TEMPORAL_API_KEY: 'secret',
        A2A_TASK_QUEUE: 'from-env',
      }),
      { taskQueue: 'from-config' },
    );
    expect(settings).toMatchObject({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      taskQueue: 'from-env',
    });
    expect(settings.connection).toMatchObject({ apiKey: 'secret', tls: true });
    expect(
      temporalSettings(readSettings({ TEMPORAL_CONFIG_FILE: '/nonexistent.toml' }), { taskQueue: 'q' }).taskQueue,
    ).toBe('q');
  });

  it('reads a profile from a Temporal config file, and variables win over it', () => {
    const file = join(temp.make('a2a-envconfig-'), 'temporal.toml');
    writeFileSync(file, '[profile.staging]\naddress = "staging.internal:7233"\nnamespace = "agents"\n');
    const env = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' };
    expect(temporalSettings(readSettings(env))).toMatchObject({
      address: 'staging.internal:7233',
      namespace: 'agents',
    });
    expect(temporalSettings(readSettings({ ...env, TEMPORAL_NAMESPACE: 'override' })).namespace).toBe('override');
  });
});
