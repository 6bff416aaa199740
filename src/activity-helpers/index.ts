/**
 * `a2a-temporal/activity`: helpers for activities, where an agent's I/O runs (Node).
 *
 * @example
 * import { withHeartbeats } from 'a2a-temporal/activity';
 *
 * export async function fetchReport(url: string): Promise<string> {
 *   // Heartbeats while the work runs, so a canceled task stops this fetch within a heartbeat.
 *   return withHeartbeats(async (signal) => (await fetch(url, { signal })).text());
 * }
 *
 * @module a2a-temporal/activity
 */
export { sleepUnlessAborted, withHeartbeats } from './heartbeat.js';
