/**
 * Pure text helpers over SDK objects: state names, part contents, times, and the task metadata
 * this runtime adds (timeline, pending question). The views in views.ts are built from these.
 */
import { taskStateToJSON, type Artifact, type Message, type Part, type Task, type TaskState } from '@a2a-js/sdk';
import type { TimelineEntry } from '../protocol/contract.js';
import type { PendingQuestion, QuestionView } from '../protocol/question.js';
import type { PushDeliveryView } from '../protocol/push.js';
import { fromWireState, type TaskStateName } from '../protocol/states.js';
import { spanText } from '../protocol/time-text.js';

/** The gateway the CLI talks to unless --url or A2A_URL say otherwise. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * The protocol's name of an SDK task state (the SDK's enum is numeric), for the protocol's
 * predicates (isSettled, isInterrupted, ...); undefined when absent or unknown to this version.
 */
export function knownState(state: TaskState | undefined): TaskStateName | undefined {
  return state === undefined ? undefined : fromWireState(taskStateToJSON(state));
}

export function taskState(task: Task): TaskStateName | undefined {
  return knownState(task.status?.state);
}

/** A state as printed: `input-required` for TASK_STATE_INPUT_REQUIRED; a newer gateway's unknown state by its own name. */
export function stateName(state: TaskState | undefined): string {
  if (state === undefined) return 'unknown';
  return (
    knownState(state) ??
    taskStateToJSON(state)
      .replace(/^TASK_STATE_/, '')
      .toLowerCase()
  );
}

export function taskStateName(task: Task): string {
  return stateName(task.status?.state);
}

/** One part as text: text as is, data as compact JSON, files by reference. */
export function partText(part: Part, pretty = false): string {
  const content = part.content;
  switch (content?.$case) {
    case 'text':
      return content.value;
    case 'data':
      return JSON.stringify(content.value ?? null, null, pretty ? 2 : undefined);
    case 'url':
      return `<${content.value}>${part.filename ? ` (${part.filename})` : ''}`;
    case 'raw':
      return `[${part.mediaType || 'binary'}, ${content.value.length} bytes${part.filename ? `, ${part.filename}` : ''}]`;
    default:
      return '';
  }
}

export function partsText(parts: readonly Part[] | undefined, pretty = false): string {
  return (parts ?? [])
    .map((part) => partText(part, pretty))
    .filter((text) => text !== '')
    .join('\n');
}

export function messageText(message: Message | undefined): string {
  return partsText(message?.parts);
}

export function artifactTitle(artifact: Artifact): string {
  return artifact.name || artifact.artifactId || 'artifact';
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

function toDate(at: string | Date | undefined): Date | undefined {
  if (at === undefined || at === '') return undefined;
  const date = at instanceof Date ? at : new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** HH:MM:SS in local time, for live event lines. */
export function clock(at: string | Date | undefined): string {
  const date = toDate(at);
  if (!date) return '--:--:--';
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

/** YYYY-MM-DD HH:MM:SS in local time. */
export function dateTime(at: string | Date | undefined): string {
  const date = toDate(at);
  if (!date) return '';
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${clock(date)}`;
}

/** "in 2d 3h", "5m ago", "now": coarse on purpose, two units at most. */
export function relative(at: string | Date | undefined, now: Date): string {
  const date = toDate(at);
  if (!date) return '';
  const deltaMs = date.getTime() - now.getTime();
  if (Math.round(Math.abs(deltaMs) / 1000) < 1) return 'now';
  return deltaMs > 0 ? `in ${spanText(deltaMs)}` : `${spanText(deltaMs)} ago`;
}

/** The audit timeline from Task.metadata.timeline, skipping malformed entries. */
export function timelineOf(task: Task): TimelineEntry[] {
  const raw: unknown = task.metadata?.['timeline'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (entry): entry is TimelineEntry =>
      typeof entry === 'object' && entry !== null && typeof entry.state === 'string' && typeof entry.at === 'string',
  );
}

/** The open question from Task.metadata.pendingQuestion, if the task is waiting for one. */
export function pendingQuestionOf(task: Task): PendingQuestion | undefined {
  const raw: unknown = task.metadata?.['pendingQuestion'];
  return isQuestion(raw) ? raw : undefined;
}

function isQuestion(raw: unknown): raw is QuestionView {
  if (typeof raw !== 'object' || raw === null) return false;
  const question = raw as Partial<PendingQuestion>;
  return typeof question.prompt === 'string' && typeof question.kind === 'string';
}

/**
 * Every open question of a waiting task, each with its id: Task.metadata.pendingQuestions while
 * several wait, else the one pendingQuestion (no id: a reply need not name it).
 */
export function openQuestionsOf(task: Task): QuestionView[] {
  const raw: unknown = task.metadata?.['pendingQuestions'];
  const several = Array.isArray(raw)
    ? raw.filter(isQuestion).filter((question) => typeof question.id === 'string')
    : [];
  if (several.length > 0) return several;
  const one = pendingQuestionOf(task);
  return one ? [one] : [];
}

/** Each open question on a line of its own: its id, what it asks and who may answer it. */
export function openQuestionLines(open: readonly QuestionView[]): string[] {
  return open.map(
    (question) =>
      `  ${question.id}: ${question.prompt}${question.responders?.length ? ` (may answer: ${question.responders.join(', ')})` : ''}`,
  );
}

/** How push deliveries stand, from Task.metadata.pushNotifications (set by this runtime, absent elsewhere). */
export function pushDeliveriesOf(task: Task): PushDeliveryView[] {
  const raw: unknown = task.metadata?.['pushNotifications'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (entry): entry is PushDeliveryView =>
      typeof entry === 'object' && entry !== null && typeof entry.id === 'string' && typeof entry.url === 'string',
  );
}

/** The agent's name from Task.metadata.agent (set by this runtime, absent elsewhere). */
/** Why the deployed code cannot continue the task, from Task.metadata.blocked (set by the gateway); undefined when it can. */
export function blockedReasonOf(task: Task): string | undefined {
  const raw: unknown = task.metadata?.['blocked'];
  if (typeof raw !== 'object' || raw === null) return undefined;
  const reason: unknown = (raw as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : 'unknown';
}

export function agentOf(task: Task): string | undefined {
  const agent: unknown = task.metadata?.['agent'];
  return typeof agent === 'string' ? agent : undefined;
}

/** What to show as "the question": the pending prompt, else the status message. */
export function questionText(task: Task): string {
  return pendingQuestionOf(task)?.prompt ?? messageText(task.status?.message);
}

/** How this CLI was started, so printed commands work when pasted: through npx, or from the PATH. */
function cliName(env: NodeJS.ProcessEnv): string {
  return env.npm_command === 'exec' ? 'npx a2a-temporal' : 'a2a-temporal';
}

/** Where the CLI reaches a task: through its agent (none: the gateway's default agent) at the gateway's URL. */
export interface AgentAddress {
  gatewayUrl: string;
  agent?: string | undefined;
}

/** A command line to paste: `args`, then `--agent` and `--url` when they are needed to reach the task. */
export function commandHint(args: string, address: Partial<AgentAddress> = {}, env = process.env): string {
  const agent = address.agent ? ` --agent ${shellWord(address.agent)}` : '';
  const url = address.gatewayUrl && address.gatewayUrl !== DEFAULT_URL ? ` --url ${shellWord(address.gatewayUrl)}` : '';
  return `${cliName(env)} ${args}${agent}${url}`;
}

/** The text replies a question lists in its details (`answers`: `approve`, `deny <reason>`, `continue`, ...). */
function textAnswersOf(details: unknown): string[] {
  const answers = (details as { answers?: unknown } | null | undefined)?.answers;
  return Array.isArray(answers) ? answers.filter((answer): answer is string => typeof answer === 'string') : [];
}

/**
 * The `tasks reply` commands that answer a waiting task: one per text reply its question lists,
 * else one with the form it expects (data, or any text); naming the question by its id when it has
 * one (one of several open).
 */
export function answerHints(
  taskId: string,
  question: { details?: unknown; expects?: string | undefined; id?: string | undefined } | undefined,
  address: Partial<AgentAddress>,
): string[] {
  const listed = textAnswersOf(question?.details).map(shellWord);
  const answers = listed.length > 0 ? listed : [question?.expects ? `--data '<JSON>'` : '<answer>'];
  const named = question?.id ? ` --question ${shellWord(question.id)}` : '';
  return answers.map((answer) => commandHint(`tasks reply ${shellWord(taskId)} ${answer}${named}`, address));
}

/** Shell-quotes a word for copy-paste hints. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Indents every line of a block. */
export function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

/** "1 message", "3 messages". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
