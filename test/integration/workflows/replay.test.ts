/**
 * Deploy safety: histories recorded from earlier versions of the workflow must replay on the
 * current code without nondeterminism. Record new ones with `npx tsx scripts/record-histories.ts vN`
 * (keep the old ones); guard behaviour changes with `patched()`.
 */
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { workflowBundle } from '../../support/worker.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/histories/', import.meta.url));
const files = readdirSync(FIXTURES).filter((file) => file.endsWith('.json'));

describe('replay of recorded histories', () => {
  it('has fixtures to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
  });

  it.each(files)('%s replays without nondeterminism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(FIXTURES + file, 'utf8')));
    // A history does not hold its workflow ID; a task's (which a Schedule's run reads its task ID from) has the prefix.
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowIdForTask(file));
  });
});
