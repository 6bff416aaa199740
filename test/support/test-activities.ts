/** Activities only the tests register: they let a test see what an activity saw. */
import { Context } from '@temporalio/activity';
import { sleepUnlessAborted, withHeartbeats } from '../../src/activity-helpers/index.js';

/** Task IDs whose `waitForAbort` activity saw the cancellation. Same process as the test worker. */
export const abortedActivities = new Set<string>();

/** Runs until canceled (or `ms` passes), heartbeating; records the abort it sees. */
export async function waitForAbort(taskId: string, ms: number): Promise<string> {
  return withHeartbeats(
    async (signal) => {
      try {
        await sleepUnlessAborted(ms, signal);
        return 'finished';
      } catch (error) {
        if (signal.aborted) abortedActivities.add(taskId);
        throw error;
      }
    },
    { intervalMs: 200 },
  );
}

/** Orders the LLM test agent placed, in this process (same process as the test worker). */
export const placedOrders: { item: string; quantity: number; total: number }[] = [];

/** The items whose price was looked up, one entry per run of the activity. */
export const priceLookups: string[] = [];
export async function testLookupPrice(args: { item: string }): Promise<{ item: string; unitPrice: number }> {
  priceLookups.push(args.item);
  return { item: args.item, unitPrice: 150 };
}

export async function testPlaceOrder(order: { item: string; quantity: number; total: number }): Promise<string> {
  placedOrders.push(order);
  return `order-${placedOrders.length}`;
}

/** A tool that always fails (retryably): its last failure should reach the model. */
export const brokenToolCalls: string[] = [];
export async function testBrokenTool(args: { key: string }): Promise<string> {
  brokenToolCalls.push(args.key);
  throw new Error(`the warehouse is unreachable (${args.key})`);
}

/** A tool whose output is far over the size an LLM conversation keeps. */
export async function testReadLog(): Promise<string> {
  return 'x'.repeat(50_000);
}

/** A tool that runs until canceled; records the abort it sees under `key`. */
export async function testWaitTool(args: { key: string }): Promise<string> {
  const signal = Context.current().cancellationSignal;
  try {
    await sleepUnlessAborted(60_000, signal);
    return 'waited';
  } catch (error) {
    if (signal.aborted) abortedActivities.add(args.key);
    throw error;
  }
}

/** Fails its first two attempts (as a service that is down for a moment), then answers. */
export async function flakyStep(): Promise<string> {
  const { attempt } = Context.current().info;
  if (attempt < 3) throw new Error(`upstream timeout on attempt ${attempt}`);
  return `done on attempt ${attempt}`;
}
