/**
 * Where new agent code parts from what a task recorded, in one sentence of the user's words: which
 * activity, question or `ctx.patched` check differs ("the new code runs activity `audit` before the
 * question `Approve?`; the task recorded the question first"), not Temporal's ("Activity machine
 * does not handle this event: HistoryEvent(id: 16, WorkflowPropertiesModified)").
 *
 * The recorded side is read from the task's history: activities scheduled, questions (the summary
 * memo upsert that shows a new `pendingQuestion`), patch markers, child workflows. The new side is
 * either the commands the new code made in a replay (the deploy check records them, see
 * made-calls-interceptors.ts), or, where only the failure is known (a blocked task), what Temporal's
 * nondeterminism message says of it: the kind of call, and for a changed activity or patch its name.
 * `check-deploy`, the `dev` warning and a blocked task's marker all say it with this module.
 */
import { isDeepStrictEqual } from 'node:util';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { SUMMARY_MEMO } from '../protocol/contract.js';
import { questionLine, type ListedQuestion } from '../protocol/question.js';
import type { WorkflowCommand } from './made-calls-interceptors.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A call of a task's code, as its author would name it. */
type Call =
  | { kind: 'activity'; name?: string }
  | { kind: 'question'; prompt?: string }
  | { kind: 'patch'; id: string }
  | { kind: 'child'; name?: string }
  | { kind: 'timer' }
  | { kind: 'end' }
  /** The task's state changed without a new question (a status, an artifact), or the kind is unknown. */
  | { kind: 'update' };

interface RecordedCall {
  call: Call;
  eventId: number;
}

/** The calls compared one by one with the new code's: the rest follow from them (timers, updates) or end the run. */
const COMPARED = new Set<Call['kind']>(['activity', 'question', 'patch', 'child']);

/**
 * The divergence in words, or undefined when there is none to tell: `failure` is Temporal's
 * nondeterminism message (undefined when the replay passed), `made` the new code's commands when a
 * replay recorded them.
 */
export function describeDivergence(
  events: readonly HistoryEvent[],
  failure: string | undefined,
  made?: readonly WorkflowCommand[],
): string | undefined {
  const recorded = recordedCalls(events);
  const found = (made && firstDifference(recorded, madeCalls(made))) ?? (failure && fromFailure(recorded, failure));
  if (!found) return undefined;
  return inWords(
    recorded.map((entry) => entry.call),
    found,
  );
}

interface Difference {
  /** The recorded call where the new code parts (recorded.length: after the last one). */
  index: number;
  /** What the new code does there; undefined when it makes no call. */
  made?: Call;
}

function recordedCalls(events: readonly HistoryEvent[]): RecordedCall[] {
  const questions = new QuestionTracker();
  const calls: RecordedCall[] = [];
  for (const event of events) {
    const call = recordedCall(event, questions);
    if (call) calls.push({ call, eventId: Number(event.eventId) });
  }
  return calls;
}

function recordedCall(event: HistoryEvent, questions: QuestionTracker): Call | undefined {
  const scheduled = event.activityTaskScheduledEventAttributes;
  if (scheduled) return { kind: 'activity', name: scheduled.activityType?.name ?? undefined };
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName === 'core_patch') {
    const patch = decode(marker.details?.['patch-data']?.payloads?.[0]) as { id?: string; deprecated?: boolean };
    // A deprecated patch needs no matching check in the code (Temporal skips it): not a call.
    return patch?.id && !patch.deprecated ? { kind: 'patch', id: patch.id } : undefined;
  }
  const modified = event.workflowPropertiesModifiedEventAttributes;
  if (modified) return questions.callOf(modified.upsertedMemo?.fields);
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
  if (child) return { kind: 'child', name: child.workflowType?.name ?? undefined };
  if (event.timerStartedEventAttributes) return { kind: 'timer' };
  if (
    event.workflowExecutionCompletedEventAttributes ||
    event.workflowExecutionFailedEventAttributes ||
    event.workflowExecutionContinuedAsNewEventAttributes
  ) {
    return { kind: 'end' };
  }
  return undefined;
}

/** The same calls of the commands the new code made. */
function madeCalls(commands: readonly WorkflowCommand[]): Call[] {
  const questions = new QuestionTracker();
  return commands.flatMap((command): Call[] => {
    if (command.scheduleActivity)
      return [{ kind: 'activity', name: command.scheduleActivity.activityType ?? undefined }];
    if (command.setPatchMarker?.patchId && !command.setPatchMarker.deprecated) {
      return [{ kind: 'patch', id: command.setPatchMarker.patchId }];
    }
    if (command.modifyWorkflowProperties)
      return [questions.callOf(command.modifyWorkflowProperties.upsertedMemo?.fields)];
    if (command.startChildWorkflowExecution) {
      return [{ kind: 'child', name: command.startChildWorkflowExecution.workflowType ?? undefined }];
    }
    if (command.startTimer) return [{ kind: 'timer' }];
    if (command.completeWorkflowExecution || command.failWorkflowExecution || command.continueAsNewWorkflowExecution) {
      return [{ kind: 'end' }];
    }
    return [];
  });
}

/**
 * Tells a memo upsert that asks a new question (the summary's `pendingQuestion`, asked at another
 * time than the last) from one that only updates the task.
 */
class QuestionTracker {
  private askedAt?: string;

  callOf(fields: Record<string, Payload> | null | undefined): Call {
    const summary = decode(fields?.[SUMMARY_MEMO]) as
      { metadata?: { pendingQuestion?: Partial<ListedQuestion> } } | undefined;
    const question = summary?.metadata?.pendingQuestion;
    if (!question?.askedAt || question.askedAt === this.askedAt) return { kind: 'update' };
    this.askedAt = question.askedAt;
    return { kind: 'question', prompt: question.prompt };
  }
}

function decode(payload: Payload | null | undefined): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined; // Encoded by a codec this reader does not have: the call stays unnamed.
  }
}

/** The first of the compared calls where the new code made another than the task recorded. */
function firstDifference(recorded: RecordedCall[], made: Call[]): Difference | undefined {
  const compared = recorded
    .map((entry, index) => ({ call: entry.call, index }))
    .filter(({ call }) => COMPARED.has(call.kind));
  const madeCompared = made.filter((call) => COMPARED.has(call.kind));
  for (let at = 0; at < Math.min(compared.length, madeCompared.length); at++) {
    if (!sameCall(compared[at]!.call, madeCompared[at]!)) return { index: compared[at]!.index, made: madeCompared[at] };
  }
  return undefined;
}

function sameCall(a: Call, b: Call): boolean {
  return isDeepStrictEqual(a, b);
}

/**
 * What Temporal's message says of the new code's call, and where in the recorded calls: its
 * messages name the recorded event, and the kind of the new call by the state machine that met it.
 */
function fromFailure(recorded: RecordedCall[], failure: string): Difference | undefined {
  const activity =
    /Activity type of scheduled event '(.*)' does not match activity type of activity command '(.*)'/.exec(failure);
  if (activity) {
    const index = recorded.findIndex(({ call }) => call.kind === 'activity' && call.name === activity[1]);
    return index < 0 ? undefined : { index, made: { kind: 'activity', name: activity[2] } };
  }
  const patch =
    /Non-deprecated patch marker encountered for change (.*), but there is no corresponding change command/.exec(
      failure,
    );
  if (patch) {
    const index = recorded.findIndex(({ call }) => call.kind === 'patch' && call.id === patch[1]);
    return index < 0 ? undefined : { index };
  }
  const changed = /Change id (.*) does not match expected id (.*)/.exec(failure);
  if (changed) {
    const index = recorded.findIndex(({ call }) => call.kind === 'patch' && call.id === changed[1]);
    return index < 0 ? undefined : { index, made: { kind: 'patch', id: changed[2]! } };
  }
  const event = /HistoryEvent\(id: (\d+),/.exec(failure);
  if (!event) return undefined;
  // The recorded event may be one that goes with a call (a search attribute upsert): the next call.
  const index = recorded.findIndex(({ eventId }) => eventId >= Number(event[1]));
  const at = index < 0 ? recorded.length : index;
  if (/^No command scheduled for event/.test(failure)) return { index: at };
  const made = MACHINES.find(([pattern]) => pattern.test(failure))?.[1];
  return made ? { index: at, made } : undefined;
}

/** Temporal's state machines by the words its messages start with, and the call each stands for. */
const MACHINES: [RegExp, Call][] = [
  [/^Activity machine/, { kind: 'activity' }],
  [/^Timer machine/, { kind: 'timer' }],
  [/^(ModifyWorkflowProperties|UpsertWorkflowSearchAttributes)Machine/, { kind: 'update' }],
  [/^Child workflow machine/, { kind: 'child' }],
  [/^(Complete workflow|Fail workflow|Continue as new workflow) machine/, { kind: 'end' }],
];

/**
 * One sentence: what the new code does at the recorded call `index`, set against what the task
 * recorded there; the calls the task recorded later tell a moved call from a new one.
 */
function inWords(recorded: Call[], { index, made }: Difference): string {
  const was = recorded[index];
  const later = recorded.slice(index + 1);
  if (was?.kind === 'patch' && made?.kind !== 'patch') {
    return `the new code no longer checks \`ctx.patched('${was.id}')\`, which the task recorded: keep the check until every task that recorded it has ended`;
  }
  if (!made) return `the new code makes no call where the task ${was ? recordedWords(was) : 'made one'}`;
  if (!was) return `the new code ${madeWords(made)} where the task recorded nothing more`;
  if (made.kind === 'question' && was.kind === 'question') {
    return `the new code ${madeWords(made)} where the task ${recordedWords(was)} (its answer would be taken for the new question)`;
  }
  if (was.kind === 'question') {
    const ranLater = later.some((call) => sameCall(call, made));
    return `the new code ${madeWords(made)} before ${callWords(was)}; the task ${ranLater ? `${recordedWords(made)} after it` : 'recorded the question first'}`;
  }
  if (made.kind === 'question' || later.some((call) => sameCall(call, made))) {
    return `the new code ${madeWords(made)} before ${callWords(was)}${made.kind === 'question' ? ', or without it' : ''}; the task ${recordedWords(was)} first`;
  }
  return `the new code ${madeWords(made)} where the task ${recordedWords(was)}`;
}

function callWords(call: Call): string {
  switch (call.kind) {
    case 'activity':
      return call.name ? `activity \`${call.name}\`` : 'an activity';
    case 'question':
      return call.prompt ? `the question \`${questionLine(call.prompt, QUOTED_CHARS)}\`` : 'a question';
    case 'patch':
      return `\`ctx.patched('${call.id}')\``;
    case 'child':
      return call.name ? `child workflow \`${call.name}\`` : 'a child workflow';
    case 'timer':
      return 'a timer (`ctx.sleep`, or a deadline)';
    case 'end':
      return 'the end of the task';
    case 'update':
      return 'an update of the task (its status, an artifact or a question)';
  }
}

/** How much of a question a report quotes, on one line: an LLM's may run to a paragraph. */
const QUOTED_CHARS = 80;

function madeWords(call: Call): string {
  switch (call.kind) {
    case 'activity':
    case 'child':
      return `runs ${callWords(call)}`;
    case 'question':
      return `asks ${callWords(call)}`;
    case 'patch':
      return `checks ${callWords(call)}`;
    case 'timer':
      return `starts ${callWords(call)}`;
    case 'end':
      return 'ends the task';
    case 'update':
      return 'updates the task (its status, an artifact or a question)';
  }
}

function recordedWords(call: Call): string {
  switch (call.kind) {
    case 'activity':
    case 'child':
      return `ran ${callWords(call)}`;
    case 'question':
      return `asked ${callWords(call)}`;
    case 'patch':
      return `checked ${callWords(call)}`;
    case 'timer':
      return `started ${callWords(call)}`;
    case 'end':
      return 'ended';
    case 'update':
      return 'updated the task (its status, an artifact or a question)';
  }
}
