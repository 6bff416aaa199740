/** The `dev` warning about waiting tasks a save breaks: its commands are ones the user can paste. */
import { describe, expect, it } from 'vitest';
import type { ServeReady } from '../../../src/dev/serve-process.js';
import { describeBrokenTasks } from '../../../src/dev/waiting-tasks-check.js';

const check = {
  replayed: 1,
  waiting: 1,
  agents: ['approval'],
  broken: [
    { taskId: 't1', workflowId: 'a2a-task-t1', agent: 'approval', state: 'input-required' as const, divergence: 'x' },
  ],
  durationMs: 100,
};
const previous = { temporalAddress: '127.0.0.1:7233', namespace: 'default' } as ServeReady;

describe('the dev warning about broken waiting tasks', () => {
  it('names the Temporal CLI dev runs, by its full path when PATH does not have it', () => {
    const warning = describeBrokenTasks(check, 100, { previous, temporalCli: '/work/p/.tools/temporal/bin/temporal' });
    expect(warning).toContain(
      '/work/p/.tools/temporal/bin/temporal workflow terminate --address 127.0.0.1:7233 --namespace default --workflow-id a2a-task-t1',
    );
    expect(describeBrokenTasks(check, 100, { previous, temporalCli: 'temporal' })).toMatch(
      /\n {6}temporal workflow terminate --address/,
    );
  });

  it('offers the UI and the database, not a CLI, when dev runs the SDK-downloaded one', () => {
    const warning = describeBrokenTasks(check, 100, { previous, uiUrl: 'http://127.0.0.1:8233', dbFile: '.data/t.db' });
    expect(warning).not.toContain('workflow terminate');
    expect(warning).toContain('in the Temporal UI (http://127.0.0.1:8233');
    expect(warning).toContain('delete .data/t.db');
  });
});
