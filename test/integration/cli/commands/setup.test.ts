/** `a2a-temporal setup` against a real namespace: adds what is missing, and is safe to run again. */
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../../../src/protocol/search-attributes.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

async function setup(namespace: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/a2a-temporal.js', 'setup', '--namespace', namespace, '--address', inject('temporalAddress')],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
  );
  return stdout;
}

describe('a2a-temporal setup', () => {
  it('registers the search attributes on a new namespace, idempotently', { timeout: 60_000 }, async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const namespace = `setup-${randomUUID().slice(0, 8)}`;
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
      // A worker refuses such a namespace, saying what to run: its tasks would fail every workflow task.
      const refused = await promisify(execFile)(
        process.execPath,
        ['bin/a2a-temporal.js', 'worker', 'examples/a2a-temporal.config.ts'],
        {
          cwd: ROOT,
          env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: namespace },
        },
      ).then(
        () => undefined,
        (error: { code?: number; stderr?: string; stdout?: string }) => error,
      );
      expect(refused?.code).not.toBe(0);
      expect(`${refused?.stderr}${refused?.stdout}`).toMatch(
        /A2AResponders.* are not registered .*run `a2a-temporal setup`/,
      );
      const first = await setup(namespace);
      expect(first.match(/added/g)).toHaveLength(SEARCH_ATTRIBUTE_DEFINITIONS.length);
      const second = await setup(namespace);
      expect(second).not.toMatch(/added/);
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      for (const { name } of SEARCH_ATTRIBUTE_DEFINITIONS) expect(customAttributes).toHaveProperty(name);
    } finally {
      await connection.close();
    }
  });

  it(
    'a worker that cannot reach Temporal says so in one line (exit 2), as setup does',
    { timeout: 60_000 },
    async () => {
      const failed = await promisify(execFile)(
        process.execPath,
        ['bin/a2a-temporal.js', 'worker', 'examples/a2a-temporal.config.ts'],
        // Nothing listens on port 9 (discard): the connection is refused.
        { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9', NO_COLOR: '1' } },
      ).then(
        () => undefined,
        (error: { code?: number; stderr?: string; stdout?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr?.trim().split('\n')).toEqual([
        'error: Cannot reach Temporal at 127.0.0.1:9 (namespace default): is it running? Set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE). (Connection refused)',
      ]);
    },
  );
});
