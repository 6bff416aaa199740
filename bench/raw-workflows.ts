/**
 * The raw-Temporal floor: the smallest workflows that do what an A2A path does, with no project code.
 * Bundled on its own (bench/raw-worker.ts) and run on its own task queue.
 */
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

/** Returns its argument; the workflow then completes (echo agent: one message in, answer, done). */
export const echoUpdate = defineUpdate<string, [string]>('echo');
/** Answers at once; the workflow then waits (a task that has asked its question). */
export const armUpdate = defineUpdate<string, [string]>('arm');
/** Resolves the wait and returns its argument; the workflow then completes (a human's reply). */
export const resumeUpdate = defineUpdate<string, [string]>('resume');

export async function rawEcho(): Promise<void> {
  let answered = false;
  setHandler(echoUpdate, (text) => {
    answered = true;
    return text;
  });
  await condition(() => answered);
}

export async function rawWaiting(): Promise<string> {
  let reply: string | undefined;
  setHandler(armUpdate, (text) => text);
  setHandler(resumeUpdate, (text) => {
    reply = text;
    return text;
  });
  await condition(() => reply !== undefined);
  return reply!;
}
