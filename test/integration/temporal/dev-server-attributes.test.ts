/**
 * The dev server registers the search attributes a release added in a database file made by an
 * earlier release (its `--search-attribute` flags only do so in a new file): tasks would fail
 * writing them otherwise (BadSearchAttributes), as `npm start` on an old `.data/temporal.db` did.
 */
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ASKED_AT_ATTRIBUTE } from '../../../src/protocol/search-attributes.js';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server.js';
import { useTempDirs } from '../../support/temp-dirs.js';

const temp = useTempDirs();

async function attributesOf(server: DevServer): Promise<string[]> {
  const connection = await Connection.connect({ address: server.address });
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace: server.namespace });
    return Object.keys(listed.customAttributes ?? {});
  } finally {
    await connection.close();
  }
}

describe('the dev server on an existing database file', () => {
  it('adds the search attributes the file lacks', async () => {
    const dbFile = join(temp.make('a2a-dev-attributes-'), 'temporal.db');
    const first = await startDevServer({ dbFile });
    try {
      // The file as an earlier release left it: without an attribute added since.
      const connection = await Connection.connect({ address: first.address });
      try {
        await connection.operatorService.removeSearchAttributes({
          namespace: first.namespace,
          searchAttributes: [ASKED_AT_ATTRIBUTE.name],
        });
      } finally {
        await connection.close();
      }
      expect(await attributesOf(first)).not.toContain(ASKED_AT_ATTRIBUTE.name);
    } finally {
      await first.stop();
    }
    const second = await startDevServer({ dbFile });
    try {
      expect(await attributesOf(second)).toContain(ASKED_AT_ATTRIBUTE.name);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
