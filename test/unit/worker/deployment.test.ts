/** Worker Versioning settings: from the environment over the config, and the mistakes said plainly. */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../../src/index.js';
import {
  setCurrentVersionCommand,
  workerDeploymentFrom,
  workerDeploymentOptions,
} from '../../../src/worker/deployment.js';
import type { AgentVersioning } from '../../../src/protocol/versioning.js';
import { readSettings } from '../../../src/config/settings.js';

describe('the worker deployment', () => {
  it('is off unless a deployment is named', () => {
    expect(workerDeploymentFrom(readSettings({}))).toBeUndefined();
    expect(workerDeploymentFrom(readSettings({}), { defaultVersioning: 'pinned' })).toBeUndefined();
  });

  it('takes the environment over the config, and defaults agents to pinned', () => {
    const deployment = workerDeploymentFrom(readSettings({ A2A_WORKER_BUILD_ID: 'abc123' }), {
      name: 'shop-agents',
      buildId: 'from-config',
    });
    expect(deployment).toEqual({ name: 'shop-agents', buildId: 'abc123' });
    expect(workerDeploymentOptions(deployment!)).toEqual({
      useWorkerVersioning: true,
      version: { deploymentName: 'shop-agents', buildId: 'abc123' },
      defaultVersioningBehavior: 'PINNED',
    });
    const upgrading = workerDeploymentFrom(
      readSettings({
        A2A_WORKER_DEPLOYMENT: 'shop-agents',
        A2A_WORKER_BUILD_ID: 'v2',
        A2A_WORKER_VERSIONING: 'auto-upgrade',
      }),
    );
    expect(workerDeploymentOptions(upgrading!).defaultVersioningBehavior).toBe('AUTO_UPGRADE');
  });

  it('refuses half a version and unknown behaviours, saying what to set', () => {
    expect(() => workerDeploymentFrom(readSettings({ A2A_WORKER_DEPLOYMENT: 'shop' }))).toThrow(
      /set A2A_WORKER_BUILD_ID/,
    );
    expect(() => workerDeploymentFrom(readSettings({ A2A_WORKER_BUILD_ID: 'v1' }))).toThrow(
      /set A2A_WORKER_DEPLOYMENT/,
    );
    expect(() =>
      workerDeploymentFrom(
        readSettings({
          A2A_WORKER_DEPLOYMENT: 'shop',
          A2A_WORKER_BUILD_ID: 'v1',
          A2A_WORKER_VERSIONING: 'sticky',
        }),
      ),
    ).toThrow('A2A_WORKER_VERSIONING must be one of pinned, auto-upgrade (got "sticky")');
  });

  it("refuses an agent's unknown versioning", () => {
    const agent = { name: 'a', description: 'a', skills: [], run: async () => 'ok' };
    expect(defineAgent({ ...agent, versioning: 'auto-upgrade' }).versioning).toBe('auto-upgrade');
    expect(() => defineAgent({ ...agent, versioning: 'sticky' as AgentVersioning })).toThrow(
      `Agent "a": versioning must be one of 'pinned', 'auto-upgrade'`,
    );
  });

  it("hints a set-current-version command that runs without a prompt (the CLI's --yes)", () => {
    expect(setCurrentVersionCommand({ name: 'shop', buildId: 'v2' }, 'prod')).toBe(
      'temporal worker deployment set-current-version --namespace prod --deployment-name shop --build-id v2 --yes',
    );
  });
});
