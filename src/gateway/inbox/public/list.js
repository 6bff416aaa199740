/**
 * The list page: every question waiting for the signed-in person, across agents, kept live by the
 * gateway's event stream (it re-lists about once a second and sends the list when it changed).
 */
import { ApiError, signIn, whoAmI } from './api.js';
import {
  agoElement,
  askerOf,
  byId,
  deadlineElement,
  escalationWords,
  h,
  quorumWords,
  tickDeadlines,
  toolCall,
} from './dom.js';
import { showIdentity } from './session.js';

let live;

async function start() {
  tickDeadlines();
  byId('signin-form').addEventListener('submit', onSignIn);
  byId('order').addEventListener('change', follow);
  byId('agent').addEventListener('change', follow);
  show(await whoAmI());
}

function show(me) {
  const signedOut = me.mode === 'signed-out';
  const next = returnTo();
  if (!signedOut && next) return location.replace(next);
  showIdentity(me, (signingOut) => signingOut.then(show));
  byId('signin').hidden = !signedOut;
  byId('inbox').hidden = signedOut;
  live?.close();
  if (signedOut) return showSignIn(me);
  fillAgents(me.agents);
  follow();
}

/**
 * The task page that sent a signed-out person here to sign in (`?next=task?agent=…&id=…`, task.js):
 * only that page of this inbox, never another address.
 */
function returnTo() {
  const next = new URLSearchParams(location.search).get('next');
  if (!next) return undefined;
  const target = new URL(next, location.href);
  const taskPage = new URL('task', location.href);
  return target.origin === taskPage.origin && target.pathname === taskPage.pathname ? target.href : undefined;
}

function showSignIn(me) {
  const labels = { 'api-key': 'API key', jwt: 'Token (JWT)' };
  const select = byId('signin-method');
  select.replaceChildren(...me.signInMethods.map((method) => h('option', { value: method, text: labels[method] })));
  // One method needs no choice; the label still names it for screen readers.
  select.hidden = me.signInMethods.length < 2;
  byId('method-label').hidden = select.hidden;
  byId('signin-next').hidden = !returnTo();
  byId('signin-credential').setAttribute('aria-label', labels[me.signInMethods[0]] ?? 'Credential');
  if (me.signInMethods.length === 0) {
    byId('signin-error').textContent = 'This gateway signs people in through its proxy, which did not name you.';
  }
  byId('signin-credential').focus();
}

async function onSignIn(event) {
  event.preventDefault();
  const credential = byId('signin-credential');
  const error = byId('signin-error');
  error.textContent = '';
  try {
    const me = await signIn(byId('signin-method').value, credential.value);
    credential.value = '';
    show(me);
  } catch (failure) {
    error.textContent = failure instanceof ApiError ? failure.message : 'Could not reach the gateway';
  }
}

function fillAgents(agents) {
  const select = byId('agent');
  if (select.options.length > 1) return;
  select.append(...agents.map((agent) => h('option', { value: agent, text: agent })));
}

/** (Re)opens the event stream for the chosen order and agent. */
function follow() {
  live?.close();
  const query = new URLSearchParams({ order: byId('order').value });
  if (byId('agent').value) query.set('agent', byId('agent').value);
  live = new EventSource(`api/live?${query}`);
  live.addEventListener('questions', (event) => {
    // Marks for the figures in docs/inbox.md (test/integration/gateway/inbox/figures.test.ts): list received,
    // list shown.
    performance.mark('inbox-list-received');
    render(JSON.parse(event.data));
    performance.mark('inbox-list-rendered');
  });
  live.addEventListener('problem', () => setStatus('The list may be out of date: the gateway cannot reach Temporal.'));
  live.addEventListener('signed-out', () => whoAmI().then(show));
  live.addEventListener('error', () => {
    // The browser reconnects by itself, unless the gateway refused the stream (signed out).
    if (live.readyState === EventSource.CLOSED) whoAmI().then(show, () => setStatus('The gateway is unreachable.'));
  });
}

function setStatus(text) {
  byId('list-status').textContent = text;
}

function render(page) {
  const rows = page.questions.map(row);
  byId('questions').replaceChildren(...rows);
  const count = rows.length === 1 ? '1 question waits' : `${rows.length} questions wait`;
  setStatus(rows.length === 0 ? 'Nothing waits for you.' : `${count} for you${page.more ? ' (more not shown)' : ''}.`);
  document.title = rows.length > 0 ? `(${rows.length}) Approvals inbox` : 'Approvals inbox';
}

function row(item) {
  const { question } = item;
  // One of several questions of its task: its page shows that one and answers it by its id.
  const which = question.id ? { question: question.id } : {};
  const href = `task?${new URLSearchParams({ agent: item.agent, id: item.taskId, ...which })}`;
  return h(
    'li',
    { class: 'question', 'data-task': item.taskId, ...(question.id && { 'data-question': question.id }) },
    h(
      'a',
      { class: 'row-link', href },
      h('span', { class: 'agent', text: item.agent }),
      item.request && h('span', { class: 'request', text: item.request }),
      h('span', { class: 'prompt', text: question.prompt }),
      question.details?.tool && toolCall(question.details),
      // Its page says why and offers no answer (task-view.js): the task takes none until a fix runs.
      item.blocked && h('span', { class: 'blocked-row', text: `Blocked by a deploy: ${item.blocked}` }),
      h(
        'span',
        { class: 'meta' },
        // A question carried up from an agent this task delegated to: that agent asks, not the row's.
        question.from && h('span', { class: 'from-agent', text: `asked by ${askerOf(question.from)}` }),
        item.askedBy && h('span', { text: `requested by ${item.askedBy}` }),
        agoElement(question.askedAt),
        question.deadline && deadlineElement(question.deadline),
        // Nobody answered in time: it reached this list by an escalation.
        question.escalated?.length > 0 && h('span', { class: 'escalated', text: escalationWords(question.escalated) }),
        // Several must approve: the votes so far and who is still needed.
        question.quorum && h('span', { class: 'quorum', text: quorumWords(question.quorum) }),
      ),
    ),
  );
}

start().catch((error) => setStatus(`The inbox could not start: ${error.message}`));
