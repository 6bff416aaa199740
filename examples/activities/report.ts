/** Activities of the long-report agent: slow, heartbeating, cancellable work. */
import { sleepUnlessAborted, withHeartbeats } from 'a2a-temporal/activity';

/** Writes one section of a report, taking `ms` of (simulated) work that stops at once when canceled. */
export async function writeReportSection(topic: string, index: number, ms: number): Promise<string> {
  return withHeartbeats(async (signal) => {
    await sleepUnlessAborted(ms, signal);
    return `Section ${index + 1} of the report on ${topic}.\n`;
  });
}
