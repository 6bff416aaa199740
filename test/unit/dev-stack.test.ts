/** The dev stack refuses ports that are taken instead of silently using whatever server holds them. */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startDevStack } from '../../src/dev/dev-stack.js';
import { freePort } from '../../src/temporal/dev-server.js';

describe('a2a-temporal dev', () => {
  it('refuses a Temporal port that is already in use, and says what to do', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const env = { TEMPORAL_PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()) };
      await expect(startDevStack({ config: 'examples', env, print: () => {} })).rejects.toThrow(
        new RegExp(`Port ${port} \\(TEMPORAL_PORT\\) is in use.*TEMPORAL_ADDRESS=127\\.0\\.0\\.1:${port}`),
      );
    } finally {
      taken.close();
    }
  });
});
