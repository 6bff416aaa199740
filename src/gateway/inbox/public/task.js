/**
 * The task page: the question and its reply form, the results so far and what happened (task-view.js).
 * Every answer goes through the gateway's request handler, which checks it as it checks an A2A
 * reply; its refusals are shown here as they are. An accepted answer comes back with the task as it
 * settled (done, another question), shown at once. The page re-reads the task every few seconds, so
 * a question answered elsewhere is shown as such before anyone types into a stale form, and while
 * a slow agent works on this page's answer, that it does.
 */
import { ApiError, getJson, postJson, whoAmI } from './api.js';
import { byId, clockTime, fill, h, tickDeadlines } from './dom.js';
import { jsonControl, problems, schemaControls, unwrap } from './schema-form.js';
import { responderName, showIdentity } from './session.js';
import {
  artifacts,
  blockedNotice,
  message,
  questionView,
  renderHeader,
  renderTechnical,
  stateName,
  stateWords,
  textOf,
  timelineEntry,
  votedNotice,
  waitingQuestion,
  yourVote,
} from './task-view.js';

const REFRESH_MS = 2_000;
const params = new URLSearchParams(location.search);
const agent = params.get('agent') ?? '';
const taskId = params.get('id') ?? '';
/** One of several questions of the task (the list's row names it); absent for a task's only question. */
const questionId = params.get('question') ?? undefined;
const taskPath = `api/tasks/${encodeURIComponent(agent)}/${encodeURIComponent(taskId)}`;
/** What the answer form was built for: rebuilt only when the waiting question changes. */
let shownQuestion;
let lastText;
/** Reads of the task so far: only the latest one's task is shown (see refresh). */
let reads = 0;
/** The question whose fate the page reports once it is gone (its askedAt), and whether this page answered it. */
let watched;
/** Signing out with this page's button: it leaves for the sign-in page, not to come back here. */
let leaving = false;
/** Who is signed in (whoAmI): the page shows their vote on a quorum question. */
let me;

async function start() {
  tickDeadlines();
  me = await whoAmI();
  showIdentity(me, (signingOut) => {
    leaving = true;
    signingOut.finally(() => location.assign('./'));
  });
  if (me.mode === 'signed-out') return signIn();
  await refresh();
  setInterval(() => refresh().catch(() => {}), REFRESH_MS);
}

/** To the sign-in page, which brings the person back to this task once signed in (list.js). */
function signIn() {
  if (!leaving) location.replace(`./?${new URLSearchParams({ next: `task${location.search}` })}`);
}

async function refresh() {
  const reading = ++reads;
  try {
    const { task } = await getJson(taskPath);
    // A read sent before an answer landed must not show the task as it stood before that answer.
    if (reading === reads) show(task);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signIn();
    byId('task-status').textContent = error.message;
  }
}

function show(task) {
  const text = JSON.stringify(task);
  if (text === lastText) return;
  lastText = text;
  render(task);
}

function render(task) {
  byId('task').hidden = false;
  byId('task-status').textContent = '';
  renderHeader(task, agent);
  showOutcome(task);
  renderQuestion(task);
  fill(byId('artifacts'), artifacts(task.artifacts ?? []));
  fill(byId('timeline'), (task.metadata?.timeline ?? []).map(timelineEntry));
  fill(byId('history'), (task.history ?? []).map(message));
  renderTechnical(task, agent);
}

function renderQuestion(task) {
  const question = waitingQuestion(task, questionId);
  // A task blocked by a deploy takes no answer: the notice stands where the form would (until a fix runs).
  const blocked = task.metadata?.blocked;
  // Who voted on a quorum question cannot vote again: their vote stands where the form would.
  const who = me.principal?.id ?? responderName();
  const voted = question && yourVote(question, who);
  const key = `${question ? question.askedAt : stateName(task.status?.state)}${blocked ? ' blocked' : ''}${voted ? ' voted' : ''}`;
  if (key === shownQuestion) return;
  shownQuestion = key;
  if (!question) {
    byId('question-title').textContent = 'No question waits';
    // Said once: by the outcome of an answer when there is one (showOutcome ran first).
    fill(byId('question-body'), !byId('outcome').textContent && h('p', { text: outcomeOf(task) }));
    fill(byId('answer'), blocked && blockedNotice(blocked));
    return;
  }
  watched = { askedAt: question.askedAt, byMe: false };
  byId('question-title').textContent = 'The question';
  fill(byId('question-body'), questionView(question, agent, task.metadata?.owner));
  fill(
    byId('answer'),
    blocked ? blockedNotice(blocked) : voted ? votedNotice(voted, question, who) : answerForms(question),
  );
}

/**
 * Once the watched question is no longer waiting: who answered it, and what became of the task
 * (done, another question, ended otherwise); while the agent works on the answer, that it does.
 */
function showOutcome(task) {
  if (!watched) return;
  const question = waitingQuestion(task, questionId);
  const unchanged = question?.askedAt === watched.askedAt;
  if (unchanged && !watched.byMe) return;
  const who = watched.byMe ? 'Answer sent.' : answeredBy(task, watched.askedAt);
  const state = stateName(task.status?.state);
  // This page's vote did not decide the question: it waits for the others' (votedNotice says whose).
  if (unchanged && question.quorum) return setOutcome('Vote sent.', 'ok');
  if (unchanged || state === 'working' || state === 'submitted') {
    return setOutcome(`${who} The agent is working on it; its outcome will show here.`, 'ok');
  }
  setOutcome(`${who} ${outcomeOf(task, question)}`, 'ok');
  watched = undefined;
}

function answeredBy(task, askedAt) {
  const since = Date.parse(askedAt);
  const entry = (task.metadata?.timeline ?? []).find(
    (item) => Date.parse(item.at) >= since && item.by && item.by !== 'agent',
  );
  return entry ? `Answered by ${entry.by} at ${clockTime(entry.at)}.` : 'The question is closed.';
}

function outcomeOf(task, question) {
  if (question) return 'The agent has another question: see below.';
  const state = stateName(task.status?.state);
  const words =
    {
      completed: 'The task is done',
      rejected: 'The task was rejected',
      failed: 'The task failed',
      canceled: 'The task was canceled',
    }[state] ?? `The task is ${stateWords(state).toLowerCase()}`;
  const said = textOf(task.status?.message?.parts);
  return said ? `${words}: ${said}` : `${words}.`;
}

/**
 * The reply forms. An approval's comment and a denial's reason reach the agent in the words an
 * A2A reply uses ("approve <comment>", "deny <reason>"; a tool approval's `reason`).
 */
function answerForms(question) {
  if (question.details?.tool) return toolApprovalForms(question);
  const schema = unwrap(question.schema);
  if (schema) return [typedForm(schema)];
  return [
    decisions(
      (comment) => ({ text: comment ? `approve ${comment}` : 'approve' }),
      (reason) => ({ text: reason ? `deny ${reason}` : 'deny' }),
    ),
    h('details', { class: 'other' }, h('summary', { text: 'Reply with something else' }), textForm()),
  ];
}

/** Approve with its comment box beside Deny with its reason box: each note goes with its own button. */
function decisions(approveWith, denyWith) {
  return h(
    'div',
    { class: 'decisions' },
    decision('approve', 'approve-comment', 'Comment (optional)', 'Approve', approveWith),
    decision('deny', 'deny-reason', 'Reason (optional)', 'Deny', denyWith),
  );
}

function decision(name, id, label, action, answerOf) {
  return form(
    name,
    [
      h('label', { for: id, text: label }),
      h('textarea', { id, name: 'note', rows: 2 }),
      h('button', { type: 'submit', class: name === 'approve' ? 'primary' : 'danger', text: action }),
    ],
    (element) => answerOf(element.elements.namedItem('note').value.trim()),
  );
}

function textForm() {
  const id = 'text-answer';
  return form(
    'text',
    [
      h('label', { for: id, text: 'Your reply, sent to the agent as you write it' }),
      h('textarea', { id, name: 'text', rows: 3, required: true }),
      h('button', { type: 'submit', text: 'Send the reply' }),
    ],
    (element) => ({ text: element.elements.namedItem('text').value }),
  );
}

function typedForm(schema) {
  const controls = schemaControls(schema, 'field');
  return form('typed', [controls.element, h('button', { type: 'submit', class: 'primary', text: 'Send' })], () => {
    const value = controls.read();
    check(schema, value);
    return { data: value };
  });
}

/** An LLM tool call: approve it (with a comment), deny it with a reason, or approve it with edited arguments. */
function toolApprovalForms(question) {
  const schema = unwrap(question.schema);
  const argumentsSchema = unwrap(schema?.properties?.arguments);
  const editor = jsonControl('tool-arguments', question.details.arguments, 'The details, as JSON');
  const edit = form(
    'edit',
    [editor.element, h('button', { type: 'submit', text: 'Approve with these details' })],
    () => {
      const edited = editor.read();
      check(argumentsSchema, edited, 'arguments');
      return { data: { decision: 'approve', arguments: edited } };
    },
  );
  return [
    decisions(
      (comment) => ({ data: { decision: 'approve', ...(comment && { reason: comment }) } }),
      (reason) => ({ data: { decision: 'deny', ...(reason && { reason }) } }),
    ),
    h('details', { class: 'edit' }, h('summary', { text: 'Change the details, then approve' }), edit),
  ];
}

function check(schema, value, path) {
  const found = problems(schema, value, path);
  if (found.length > 0) throw new Error(found.join('; '));
}

/** A reply form: `answerOf` reads it (or throws what is wrong), then it is sent. */
function form(name, children, answerOf) {
  const element = h('form', { class: `answer ${name}`, 'aria-label': name }, ...children);
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    let answer;
    try {
      answer = answerOf(element);
    } catch (error) {
      return setOutcome(error.message, 'error');
    }
    await send(answer);
  });
  return element;
}

async function send(answer) {
  const buttons = [...byId('answer').querySelectorAll('button')];
  buttons.forEach((button) => (button.disabled = true));
  setOutcome('Sending…', 'pending');
  const responder = responderName();
  const answering = watched;
  // Before the answer lands: a re-read meanwhile reports it as this page's.
  if (answering) answering.byMe = true;
  let task;
  try {
    const which = { askedAt: shownQuestion, ...(questionId && { question: questionId }) };
    ({ task } = await postJson(`${taskPath}/reply`, { ...answer, ...which, ...(responder && { responder }) }));
  } catch (error) {
    if (answering) answering.byMe = false;
    // Lost to another answer: the refusal says who gave it; the next question, if any, is watched anew.
    if (error instanceof ApiError && error.kind === 'answered') watched = undefined;
    setOutcome(refusal(error), 'error');
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
  // Re-rendered even if unchanged since the last read: the outcome now says what became of this answer.
  lastText = undefined;
  if (!task) return refresh();
  // The answer is the task as it settled (the gateway waited for it, as for a blocking A2A reply): no read more.
  reads++;
  show(task);
}

function refusal(error) {
  if (!(error instanceof ApiError)) return 'Could not reach the gateway; try again.';
  if (error.kind !== 'answered') return `Refused: ${error.message}`;
  const { by, at, state, newQuestion } = error.error;
  const when = at ? ` at ${clockTime(at)}` : '';
  const what = by ? `${by} answered${when}` : `the task became ${stateName(state)}${when}`;
  return `Too late: ${what}.${newQuestion ? ' A new question waits below.' : ''}`;
}

function setOutcome(text, kind) {
  const outcome = byId('outcome');
  outcome.textContent = text;
  outcome.className = `outcome ${kind}`;
}

start().catch((error) => {
  byId('task-status').textContent = `The page could not start: ${error.message}`;
});
