/**
 * What a waiting question looks like in a list, who may see it, and the order and pages of a list:
 * the rows come from the gateway's index of waiting questions (waiting-index.ts), each from a
 * visibility row's summary memo. The A2AResponders search attribute says who may answer (tasks
 * since release 3). Visibility is eventually consistent: a question asked or answered a second ago
 * may still be missing or listed.
 */
import { z } from 'zod';
import { isAllowedResponder } from '../protocol/contract.js';
import type { Caller } from '../protocol/caller.js';
import { deputiesOf } from '../protocol/deputies.js';
import { hasVoted } from '../protocol/quorum.js';
import { AGENT_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { questionsShown, type ListedQuestion, type Question } from '../protocol/question.js';
import type { WireTask } from '../protocol/wire.js';
import { quote } from './visibility.js';

/** One waiting question as a list row shows it. */
export interface WaitingQuestionRow {
  taskId: string;
  contextId: string;
  agent: string;
  /** The first words of the request that started the task. */
  request?: string;
  /** Who asked: the task's owner (absent without authentication). */
  askedBy?: string;
  /** With several open in the task, `id` names the question in a reply. */
  question: ListedQuestion;
  /** Why no answer can be taken now, when Temporal reports the task's workflow task failing (blocked by a deploy). */
  blocked?: string;
}

export type QuestionOrder = 'deadline' | 'age';

export interface WaitingForRequest {
  /** The authenticated caller; without one (development) every waiting question is listed. */
  caller?: Caller;
  /** The agents served: tasks of others are not listed. */
  agents: readonly string[];
  /** Only this agent's questions. */
  agent?: string;
  /** `deadline`: the soonest deadline first (none last); `age`: the longest waiting first. */
  order?: QuestionOrder;
  /** At most this many rows; `more` says when some were left out. */
  limit?: number;
  /** The `next` of the page before: this page starts after its last row. */
  after?: string;
}

export interface WaitingForPage {
  questions: WaitingQuestionRow[];
  /** Whether more questions wait than the page holds. */
  more: boolean;
  /** Where the next page starts (`after`), when `more`. */
  next?: string;
}

const WAITING_FOR_MAX_ROWS = 1_000;

/** A cursor the gateway did not hand out. */
export class BadPageCursorError extends Error {}

/**
 * The visibility query of every question waiting on these agents (on `taskQueue`, when given: a
 * gateway's own workers'): running tasks waiting for input. Who may see each is decided from its
 * row (`mayAnswer`), as the task's workflow decides a reply.
 */
export function waitingForQuery(agents: readonly string[], taskQueue?: string): string {
  return [
    ...(taskQueue === undefined ? [] : [`TaskQueue = ${quote(taskQueue)}`]),
    `ExecutionStatus = 'Running'`,
    `${TASK_STATE_ATTRIBUTE.name} = 'input-required'`,
    `${AGENT_ATTRIBUTE.name} IN (${agents.map(quote).join(', ')})`,
  ].join(' AND ');
}

/** A task's waiting questions as rows: its one question, or each of several (`pendingQuestions`). */
export function rowsOf(summary: WireTask): WaitingQuestionRow[] {
  const metadata = (summary.metadata ?? {}) as {
    agent?: string;
    owner?: string;
    request?: string;
    pendingQuestion?: ListedQuestion;
    pendingQuestions?: ListedQuestion[];
  };
  const { agent, owner, request } = metadata;
  if (!agent) return [];
  return questionsShown(metadata)
    .filter((question) => question.kind === 'input' && !question.outOfBand)
    .map((question) => ({
      taskId: summary.id,
      contextId: summary.contextId,
      agent,
      ...(request && { request }),
      ...(owner && { askedBy: owner }),
      question,
    }));
}

/**
 * The rule the task's workflow applies to a reply (task-runtime.ts), from the row alone, for the
 * questions listed to a caller: a question naming nobody is its owner's (one without an owner, asked
 * without authentication, is listed to no signed-in caller); a quorum question the caller voted on
 * no longer waits for them (a second vote is refused).
 */
export function mayAnswer(
  question: Pick<Question, 'responders' | 'notByRequester' | 'deputies' | 'votes'>,
  askedBy: string | undefined,
  caller: Caller | undefined,
): boolean {
  if (!caller) return true;
  const { responders, notByRequester } = question;
  if (hasVoted(question.votes, caller.id)) return false;
  if (!responders) return askedBy === caller.id;
  // A deputy's window is checked when they answer; the question is theirs to see throughout.
  const deputy = deputiesOf(question, caller.id).length > 0;
  return (isAllowedResponder(responders, caller) || deputy) && !(notByRequester && askedBy === caller.id);
}

/**
 * A row's place in a list: the soonest deadline first (none last) or the longest waiting first, ties
 * by task ID and question ID (questions of one task asked at once), so that every row has one place
 * and a page's cursor is the last row's place.
 */
type Place = [deadline: number | null, askedAt: number, taskId: string, questionId: string];

function placeOf(row: WaitingQuestionRow, order: QuestionOrder): Place {
  const deadline = order === 'deadline' && row.question.deadline ? Date.parse(row.question.deadline) : null;
  return [deadline, Date.parse(row.question.askedAt), row.taskId, row.question.id ?? ''];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function comparePlaces([deadlineA, askedA, idA, qA]: Place, [deadlineB, askedB, idB, qB]: Place): number {
  const deadline = (deadlineA ?? Number.POSITIVE_INFINITY) - (deadlineB ?? Number.POSITIVE_INFINITY);
  return (Number.isNaN(deadline) ? 0 : deadline) || askedA - askedB || byText(idA, idB) || byText(qA, qB);
}

const CURSOR_SCHEMA = z.tuple([z.number().nullable(), z.number(), z.string(), z.string()]);

function cursorOf(place: Place, order: QuestionOrder): string {
  return Buffer.from(JSON.stringify([order, ...place])).toString('base64url');
}

function placeAfter(cursor: string, order: QuestionOrder): Place {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadPageCursorError('The page cursor is not one this gateway handed out');
  }
  const [cursorOrder, ...place] = Array.isArray(decoded) ? decoded : [];
  const parsed = CURSOR_SCHEMA.safeParse(place);
  if (cursorOrder !== order || !parsed.success) {
    throw new BadPageCursorError('The page cursor is not one this gateway handed out for this order');
  }
  return parsed.data;
}

/**
 * One page of the questions `caller` may answer, from every waiting question's row: filtered and
 * ordered in memory, starting after `request.after`. Rows answered between two pages drop out,
 * and rows asked since fall into place; none is listed twice.
 */
export function pageOf(rows: Iterable<WaitingQuestionRow>, request: Omit<WaitingForRequest, 'agents'>): WaitingForPage {
  const order = request.order ?? 'deadline';
  const limit = Math.min(request.limit ?? WAITING_FOR_MAX_ROWS, WAITING_FOR_MAX_ROWS);
  const after = request.after === undefined ? undefined : placeAfter(request.after, order);
  const placed: { row: WaitingQuestionRow; place: Place }[] = [];
  for (const row of rows) {
    if (request.agent && row.agent !== request.agent) continue;
    if (!mayAnswer(row.question, row.askedBy, request.caller)) continue;
    const place = placeOf(row, order);
    if (!after || comparePlaces(place, after) > 0) placed.push({ row, place });
  }
  placed.sort((a, b) => comparePlaces(a.place, b.place));
  const shown = placed.slice(0, limit);
  const last = shown.at(-1);
  const more = placed.length > limit;
  return { questions: shown.map(({ row }) => row), more, ...(more && last && { next: cursorOf(last.place, order) }) };
}
