/**
 * One Temporal dev server per test run, with this product's search attributes registered.
 * Continue-as-new is suggested early (after 120 history events) so long conversations exercise it.
 * Test files share its one namespace, and a burst in one (test/integration/fault/load.test.ts starts 500 tasks
 * at once) must not take another's share of its limit on concurrent long polls (1,200 by default):
 * the limit is raised. test/integration/gateway/resilience.test.ts meets Temporal's limits on a server of its own.
 */
import type { TestProject } from 'vitest/node';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';

export const SUGGEST_CONTINUE_AS_NEW_AFTER = 120;
const CONCURRENT_LONG_POLLS = 10_000;

let server: DevServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startDevServer({
    dynamicConfig: {
      'limit.historyCount.suggestContinueAsNew': SUGGEST_CONTINUE_AS_NEW_AFTER,
      'frontend.namespaceCount': CONCURRENT_LONG_POLLS,
    },
  });
  project.provide('temporalAddress', server.address);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}
