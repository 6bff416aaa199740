/**
 * What a notice says, once for every channel: a subject line, the facts (question, request,
 * deadline) and the link to the task's page in the approvals inbox. Every string from an agent, a
 * model or a person is text: the HTML form escapes it all.
 */
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import type { ApproverNotice } from '../protocol/approvals.js';
import { questionLine } from '../protocol/question.js';
import type { AnswerLinks } from './answer-links.js';
import { utcMinuteText } from '../protocol/time-text.js';
import type { Settings } from '../config/settings.js';

const SUBJECT_QUESTION_CHARS = 120;

/** Where people open the inbox: the gateway's public URL (the worker reads the same variable). */
export function publicUrlFromEnv(env: Pick<Settings, 'A2A_PUBLIC_URL' | 'PORT'>): string {
  return withoutTrailingSlashes(env.A2A_PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`);
}

/** The task's page in the approvals inbox (src/gateway/inbox/public/task.js reads `agent` and `id`). */
export function inboxTaskUrl(publicUrl: string, notice: Pick<ApproverNotice, 'agent' | 'taskId'>): string {
  return `${publicUrl}/inbox/task?${new URLSearchParams({ agent: notice.agent, id: notice.taskId })}`;
}

export function noticeSubject(notice: ApproverNotice): string {
  const short = questionLine(notice.question, SUBJECT_QUESTION_CHARS);
  switch (notice.kind) {
    case 'ask':
      return `Approval needed: ${short}`;
    case 'reminder':
      return `Reminder, approval needed${notice.deadline ? ` by ${utcMinuteText(notice.deadline)}` : ''}: ${short}`;
    case 'answered':
      return `${notice.decision ?? `Answered by ${notice.answeredBy ?? 'someone else'}`}: ${short}`;
    case 'expired':
      return `Expired without an answer: ${short}`;
    case 'canceled':
      return `Task canceled, no answer needed: ${short}`;
    case 'failed':
      return `Task failed, no answer needed: ${short}`;
  }
}

/** The opening sentence, then labelled facts. */
function lines(notice: ApproverNotice): { intro: string; facts: Array<[string, string]> } {
  const intro = {
    ask: `The ${notice.agent} agent asks for your approval.`,
    reminder: `The ${notice.agent} agent still waits for an answer.`,
    // A quorum question: who approved (or denied) it, not only the last vote (docs/approval-policies.md, Quorum).
    answered: notice.decision
      ? `${notice.decision}: nothing more is needed from you.`
      : `${notice.answeredBy ?? 'Someone else'} answered this question: nothing more is needed from you.`,
    expired: 'Nobody answered this question before its deadline: it is closed.',
    canceled: `The ${notice.agent} agent's task was canceled while this question waited: nothing more is needed from you.`,
    failed: `The ${notice.agent} agent's task failed while this question waited: nothing more is needed from you.`,
  }[notice.kind];
  const facts: Array<[string, string]> = [['Question', notice.question]];
  // A deputy is told whose question it answers (docs/approval-policies.md, Deputies).
  if (notice.actingFor) facts.push(['For', `${notice.actingFor} (you are their deputy)`]);
  // Several must approve: where the votes stand (docs/approval-policies.md, Quorum).
  if (notice.approvals) facts.push(['Approvals', notice.approvals]);
  if (notice.outcome) facts.push(['Why', notice.outcome]);
  if (notice.request) facts.push(['Request', notice.request]);
  facts.push(['Asked', utcMinuteText(notice.askedAt)]);
  if (notice.deadline) facts.push(['Deadline', utcMinuteText(notice.deadline)]);
  return { intro, facts };
}

/** `answers`: one-click Approve / Deny links (answer-links.ts), each opening a confirmation page. */
export function noticeText(notice: ApproverNotice, link: string, answers?: AnswerLinks): string {
  const { intro, facts } = lines(notice);
  const open = notice.kind === 'ask' || notice.kind === 'reminder' ? 'Answer it here' : 'The task';
  const oneClick = answers
    ? ['', 'Or in one click (a page asks you to confirm):', `Approve: ${answers.approve}`, `Deny: ${answers.deny}`]
    : [];
  return [
    intro,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    `${open}: ${link}`,
    ...oneClick,
    '',
  ].join('\n');
}

export function noticeHtml(notice: ApproverNotice, link: string, answers?: AnswerLinks): string {
  const { intro, facts } = lines(notice);
  const open =
    notice.kind === 'ask' || notice.kind === 'reminder' ? 'Answer it in the approvals inbox' : 'See the task';
  const rows = facts
    .map(
      ([label, value]) =>
        `<tr><th align="left" valign="top">${escapeHtml(label)}</th><td>${multiline(value)}</td></tr>`,
    )
    .join('');
  const oneClick = answers
    ? `<p><a href="${escapeHtml(answers.approve)}">Approve</a> &nbsp; <a href="${escapeHtml(answers.deny)}">Deny</a>` +
      ` (a page asks you to confirm)</p>`
    : '';
  return (
    `<!doctype html><html><body><p>${escapeHtml(intro)}</p><table cellpadding="4">${rows}</table>` +
    `<p><a href="${escapeHtml(link)}">${escapeHtml(open)}</a></p>${oneClick}</body></html>`
  );
}

function multiline(text: string): string {
  return escapeHtml(text).replace(/\n/g, '<br>');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text in HTML, never markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}
