/**
 * The inbox's page URLs at a real gateway, without a browser: the two pages answer, and odd paths
 * that Express's loose routing (trailing slash, any case, doubled slash) would match to them are
 * 404, not an internal error, and leave no error in the log.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../../../src/logging.js';
import { useGatewayHarness } from '../../../support/gateway-harness.js';

const harness = useGatewayHarness();

afterEach(() => {
  vi.restoreAllMocks();
});

async function statusOf(path: string): Promise<number> {
  const response = await fetch(`${harness.gateway.url}${path}`, { redirect: 'manual' });
  await response.arrayBuffer();
  return response.status;
}

describe('inbox page URLs', () => {
  it('serve the two pages, and answer 404 without logging an error for paths that name no page', async () => {
    const errors = [vi.spyOn(logger, 'error'), vi.spyOn(logger, 'fatal')];
    expect(await statusOf('/inbox')).toBe(301);
    expect(await statusOf('/inbox/')).toBe(200);
    expect(await statusOf('/inbox/task?agent=echo&id=1')).toBe(200);
    const odd = ['/inbox/task/', '/inbox//', '/inbox/TASK', '/inbox/Task/?agent=echo', '/inbox///', '/inbox//task'];
    const statuses = await Promise.all(odd.map(async (path) => [path, await statusOf(path)]));
    expect(Object.fromEntries(statuses)).toEqual(Object.fromEntries(odd.map((path) => [path, 404])));
    for (const spy of errors) expect(spy).not.toHaveBeenCalled();
  });
});
