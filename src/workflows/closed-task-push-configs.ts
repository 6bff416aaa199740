/**
 * Push configs created after a task's workflow closed. A closed workflow takes no Updates, yet A2A
 * lets clients manage configs of finished tasks (they will never be notified: nothing happens to a
 * finished task any more). This small workflow, one per such task, keeps them readable for a while.
 */
import { condition, setHandler } from '@temporalio/workflow';
import { deletePushConfigUpdate, pushConfigsQuery, setPushConfigUpdate, type PushConfig } from '../protocol/push.js';

/** How long the configs of a finished task stay readable. */
const KEPT_FOR = '7 days';

export async function a2aClosedTaskPushConfigs(): Promise<void> {
  let configs: PushConfig[] = [];
  setHandler(setPushConfigUpdate, ({ config }) => {
    configs = [...configs.filter((c) => c.id !== config.id), config];
    return config;
  });
  setHandler(deletePushConfigUpdate, ({ id }) => {
    configs = configs.filter((c) => c.id !== id);
  });
  setHandler(pushConfigsQuery, () => configs.map((config) => ({ ...config, delivered: 0 })));
  await condition(() => false, KEPT_FOR);
}
