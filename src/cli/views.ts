/**
 * The human-readable views: the result of a send, one task in detail (a page of tasks: task-list-view.ts).
 * Pure: they take the clock and the terminal width, so tests pin both.
 */
import { Role, type Artifact, type Message, type Task } from '@a2a-js/sdk';
import {
  agentOf,
  answerHints,
  artifactTitle,
  blockedReasonOf,
  dateTime,
  indent,
  messageText,
  openQuestionsOf,
  partsText,
  pushDeliveriesOf,
  plural,
  relative,
  taskState,
  taskStateName,
  timelineOf,
} from './format.js';
import { isInterrupted } from '../protocol/states.js';
import type { QuestionView } from '../protocol/question.js';
import { quorumText, voteText } from '../protocol/quorum.js';
import { renderTable } from './table.js';

export interface ViewOptions {
  now: Date;
  /** Terminal width; tables fit in it. */
  columns?: number;
  /** The gateway the command talked to: printed commands name it unless it is the default. */
  gatewayUrl?: string;
}

/** Label/value lines, labels aligned. */
function fields(rows: readonly (readonly [string, string | undefined])[]): string[] {
  const present = rows.filter((row): row is readonly [string, string] => row[1] !== undefined && row[1] !== '');
  const width = Math.max(...present.map(([label]) => label.length));
  return present.map(([label, value]) => `${label.padEnd(width)}  ${indent(value, ' '.repeat(width + 2)).trimStart()}`);
}

/** What a blocking send or reply returns: a direct message, or the task it settled in. */
export function resultView(result: Message | Task, options: ViewOptions): string {
  if ('messageId' in result) {
    return fields([
      ['Message', messageText(result)],
      ['Context', result.contextId],
    ]).join('\n');
  }
  const task = result;
  const lines = fields([
    ['Task', task.id],
    ['Context', task.contextId],
    ['State', taskStateName(task)],
    ['Message', messageText(task.status?.message)],
  ]);
  if (task.artifacts.length > 0) lines.push('', ...artifactsView(task.artifacts));
  if (isWaiting(task)) lines.push('', ...pendingView(task, options));
  return lines.join('\n');
}

function isWaiting(task: Task): boolean {
  const state = taskState(task);
  return state !== undefined && isInterrupted(state);
}

/** The questions a waiting task asks and how to answer each: several are listed by their ids. */
export function pendingView(task: Task, options: ViewOptions): string[] {
  const open = openQuestionsOf(task);
  const waiting = open[0]?.kind === 'auth' ? 'Waiting for authorization' : 'Waiting for input';
  if (open.length <= 1) return [waiting, ...questionView(task, open[0], options)];
  const lines = [`${waiting}: ${open.length} questions, a reply names the one it answers (--question)`];
  for (const question of open) lines.push(`  Question ${question.id}`, ...questionView(task, question, options));
  return lines;
}

/** One open question (none: a waiting task that shows none) and how to answer it. */
function questionView(task: Task, question: QuestionView | undefined, options: ViewOptions): string[] {
  const nested = question?.id ? '  ' : '';
  const lines: string[] = [];
  if (question) {
    lines.push(
      ...fields([
        ['Question', question.prompt],
        ['Asked', `${dateTime(question.askedAt)} (${relative(question.askedAt, options.now)})`],
        [
          'Deadline',
          question.deadline && `${dateTime(question.deadline)} (${relative(question.deadline, options.now)})`,
        ],
        ['Responders', question.responders?.join(', ')],
        // Several must approve (docs/approval-policies.md, Quorum): where the votes stand, and each so far.
        ['Approvals', question.quorum && quorumText(question.quorum)],
        ['Votes', question.votes?.map(voteText).join('\n')],
        ['Expects', question.expects],
        ['Schema', question.schema && schemaText(question.schema)],
      ]).map((line) => indent(line, `  ${nested}`)),
    );
  }
  const blocked = blockedReasonOf(task);
  if (blocked) {
    // An answer would be refused: say why and what fixes it instead of offering one.
    lines.push(
      `  Blocked by a deploy: the deployed code cannot continue this task: ${blocked}.`,
      '  Deploy a fix guarded with `ctx.patched` (docs/deploying.md, "Changing agent code while tasks wait"), then answer.',
    );
  } else if (question?.outOfBand) {
    lines.push(`  ${nested}The answer arrives out of band (e.g. an OAuth callback), not as a message.`);
  } else {
    const agent = task.metadata?.['agent'];
    const address = { agent: typeof agent === 'string' ? agent : undefined, gatewayUrl: options.gatewayUrl };
    const [first, ...more] = answerHints(task.id, question, address);
    lines.push(`  ${nested}Answer:  ${first}`, ...more.map((hint) => `  ${nested}    or:  ${hint}`));
  }
  return lines;
}

/** A reply's JSON Schema on one line, without the draft it follows (noise to a person). */
function schemaText(schema: Record<string, unknown>): string {
  const { $schema: _draft, ...rest } = schema;
  return JSON.stringify(rest);
}

function artifactsView(artifacts: readonly Artifact[]): string[] {
  const lines = [`Artifacts (${artifacts.length})`];
  for (const artifact of artifacts) {
    const id = artifact.name && artifact.artifactId ? ` [${artifact.artifactId}]` : '';
    lines.push(`  ${artifactTitle(artifact)}${id}`);
    const content = partsText(artifact.parts, true);
    if (content) lines.push(indent(content, '    '));
  }
  return lines;
}

/** `tasks show`: everything a human needs to understand where a task stands. */
export function taskView(task: Task, options: ViewOptions): string {
  const state = taskStateName(task);
  const since = task.status?.timestamp;
  const lines = fields([
    ['Task', task.id],
    ['Context', task.contextId],
    ['Agent', agentOf(task)],
    ['State', since ? `${state} since ${dateTime(since)} (${relative(since, options.now)})` : state],
    ['Message', messageText(task.status?.message)],
  ]);
  if (isWaiting(task)) lines.push('', ...pendingView(task, options));
  const timeline = timelineOf(task);
  if (timeline.length > 0) {
    const rows = timeline.map((entry) => [dateTime(entry.at), entry.state, entry.by ?? '', entry.message ?? '']);
    lines.push('', 'Timeline', renderTable(['AT', 'STATE', 'BY', 'MESSAGE'], rows, tableOptions(options, '  ')));
  }
  const deliveries = pushDeliveriesOf(task);
  if (deliveries.length > 0) {
    const rows = deliveries.map((d) => [
      d.id,
      d.url,
      String(d.delivered),
      String(d.pending),
      d.lastSuccess ? dateTime(d.lastSuccess) : '',
      d.lastFailure ? `${dateTime(d.lastFailure.at)} ${d.lastFailure.reason}` : '',
    ]);
    const headers = ['CONFIG', 'URL', 'DELIVERED', 'PENDING', 'LAST SUCCESS', 'LAST FAILURE'];
    lines.push('', 'Push notifications', renderTable(headers, rows, tableOptions(options, '  ')));
  }
  if (task.history.length > 0) {
    lines.push('', `History (${plural(task.history.length, 'message')})`);
    for (const message of task.history) {
      const role = message.role === Role.ROLE_AGENT ? 'agent' : 'user';
      lines.push(`  ${role.padEnd(5)}  ${indent(partsText(message.parts), '         ').trimStart()}`);
    }
  }
  if (task.artifacts.length > 0) lines.push('', ...artifactsView(task.artifacts));
  return lines.join('\n');
}

export function tableOptions(options: ViewOptions, prefix = ''): { maxWidth?: number; indent: string } {
  return { indent: prefix, ...(options.columns !== undefined && { maxWidth: options.columns }) };
}
