/**
 * What the task page shows of a task, for a reader who is not a developer: the request, the
 * question in plain words (who asks, on whose behalf, by when, what an answer does), the results
 * and what happened; IDs, JSON and the agent's raw wording are folded away under "Technical details".
 */
import {
  agoElement,
  askerOf,
  byId,
  clockTime,
  dataView,
  deadlineElement,
  escalationWords,
  facts,
  fill,
  h,
  json,
  quorumWords,
  responderWords,
  votesWords,
} from './dom.js';
import { unwrap } from './schema-form.js';

const STATE_WORDS = {
  submitted: 'Received',
  working: 'Working',
  'input-required': 'Waiting for an answer',
  'auth-required': 'Waiting for an authorization',
  completed: 'Done',
  failed: 'Failed',
  canceled: 'Canceled',
  rejected: 'Rejected',
};

/** "input-required" from "TASK_STATE_INPUT_REQUIRED". */
export function stateName(state) {
  return (state ?? 'unknown')
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** "Waiting for an answer" from either spelling of a state. */
export function stateWords(state) {
  const name = stateName(state);
  return STATE_WORDS[name] ?? name;
}

/**
 * The question the signed-in person can answer here, if one waits: with several open, the one
 * `id` names (from the list's row), else the earliest.
 */
export function waitingQuestion(task, id) {
  const several = task.metadata?.pendingQuestions;
  const question = (id && several?.find((open) => open.id === id)) || task.metadata?.pendingQuestion;
  const waiting = task.status?.state === 'TASK_STATE_INPUT_REQUIRED' && question?.kind === 'input';
  return waiting ? question : undefined;
}

/**
 * `who`'s vote on a quorum question: by them, as a deputy, or by their deputy for them (the workflow
 * refuses them a second one, src/protocol/quorum.ts `hasVoted`); undefined when they have not voted.
 */
export function yourVote(question, who) {
  return who ? question.votes?.find((vote) => vote.by === who || (vote.actingFor ?? vote.by) === who) : undefined;
}

/** Where the answer form would be, for `who`, who voted (or whose deputy did): the vote, and what the question still waits for. */
export function votedNotice(vote, question, who) {
  const decided = vote.decision === 'approve' ? 'approved' : 'denied';
  const as =
    vote.by !== who
      ? `${vote.by} ${decided} for you`
      : `You ${decided}${vote.actingFor ? ` for ${vote.actingFor}` : ''}`;
  return h(
    'div',
    { class: 'voted', role: 'status' },
    h('p', { class: 'voted-title', text: `${as} at ${clockTime(vote.at)}` }),
    h('p', { text: `The question waits for the others: ${quorumWords(question.quorum)}.` }),
  );
}

/** Why the task takes no answer now (Task.metadata.blocked, set by the gateway), and what comes next. */
export function blockedNotice(blocked) {
  return h(
    'div',
    { class: 'blocked', role: 'status' },
    h('p', { class: 'blocked-title', text: 'Blocked by a deploy' }),
    h('p', { text: `The code deployed cannot continue this task: ${blocked.reason}.` }),
    h('p', {
      class: 'hint',
      text: 'No answer can be taken until a fix is deployed; the form comes back here once the task goes on.',
    }),
  );
}

/** The request as a title, who made it, when and where the task stands. */
export function renderHeader(task, agent) {
  const metadata = task.metadata ?? {};
  const request = (task.history ?? []).find((message) => message.role === 'ROLE_USER');
  const started = metadata.timeline?.[0]?.at;
  byId('task-agent').textContent = agent;
  byId('task-title').textContent = (request && textOf(request.parts)) || 'A task';
  fill(
    byId('task-meta'),
    metadata.owner && h('span', { text: `Requested by ${metadata.owner}` }),
    started && h('span', { text: `started ${clockTime(started)}` }),
    h('span', { class: 'state', text: metadata.blocked ? 'Blocked by a deploy' : stateWords(task.status?.state) }),
  );
}

/** The waiting question: what is asked, by whom and for whom, by when, and what an answer does. */
export function questionView(question, agent, owner) {
  const tool = question.details?.tool;
  const from = question.from;
  const asker = from ? askerOf(from) : agent;
  const hint = unwrap(question.schema)?.description;
  return [
    from && h('p', { class: 'from', text: `Asked by ${asker}, on behalf of ${agent}’s task` }),
    tool
      ? h('p', { class: 'prompt', text: `The agent wants to use the tool “${tool}”.` })
      : h('p', { class: 'prompt', text: question.prompt }),
    tool && toolView(question.details),
    !tool && hint && h('p', { class: 'hint', text: hint }),
    facts([
      ['Asked by', h('span', {}, `${asker}, `, agoElement(question.askedAt, ''))],
      ['On behalf of', owner],
      ['Answer by', question.deadline ? deadlineElement(question.deadline) : 'No deadline'],
      // A question naming nobody is its requester's to answer.
      [
        'Who may answer',
        question.responders ? responderWords(question.responders) : owner && `${owner} (the requester)`,
      ],
      // Deputies answer for an approver who is away, in their window only (docs/approval-policies.md).
      ['Deputies', question.deputies?.map(deputyWords).join('; ')],
      // Nobody answered in time (docs/approval-policies.md, Escalation).
      ['Escalation', question.escalated?.length > 0 && escalationWords(question.escalated)],
      // Several must approve: where the votes stand, and each so far (docs/approval-policies.md, Quorum).
      ['Approvals', question.quorum && quorumWords(question.quorum)],
      ['Votes', question.votes?.length > 0 && votesWords(question.votes)],
      ['Your answer', effect(question, agent)],
    ]),
  ];
}

function toolView(details) {
  return h(
    'div',
    { class: 'tool' },
    details.reason && h('p', { class: 'tool-reason', text: `Why it needs your approval: ${details.reason}` }),
    h('p', { class: 'tool-label', text: 'With these details:' }),
    dataView(details.arguments, 'tool-arguments'),
  );
}

/** What answering does, in the page's words (the agent decides the rest). */
function effect(question, agent) {
  if (question.details?.tool) {
    return `Approve: the agent uses “${question.details.tool}” with these details (change them first if need be). Deny: it does not, and is told your reason.`;
  }
  if (question.from) {
    return `goes back to ${question.from.agent}, which asked; ${agent}’s task goes on once ${question.from.agent} is done.`;
  }
  return `goes to ${agent}, which goes on with the request.`;
}

/** "carol for bob, until 15 Dec 14:00": who answers for whom, and when. */
function deputyWords(deputy) {
  const window = [deputy.from && `from ${clockTime(deputy.from)}`, deputy.until && `until ${clockTime(deputy.until)}`];
  return [`${deputy.to} for ${deputy.for}`, ...window.filter(Boolean)].join(', ');
}

/** IDs, the question as the agent wrote it, what it expects as JSON: for whoever needs them. */
export function renderTechnical(task, agent) {
  const question = task.metadata?.pendingQuestion;
  fill(
    byId('technical-body'),
    facts([
      ['Agent', agent],
      ['Task ID', task.id],
      ['Context ID', task.contextId],
      ['State', stateName(task.status?.state)],
      ['Question asked at', question?.askedAt],
      ['Asked by the remote task', question?.from && `${question.from.taskId} at ${question.from.url}`],
      ['The question as the agent wrote it', question?.prompt],
    ]),
    question?.schema && h('p', { class: 'hint', text: 'The answer it expects (JSON Schema):' }),
    question?.schema && h('pre', { class: 'data', text: json(question.schema) }),
    question?.details && h('p', { class: 'hint', text: 'The question’s details:' }),
    question?.details && h('pre', { class: 'data', text: json(question.details) }),
  );
}

export function artifacts(list) {
  if (list.length === 0) return [h('p', { class: 'hint', text: 'None yet.' })];
  return list.map((artifact) =>
    h(
      'section',
      { class: 'artifact' },
      h('h3', { text: artifact.name || 'Result' }),
      ...(artifact.parts ?? []).map((item) => part(item, dataView)),
    ),
  );
}

/** A part as text: text, data (as `data` shows it), a file by its name and address (never a live link). */
function part(item, data) {
  if (typeof item.text === 'string') return h('pre', { class: 'text', text: item.text });
  if (item.data !== undefined) return data(item.data);
  const file = [item.filename, item.url, item.mediaType].filter(Boolean).join(' · ');
  return h('p', { class: 'file', text: `File: ${file || '(inline bytes)'}` });
}

/** A step of the task; a question's own wording is left to the question card and the messages. */
export function timelineEntry(entry) {
  const asked = entry.state === 'input-required';
  return h(
    'li',
    {},
    h('time', { datetime: entry.at, text: clockTime(entry.at) }),
    h('span', { class: 'state', text: stateWords(entry.state) }),
    entry.by && entry.by !== 'agent' && h('span', { class: 'by', text: `by ${entry.by}` }),
    !asked && entry.message && h('span', { class: 'note', text: entry.message }),
  );
}

/** A message of the conversation, its data parts as JSON (it sits under a fold). */
export function message(item) {
  const who = item.role === 'ROLE_USER' ? 'user' : 'agent';
  return h(
    'li',
    { class: `from-${who}` },
    h('span', { class: 'role', text: who }),
    ...(item.parts ?? []).map((entry) => part(entry, (value) => h('pre', { class: 'data', text: json(value) }))),
  );
}

export function textOf(parts) {
  return (parts ?? [])
    .map((item) => item.text)
    .filter((text) => typeof text === 'string')
    .join(' ');
}
