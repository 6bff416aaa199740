/**
 * The raw-Temporal floor: the smallest workflows that do what an A2A path does, with no project code.
 * Bundled on its own (bench/raw-worker.ts) and run on its own task queue.
 *
 * The "recorded" pair also writes what a2a-temporal's task workflow writes to Temporal for the same
 * path (histories of the echo and expense-approval agents): a patch marker, the task state and the
 * list's fields as search attributes, the summary and final events as memo, the question's deadline
 * as a timer, payloads of the same sizes. Still no project code: the gap between it and the project
 * is the gateway and the task workflow's own work; the gap between it and the smallest workflow is
 * what Temporal charges for those records.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import {
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type * as rawActivities from './raw-activities.js';

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

/**
 * Payload sizes (bytes) in the project's histories: `message`, what a client's message makes of the
 * update's argument (bench/raw.ts sends one that long).
 */
export const RECORDED_BYTES = {
  echo: { message: 165, answer: 1_600, summary: 450, events: 415, result: 1_040 },
  hitl: { message: 128, asked: 620, summary: 700, answer: 3_430, finalSummary: 1_670, finalEvents: 455, result: 2_460 },
} as const;

// The gateway's search attributes (registered on the bench's dev server); raw workflows' agent is
// none of the project's, so they never show in its lists.
const STATE = defineSearchAttributeKey('A2ATaskState', SearchAttributeType.KEYWORD);
const CONTEXT = defineSearchAttributeKey('A2AContextId', SearchAttributeType.KEYWORD);
const AGENT = defineSearchAttributeKey('A2AAgent', SearchAttributeType.KEYWORD);
const DEADLINE = defineSearchAttributeKey('A2AInputDeadline', SearchAttributeType.DATETIME);

function filler(bytes: number): string {
  return 'x'.repeat(bytes);
}

/** One activation's records: the state and list fields, then the memo (one upsert each, as the project's). */
function record(state: string, memo: Record<string, number>, deadline: Date | null = null): void {
  upsertSearchAttributes([
    { key: STATE, value: state },
    { key: CONTEXT, value: 'raw-context-00000000-0000-0000-0000-000000000000' },
    { key: AGENT, value: 'raw' },
    { key: DEADLINE, value: deadline },
  ]);
  upsertMemo(Object.fromEntries(Object.entries(memo).map(([key, bytes]) => [key, filler(bytes)])));
}

export async function rawEchoRecorded(): Promise<string> {
  const { echo } = RECORDED_BYTES;
  patched('raw-release');
  let answered = false;
  setHandler(echoUpdate, () => {
    answered = true;
    record('completed', { summary: echo.summary, events: echo.events });
    return filler(echo.answer);
  });
  await condition(() => answered);
  return filler(echo.result);
}

export async function rawWaitingRecorded(): Promise<string> {
  const { hitl } = RECORDED_BYTES;
  patched('raw-release');
  let asked = false;
  let replied = false;
  let settled = false;
  setHandler(armUpdate, () => {
    asked = true;
    return filler(hitl.asked);
  });
  setHandler(resumeUpdate, async () => {
    replied = true;
    await condition(() => settled);
    return filler(hitl.answer);
  });
  await condition(() => asked);
  const deadline = new Date(Date.now() + 24 * 3_600_000);
  record('input-required', { summary: hitl.summary }, deadline);
  await condition(() => replied, '1 day');
  record('completed', { summary: hitl.finalSummary, events: hitl.finalEvents });
  settled = true;
  return filler(hitl.result);
}

/**
 * A history to build before waiting (path 8): `steps` activities whose results are `stepBytes` long
 * each; after the reply, `afterSteps` more before the workflow completes.
 */
export interface StepsPlan {
  steps: number;
  stepBytes: number;
  afterSteps: number;
}

const { rawStep } = proxyActivities<typeof rawActivities>({ startToCloseTimeout: '1 minute' });

/**
 * The floor of a cold resume (path 8): a workflow whose history is as long as a project task's when
 * it waits (one activity per step, results of the same total size), answered by one update. The
 * start's update returns once the steps are done and the workflow waits, as a blocking SendMessage
 * returns at input-required; the reply's update returns once the workflow has done its last steps,
 * as a blocking reply returns once the task completed.
 */
export async function rawStepsWaiting(plan: StepsPlan): Promise<string> {
  let ready = false;
  let reply: string | undefined;
  let done = false;
  setHandler(armUpdate, async (text) => {
    await condition(() => ready);
    return text;
  });
  setHandler(resumeUpdate, async (text) => {
    reply = text;
    await condition(() => done);
    return text;
  });
  for (let step = 0; step < plan.steps; step++) await rawStep(plan.stepBytes);
  ready = true;
  await condition(() => reply !== undefined);
  for (let step = 0; step < plan.afterSteps; step++) await rawStep(plan.stepBytes);
  done = true;
  return reply!;
}
