/**
 * The task page: the question and its reply form, the results so far, the timeline and the
 * messages. Every answer goes through the gateway's request handler, which checks it as it checks an
 * A2A reply; its refusals are shown here as they are. The page re-reads the task every few seconds,
 * so a question answered elsewhere is shown as such before anyone types into a stale form.
 */
import { ApiError, getJson, postJson, whoAmI } from './api.js';
import { byId, clockTime, deadlineElement, h, json, tickDeadlines, toolCall } from './dom.js';
import { jsonControl, problems, schemaControls, unwrap } from './schema-form.js';
import { responderName, showIdentity } from './session.js';

const REFRESH_MS = 2_000;
const params = new URLSearchParams(location.search);
const agent = params.get('agent') ?? '';
const taskId = params.get('id') ?? '';
const taskPath = `api/tasks/${encodeURIComponent(agent)}/${encodeURIComponent(taskId)}`;
/** What the answer form was built for: rebuilt only when the waiting question changes. */
let shownQuestion;
let lastText;

async function start() {
  tickDeadlines();
  const me = await whoAmI();
  showIdentity(me, () => location.assign('./'));
  if (me.mode === 'signed-out') return signedOut();
  await refresh();
  setInterval(() => refresh().catch(() => {}), REFRESH_MS);
}

function signedOut() {
  byId('task').hidden = true;
  byId('task-status').replaceChildren('Sign in first: ', h('a', { href: './', text: 'go to the sign-in page' }), '.');
}

async function refresh() {
  try {
    const { task } = await getJson(taskPath);
    const text = JSON.stringify(task);
    if (text === lastText) return;
    lastText = text;
    render(task);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signedOut();
    byId('task-status').textContent = error.message;
  }
}

function render(task) {
  const metadata = task.metadata ?? {};
  byId('task').hidden = false;
  byId('task-status').textContent = `${agent} · ${stateName(task.status?.state)}`;
  const request = (task.history ?? []).find((message) => message.role === 'ROLE_USER');
  byId('task-title').textContent = request ? textOf(request.parts) || 'Task' : 'Task';
  byId('task-meta').textContent = [
    `Agent ${agent}`,
    metadata.owner && `requested by ${metadata.owner}`,
    `task ${task.id}`,
  ]
    .filter(Boolean)
    .join(' · ');
  renderQuestion(task);
  byId('artifacts').replaceChildren(...artifacts(task.artifacts ?? []));
  byId('timeline').replaceChildren(...(metadata.timeline ?? []).map(timelineEntry));
  byId('history').replaceChildren(...(task.history ?? []).map(message));
}

function waitingQuestion(task) {
  const question = task.metadata?.pendingQuestion;
  const waiting = task.status?.state === 'TASK_STATE_INPUT_REQUIRED' && question?.kind === 'input';
  return waiting ? question : undefined;
}

function renderQuestion(task) {
  const question = waitingQuestion(task);
  const key = question ? question.askedAt : task.status?.state;
  if (key === shownQuestion) return;
  const answered = shownQuestion !== undefined && !question;
  shownQuestion = key;
  const body = byId('question-body');
  const answer = byId('answer');
  if (!question) {
    body.replaceChildren(h('p', { text: `No question waits: the task is ${stateName(task.status?.state)}.` }));
    answer.replaceChildren();
    if (answered) showAfterAnswer(task);
    return;
  }
  body.replaceChildren(
    h('p', { class: 'prompt', text: question.prompt }),
    question.details?.tool && toolCall(question.details),
    question.expects && h('p', { class: 'hint', text: `Expects: ${question.expects}` }),
    h(
      'p',
      { class: 'meta' },
      h('span', { text: `asked ${clockTime(question.askedAt)}` }),
      question.deadline && deadlineElement(question.deadline),
      question.responders && h('span', { text: `for ${question.responders.join(', ')}` }),
    ),
  );
  answer.replaceChildren(...answerForms(question));
}

/** Once the question is gone: who answered it, and when, from the task's timeline. */
function showAfterAnswer(task) {
  const entry = (task.metadata?.timeline ?? []).findLast((item) => item.by && item.by !== 'agent');
  if (entry && !byId('outcome').textContent) {
    setOutcome(`Answered by ${entry.by} at ${clockTime(entry.at)}.`, 'ok');
  }
}

function answerForms(question) {
  if (question.details?.tool) return toolApprovalForms(question);
  const schema = unwrap(question.schema);
  if (schema) return [typedForm(schema)];
  return [
    approveForm({ text: 'approve' }),
    denyForm((reason) => ({ text: reason ? `deny ${reason}` : 'deny' })),
    textForm(),
  ];
}

function approveForm(answer, label = 'Approve') {
  return form('approve', [h('button', { type: 'submit', class: 'primary', text: label })], () => answer);
}

function denyForm(answerOf) {
  const id = 'deny-reason';
  return form(
    'deny',
    [
      h('label', { for: id, text: 'Reason (optional)' }),
      h('textarea', { id, name: 'reason', rows: 2 }),
      h('button', { type: 'submit', class: 'danger', text: 'Deny' }),
    ],
    (element) => answerOf(element.elements.namedItem('reason').value.trim()),
  );
}

function textForm() {
  const id = 'text-answer';
  return form(
    'text',
    [
      h('label', { for: id, text: 'Another answer' }),
      h('textarea', { id, name: 'text', rows: 3, required: true }),
      h('button', { type: 'submit', text: 'Send' }),
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

/** An LLM tool call: approve it, deny it with a reason, or approve it with edited arguments. */
function toolApprovalForms(question) {
  const schema = unwrap(question.schema);
  const argumentsSchema = unwrap(schema?.properties?.arguments);
  const editor = jsonControl('tool-arguments', question.details.arguments, 'Arguments (JSON)');
  const edit = form(
    'edit',
    [editor.element, h('button', { type: 'submit', text: 'Approve with these arguments' })],
    () => {
      const edited = editor.read();
      check(argumentsSchema, edited, 'arguments');
      return { data: { decision: 'approve', arguments: edited } };
    },
  );
  return [
    approveForm({ data: { decision: 'approve' } }),
    denyForm((reason) => ({ data: { decision: 'deny', ...(reason && { reason }) } })),
    h('details', { class: 'edit' }, h('summary', { text: 'Edit the arguments' }), edit),
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
    await send(element, answer);
  });
  return element;
}

async function send(element, answer) {
  const buttons = [...byId('answer').querySelectorAll('button')];
  buttons.forEach((button) => (button.disabled = true));
  setOutcome('Sending…', 'pending');
  const responder = responderName();
  try {
    await postJson(`${taskPath}/reply`, { ...answer, askedAt: shownQuestion, ...(responder && { responder }) });
    setOutcome('Answer sent. The task goes on.', 'ok');
  } catch (error) {
    setOutcome(refusal(error), 'error');
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
  await refresh();
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

function artifacts(list) {
  if (list.length === 0) return [h('p', { class: 'hint', text: 'None yet.' })];
  return list.map((artifact) =>
    h(
      'section',
      { class: 'artifact' },
      h('h3', { text: artifact.name || artifact.artifactId }),
      ...(artifact.parts ?? []).map(part),
    ),
  );
}

/** A part as text: text, data as JSON, a file by its name and address (never a live link). */
function part(item) {
  if (typeof item.text === 'string') return h('pre', { class: 'text', text: item.text });
  if (item.data !== undefined) return h('pre', { class: 'data', text: json(item.data) });
  const file = [item.filename, item.url, item.mediaType].filter(Boolean).join(' · ');
  return h('p', { class: 'file', text: `File: ${file || '(inline bytes)'}` });
}

function timelineEntry(entry) {
  return h(
    'li',
    {},
    h('time', { datetime: entry.at, text: clockTime(entry.at) }),
    h('span', { class: 'state', text: entry.state }),
    entry.by && h('span', { class: 'by', text: `by ${entry.by}` }),
    entry.message && h('span', { class: 'note', text: entry.message }),
  );
}

function message(item) {
  const who = item.role === 'ROLE_USER' ? 'user' : 'agent';
  return h('li', { class: `from-${who}` }, h('span', { class: 'role', text: who }), ...(item.parts ?? []).map(part));
}

function textOf(parts) {
  return (parts ?? [])
    .map((item) => item.text)
    .filter((text) => typeof text === 'string')
    .join(' ');
}

function stateName(state) {
  return (state ?? 'unknown')
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

start().catch((error) => {
  byId('task-status').textContent = `The page could not start: ${error.message}`;
});
