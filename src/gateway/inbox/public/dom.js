/**
 * Building the pages' DOM: every string goes in as text (text nodes, textContent, attribute values
 * set one by one), never as markup, so what an agent, a model or a person wrote is shown, not run.
 */

/** An element with attributes (`class`, `text`, `on<event>`, others as attributes) and children (nodes or text). */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key === 'text') element.textContent = String(value);
    else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * Replaces `element`'s children, skipping absent ones as `h` does: `replaceChildren` itself would
 * show an `undefined` left by `condition && node` as the text "undefined".
 */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false || child === '') continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element;
}

/** "14:05" today, else "3 Mar 14:05": the reader's own clock and language. */
export function clockTime(iso) {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  const options = today
    ? { hour: '2-digit', minute: '2-digit' }
    : { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' };
  return date.toLocaleString(undefined, options);
}

/** "2 h 05 min", "42 s", "3 d 4 h". */
export function span(ms) {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** "asked 5 min ago", kept up to date by `tickDeadlines`. */
export function agoElement(iso, verb = 'asked') {
  const element = h('span', { class: 'ago', title: new Date(iso).toLocaleString() });
  element.dataset.since = iso;
  element.dataset.verb = verb;
  updateAgo(element);
  return element;
}

function updateAgo(element) {
  // An empty verb: "5 min ago".
  element.textContent =
    `${element.dataset.verb} ${span(Date.now() - Date.parse(element.dataset.since))} ago`.trimStart();
}

/**
 * A deadline's element, kept up to date by `tickDeadlines` every second: time left, "soon" under an
 * hour, "passed" once over (the task's own deadline handling then takes the row away).
 */
export function deadlineElement(iso) {
  const element = h('span', { class: 'deadline' });
  element.dataset.deadline = iso;
  updateDeadline(element);
  return element;
}

export function tickDeadlines() {
  setInterval(() => {
    document.querySelectorAll('[data-deadline]').forEach(updateDeadline);
    document.querySelectorAll('[data-since]').forEach(updateAgo);
  }, 1000);
}

function updateDeadline(element) {
  const left = Date.parse(element.dataset.deadline) - Date.now();
  element.classList.toggle('passed', left <= 0);
  element.classList.toggle('soon', left > 0 && left < 3_600_000);
  element.textContent =
    left <= 0
      ? `deadline ${clockTime(element.dataset.deadline)} passed`
      : `${span(left)} left (until ${clockTime(element.dataset.deadline)})`;
}

/**
 * A data part as a person reads it: an object as labelled values (a nested value as compact JSON),
 * anything else as JSON.
 */
export function dataView(value, className = 'data') {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return h('pre', { class: className, text: json(value) });
  }
  return facts(
    Object.entries(value).map(([key, item]) => [
      key,
      typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item),
    ]),
    className,
  );
}

/** Label and value pairs as a definition list; a value may be a node. Pairs without a value are left out. */
export function facts(pairs, className = 'facts') {
  const present = pairs.filter(([, value]) => value !== undefined && value !== null && value !== false);
  return h(
    'dl',
    { class: className },
    ...present.flatMap(([label, value]) => [h('dt', { text: label }), h('dd', {}, value)]),
  );
}

/** Pretty JSON for display, as text. */
export function json(value) {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * The agent that asked a question carried up from delegated tasks: with `via`, the agent at the end
 * of the chain, then those it came up through ("supplier, through broker").
 */
export function askerOf(from) {
  const below = from.via ?? [];
  if (below.length === 0) return from.agent;
  const through = [from, ...below.slice(0, -1)].map((hop) => hop.agent).reverse();
  return `${below.at(-1).agent}, through ${through.join(', ')}`;
}

/** An LLM tool call awaiting approval: the tool, its arguments and why it needs approval. */
export function toolCall(details) {
  return h(
    'span',
    { class: 'tool' },
    h('span', { class: 'tool-name', text: `Tool: ${details.tool}` }),
    details.reason && h('span', { class: 'tool-reason', text: `Why: ${details.reason}` }),
    h('code', { class: 'tool-arguments', text: json(details.arguments) }),
  );
}

/** The question's escalations (docs/approval-policies.md, Escalation) in words: "escalated to group finance-leads at …". */
export function escalationWords(escalated) {
  return escalated
    .map(({ to, mode, at }) => {
      return `escalated ${mode === 'move' ? 'from its approvers to' : 'to'} ${responderWords(to)} at ${clockTime(at)}`;
    })
    .join('; ');
}

/** A quorum question's tally (docs/approval-policies.md, Quorum): "1 of 2 approvals; still needed: 1 more approval". */
export function quorumWords(quorum) {
  const needed = quorum.needed.length > 0 ? `; still needed: ${quorum.needed.join(', ')}` : '';
  return `${quorum.approvals} of ${quorum.required} approvals${needed}`;
}

/** A quorum question's votes in words: "bob approved at 14:02 (“fine”); dora for bob denied at …". */
export function votesWords(votes) {
  return votes
    .map(({ by, actingFor, decision, at, comment }) => {
      const who = actingFor ? `${by} for ${actingFor}` : by;
      return `${who} ${decision === 'approve' ? 'approved' : 'denied'} at ${clockTime(at)}${comment ? ` (“${comment}”)` : ''}`;
    })
    .join('; ');
}

/** Responders in words: `group:finance` as "group finance". */
export function responderWords(responders) {
  return responders.map((entry) => (entry.startsWith('group:') ? `group ${entry.slice(6)}` : entry)).join(', ');
}
