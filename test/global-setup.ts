/**
 * One Temporal dev server per test run, with this product's search attributes registered.
 * Continue-as-new is suggested early (after 120 history events) so long conversations exercise it.
 */
import type { TestProject } from 'vitest/node';
import { startDevServer, type DevServer } from '../src/temporal/dev-server.js';

export const SUGGEST_CONTINUE_AS_NEW_AFTER = 120;

let server: DevServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startDevServer({
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': SUGGEST_CONTINUE_AS_NEW_AFTER },
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
